"""Installing rlaccel puts exactly one top-level package into site-packages: the layers and
the machines live under ``rlaccel.`` so a user's own ``isa`` or ``programs`` cannot collide
with them, and each machine's data (architectures, programs, manifests) installs with it."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
_SKIP = shutil.ignore_patterns(".git", ".venv", ".hdl", "out", "build", "*.egg-info",
                               "__pycache__", ".pytest_cache", ".hypothesis", "tests", "bench")


def test_one_top_level_package(tmp_path):
    """``pip install`` of a copy of the source tree (so the build leaves the checkout alone),
    into a target directory laid out as site-packages."""
    src, target = tmp_path / "src", tmp_path / "site"
    shutil.copytree(ROOT, src, ignore=_SKIP)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-compile", "--target", str(target), str(src)], check=True,
                          cwd=tmp_path, capture_output=True, text=True)
    # the build's own warnings (a deprecated license table, data folders "ignored"), not
    # pip's about its package index
    warnings = [line for line in (done.stdout + done.stderr).splitlines()
                if "Warning" in line or "would be ignored" in line]
    assert warnings == []
    top = sorted(p.name for p in target.iterdir()
                 if not p.name.endswith((".dist-info", ".egg-info")) and p.name != "bin")
    assert top == ["rlaccel"]
    pkg = target / "rlaccel"
    for folder in ("isa", "assembler", "tlm", "rtl", "programs", "sweep", "util", "machines"):
        assert (pkg / folder / "__init__.py").exists(), folder
    for machine in (p.name for p in (ROOT / "machines").iterdir() if p.is_dir()
                    and (p / "__init__.py").exists()):
        room = pkg / "machines" / machine
        assert (room / "__init__.py").exists(), machine
        assert sorted(p.name for p in (room / "archs").glob("*.toml")) == sorted(
            p.name for p in (ROOT / "machines" / machine / "archs").glob("*.toml")), machine
        assert sorted(p.name for p in (room / "programs").iterdir()) == sorted(
            p.name for p in (ROOT / "machines" / machine / "programs").iterdir()), machine
        assert (room / "README.md").exists(), machine
    assert (pkg / "assembler" / "grammar.lark").exists()


def test_editable_install_prints_no_warning(tmp_path):
    """``pip install -e .`` of a copy (links kept, as a clone has them) into an empty
    environment of its own (pip would otherwise replace this environment's rlaccel): an
    ordinary src layout, so setuptools needs no import hook and prints no notice; only ``src``
    goes on the path."""
    src, env = tmp_path / "src", tmp_path / "env"
    shutil.copytree(ROOT, src, ignore=_SKIP, symlinks=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"),
                           "install", "--no-deps", "--no-compile", "-e", str(src)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    said = [line for line in (done.stdout + done.stderr).splitlines()
            if not line.startswith("WARNING: Location")]      # pip's, about its package index
    assert not [line for line in said if "arning" in line or "careful" in line], said
    pth = [p.read_text().split() for p in env.rglob("__editable__*.pth")]
    assert pth == [[str((src / "src").resolve())]]
