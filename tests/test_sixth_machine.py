"""A sixth machine is its folder and nothing else: ``tiny``, a counter machine built here under
a temporary folder only (its ISA rows, an architecture, one instruction model, a
two-instruction program, a manifest and its run plug-in), found through ``RLACCEL_MACHINES``
and run through ``rlaccel isa``, ``asm``, ``dis`` and ``run`` with no edit to any file of
rlaccel. The files below are the whole machine; docs/design.md's checklist "Adding a
machine" walks through the same steps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "__init__.py": '''"""Tiny: a counter machine, the smallest room a machine can have."""

from rlaccel.isa.machine import Machine

MACHINE = Machine(name="tiny", title="a counter", family="count", models="models:FAMILY")
''',
    "isa.toml": '''# The count family: one instruction that adds an immediate to a word.
first_opcode = 40
majors = ["CNT"]

[formats]
K = [["dst", "uaddr"], ["imm", "u8"]]

[[op]]
mnemonic = "cnt.add"
major = "CNT"
format = "K"
operands = "dst imm"
reads = { dst = "1" }
writes = { dst = "1" }
semantics = "dst = dst + imm."
''',
    "models.py": '''"""The count family's one instruction model: two cycles, no energy action of its own."""

from rlaccel.tlm.model import Cost, Family, InstructionModel


def _add(b):
    mem, dst, step = b.mem("unified"), b.ops["dst"], b.dt.quantize(float(b.ops["imm"]))

    def run():
        mem[dst] += step
    return run


MODELS = {"cnt.add": InstructionModel("cnt.add", "exec", _add, lambda b: Cost(2),
                                      lambda b: {}, "COUNT")}
FAMILY = Family(name="count", models=MODELS, actions={}, categories=("COUNT",))
''',
    "plugin.py": '''"""Running tiny: the program alone, no environment."""

from rlaccel.programs.plugin import Plugin, Run


class TinyPlugin(Plugin):
    machine = "tiny"
    description = "a counter"
    schema = {"step": 1}

    def prepare(self, m, arch):
        return Run(self.program_path(m), {"STEP": m["step"]})

    def results(self, m, run, res, platform):
        agent = platform.agents[0]
        return {"count": float(agent.dt.to_float(agent.memory("unified")[0]))}

    def summary(self, report):
        return f"tiny: count {report['count']} after {report['cycles']} cycles"


PLUGIN = TinyPlugin()
''',
    "archs/tiny.toml": '''name = "tiny"
description = "a counter"

[machine]
clock_mhz = 100.0
lanes = 1
dtype = "q8.8"
families = ["base", "count"]
imem_bytes = 64
synapse_words = 1
neuron_words = 8

[energy]                    # pJ per action of the base family, illustrative
mac = 1.0
mul = 1.0
add = 0.1
act = 1.0
sram_read = 1.0
sram_write = 1.0
reg_read = 0.5
reg_write = 0.5
buf_read = 0.5
buf_write = 0.5
decode = 1.0
clock = 2.0

[timing]
pipeline_depth = 6
branch_penalty = 2
scalar_latency = 3
''',
    "programs/count.s": '''.arch tiny
.default STEP, 1
.text
        cnt.add 0, STEP
        cc.halt
''',
    "programs/count.toml": '''machine = "tiny"
