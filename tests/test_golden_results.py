"""Golden results: short runs of every machine's manifests give the reports recorded in
``tests/golden/`` (cycles, instructions, energy, learning curves: everything but the report's
``timing`` -- wall-clock and host-measured figures -- and the paths of the files), so a
reorganisation of the code cannot change what the machines compute.

``python tests/test_golden_results.py NAME...`` rewrites the named cases' records (only when
their results are meant to change)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

if __name__ == "__main__":   # as a script: its folder, first on the path, holds tests/rlaccel,
    sys.path.pop(0)          # which would hide the package

import pytest  # noqa: E402
from rlaccel.isa.machine import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden"
CASES = tomllib.loads((GOLDEN / "cases.toml").read_text())

#: report keys that measure the host computer (all under ``timing``), name files, or name
#: the versions of what the run ran on
VOLATILE = re.compile(r"^timing\.|^versions\.|^(manifest|program|binary_sha256)$")


#: report keys added after some records were made (older records lack them, newer ones have them)
ADDED = {"machine"}


def manifest_path(relative: str) -> Path:
    """A manifest named by its machine and file name, wherever the machine keeps it."""
    name, file = relative.split("/")
    return machine(name).programs / file


def flat(d, prefix: str = "") -> dict:
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(flat(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(flat(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = d
    return out


def stable(report: dict) -> dict:
    return {k: v for k, v in flat(report).items()
            if not VOLATILE.search(re.sub(r"\[\d+\]", "", k))}


def run_case(name: str, out: Path) -> dict:
    case = CASES[name]
    cmd = [sys.executable, "-m", "rlaccel", "run",
           os.path.relpath(manifest_path(case["manifest"]), ROOT),
           *case["options"], "-q", "--json", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_results(name, tmp_path):
    got = stable(run_case(name, tmp_path / "report.json"))
    want = stable(json.loads((GOLDEN / f"{name}.json").read_text()))
    assert got.keys() - ADDED == want.keys() - ADDED
    changed = {k: (want[k], got[k]) for k in want if got[k] != want[k]}
    assert not changed, f"{len(changed)} figures changed, first: {list(changed.items())[:5]}"


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(description="Rewrite the named cases' golden records (only "
                                "when their results are meant to change); `pytest "
                                "tests/test_golden_results.py` checks them.")
    p.add_argument("names", nargs="+", metavar="NAME", choices=sorted(CASES),
                   help="cases of tests/golden/cases.toml: " + ", ".join(sorted(CASES)))
    for name in p.parse_args(argv).names:
        report = run_case(name, GOLDEN / f"{name}.json")
        print(name, report["cycles"], "cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
