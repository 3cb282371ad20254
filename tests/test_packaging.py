"""Installing rlaccel puts exactly one top-level package into site-packages: the layers live
under ``rlaccel.`` so a user's own ``isa`` or ``programs`` cannot collide with them."""

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
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-compile", "--target", str(target), str(src)], check=True,
                   cwd=tmp_path)
    top = sorted(p.name for p in target.iterdir()
                 if not p.name.endswith((".dist-info", ".egg-info")) and p.name != "bin")
    assert top == ["rlaccel"]
    pkg = target / "rlaccel"
    for layer in ("isa", "assembler", "tlm", "rtl", "programs", "sweep", "util"):
        assert (pkg / layer / "__init__.py").exists(), layer
    assert (pkg / "isa" / "archs" / "adhdp.toml").exists()
    assert (pkg / "programs" / "adhdp" / "cartpole.s").exists()
    assert (pkg / "assembler" / "grammar.lark").exists()