arch = "tiny"
program = "count.s"
step = 3
''',
}


def _room(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def _rlaccel(machines: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RLACCEL_MACHINES": str(machines)}
    return subprocess.run([sys.executable, "-m", "rlaccel", *argv], capture_output=True,
                          text=True, env=env, cwd=machines)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return _room(tmp_path_factory.mktemp("machines") / "tiny", TINY).parent


def test_sixth_machine_isa(tiny):
    r = _rlaccel(tiny, "isa", "--arch", "tiny")
    assert r.returncode == 0, r.stderr
    assert "families base, count" in r.stdout
    assert "  format K   op:6 dst:3 imm:8" in r.stdout           # opcode 40 needs 6 bits
    assert "  count: cnt.add" in r.stdout
    listing = _rlaccel(tiny, "isa").stdout
    assert "  tiny             tiny" in listing and "  adhdp            adhdp" in listing


def test_sixth_machine_asm_and_dis(tiny):
    r = _rlaccel(tiny, "asm", "tiny/programs/count.s", "-o", "count.rlb")
    assert r.returncode == 0, r.stderr
    assert "2 instructions x 34 bits" in r.stdout
    d = _rlaccel(tiny, "dis", "count.rlb")
    assert d.returncode == 0, d.stderr
    assert "cnt.add    dst=0, imm=1" in d.stdout and "cc.halt" in d.stdout
    (tiny / "again.s").write_text(d.stdout)
    assert _rlaccel(tiny, "asm", "again.s", "-o", "again.rlb").returncode == 0
    body = [line for line in d.stdout.splitlines() if not line.startswith(";")]
    again = _rlaccel(tiny, "dis", "again.rlb").stdout.splitlines()
    assert [line for line in again if not line.startswith(";")] == body


def test_sixth_machine_run(tiny):
    r = _rlaccel(tiny, "run", "tiny/programs/count.toml", "--json", "r.json")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()        # the common block, then the machine's line
    assert lines[0] == "tiny: tiny/programs/count.s on tiny, seed 1"
    assert lines[1].startswith("  simulated:   3 cycles = 30.00 ns at 100.0 MHz")
    assert lines[-1] == "tiny: count 3.0 after 3 cycles"
    report = json.loads((tiny / "r.json").read_text())
    assert report["machine"] == "tiny" and report["instructions"] == 2
    assert report["by_opcode"]["cnt.add"] == {"count": 1, "cycles": 2, "energy_pj": 4.0}
    again = _rlaccel(tiny, "run", "tiny/programs/count.toml", "--set", "step=5")
    assert again.stdout.strip().splitlines()[-1] == "tiny: count 5.0 after 3 cycles"


def test_sixth_machine_leaves_the_five_alone(tiny):
    """The five machines' opcodes do not move when a machine is added."""
    code = ("from rlaccel.isa.table import OPCODES; "
            "print(OPCODES['FF'], OPCODES['BMM'], OPCODES['COMM'], OPCODES['SGRP'], "
            "OPCODES['HENC'], OPCODES['CNT'])")
    env = {**os.environ, "RLACCEL_MACHINES": str(tiny)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.split() == ["0", "7", "13", "14", "17", "40"]


def test_a_machine_whose_opcodes_clash_is_refused(tmp_path):
    rows = TINY["isa.toml"].replace("first_opcode = 40", "first_opcode = 17")
    machines = _room(tmp_path / "tiny", {**TINY, "isa.toml": rows}).parent
    r = _rlaccel(machines, "isa", "--arch", "tiny")
    assert r.returncode == 1
    assert ("ISA table: opcode 17 is HENC and CNT (family count): give count a first_opcode "
            "of 22 or more") in r.stderr


def test_a_family_file_that_does_not_fit_is_refused_by_name(tmp_path):
    rows = TINY["isa.toml"].replace('operands = "dst imm"', 'operands = "dst imm"\nlatency = 3')
    machines = _room(tmp_path / "tiny", {**TINY, "isa.toml": rows}).parent
    r = _rlaccel(machines, "isa", "--arch", "tiny")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert (f"{machines / 'tiny' / 'isa.toml'}: [[op]] number 1 (cnt.add) has unknown keys "
            f"latency") in r.stderr


def test_a_folder_without_a_descriptor_is_named(tmp_path):
    machines = _room(tmp_path / "stray", {"__init__.py": '"""No MACHINE here."""\n'}).parent
    r = _rlaccel(machines, "isa")
    assert r.returncode == 1
    assert (f"{tmp_path / 'stray'}: a machine package declares MACHINE = Machine(...) in its "
            f"__init__.py") in r.stderr
