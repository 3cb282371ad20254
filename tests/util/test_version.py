"""rlaccel's version and its dependencies' (util/version.py), as ``rlaccel --version`` prints
them and every run report and sweep database records them."""

import subprocess
import sys
from importlib.metadata import version

from rlaccel.util.version import DEPENDENCIES, VERSION, versions


def test_versions_name_rlaccel_python_and_every_dependency():
    v = versions()
    assert list(v) == ["rlaccel", "python", *DEPENDENCIES]
    assert v["rlaccel"] == VERSION == version("rlaccel")
    assert v["python"] == ".".join(map(str, sys.version_info[:3]))
    assert v["numpy"] == version("numpy")


def test_cli_version_prints_them_and_exits_0():
    done = subprocess.run([sys.executable, "-m", "rlaccel", "--version"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    first, deps = done.stdout.splitlines()
    assert first == f"rlaccel {VERSION}"
    assert f"numpy {version('numpy')}" in deps and "python " in deps


def test_versions_are_read_once_and_handed_out_as_fresh_dicts():
    a = versions()
    a["numpy"] = "changed by a caller"
    assert versions()["numpy"] == version("numpy")
