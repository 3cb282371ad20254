"""The compiled loop gives the Python loop's results bit for bit: whole reports, traces (with
their cut), errors, machines of several agents, instructions without a kernel, and the
plain-Python fallback when numba is off."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import SimError
from rlaccel.programs.runner import run
from rlaccel.tlm.fast.engine import prepare
from rlaccel.tlm.platform import Platform
from rlaccel.tlm.trace import ChromeTrace

from tests.tlm.conftest import ScriptedHost
from rlaccel.isa.machine import machine

ROOT = Path(__file__).parents[3]
CARTPOLE = machine("adhdp").programs / "cartpole.toml"
TRIPLE = machine("adhdp").programs / "triple_link.toml"


def _strip(o):
    """A report without its wall-clock figures."""
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k not in ("sim", "measured_s")}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


@pytest.mark.parametrize("f64", [False, True])
@pytest.mark.parametrize("manifest,vu,forwarding", [
    (CARTPOLE, "false", "element"), (CARTPOLE, "true", "element"), (TRIPLE, "true", "element"),
    (TRIPLE, "false", "element"), (CARTPOLE, "false", "instruction"),
    (TRIPLE, "true", "instruction")])
def test_compiled_run_equals_reference_run(f64, manifest, vu, forwarding):
    """Both loops give the same report, with readiness word by word (the chips' rule since
    issue 13) and per instruction."""
    arch = ("adhdp-vu" if vu == "true" else "adhdp") + ("-f64" if f64 else "")
    over = [f"virtual_update={vu}", "stop_on_success=false", "max_steps=60",
            f'learning.critic_form={"si-wang" if manifest == TRIPLE else "fig2"}']
    knobs = {"datapath.forwarding": forwarding}
    fast = run(manifest, over, arch=arch, trials=2, arch_overrides=knobs)
    slow = run(manifest, over, arch=arch, trials=2, kernels="reference", arch_overrides=knobs)
    assert fast["sim"]["kernels"] == "compiled" and slow["sim"]["kernels"] == "reference"
    assert _strip(fast) == _strip(slow)
    assert fast["instructions"] > 1000


def test_element_forwarding_stalls_less_and_changes_only_time():
    """Word-by-word readiness never waits longer than per-instruction readiness, and the
    machine computes the same: only cycles and stalls move."""
    over = ["stop_on_success=false", "max_steps=60"]
    el = run(TRIPLE, over, trials=2)
    ins = run(TRIPLE, over, trials=2, arch_overrides={"datapath.forwarding": "instruction"})
    assert el["learning"] == ins["learning"] and el["instructions"] == ins["instructions"]
    assert el["stall_cycles"] < ins["stall_cycles"] and el["cycles"] < ins["cycles"]
    assert ins["cycles"] - el["cycles"] == ins["stall_cycles"] - el["stall_cycles"]


@pytest.mark.parametrize("max_events", [200_000, 777])
def test_compiled_trace_equals_reference_trace(tmp_path, max_events, monkeypatch):
    import rlaccel.programs.runner as runner
    made = []

    def trace(clock_mhz, **options):
        made.append(ChromeTrace(clock_mhz, **{**options, "max_events": max_events}))
        return made[-1]
    monkeypatch.setattr(runner, "ChromeTrace", trace)
    over = ["max_steps=40", "stop_on_success=false"]
    run(CARTPOLE, over, trials=1, trace_path=str(tmp_path / "a.json"))
    run(CARTPOLE, over, trials=1, trace_path=str(tmp_path / "b.json"), kernels="reference")
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a == b
    assert made[0].dropped == made[1].dropped
    assert (made[0].dropped > 0) == (max_events < 1000)
    assert len(a["traceEvents"]) > 700


DATA = """.data
X: .values 0.5, -0.25, 0.125, 1.0
H: .zero 4
.synapse
W: .rand 16, -1, 1, 1
.text
"""


@pytest.mark.parametrize("kernels", ["compiled", "reference"])
def test_limit_and_fault_messages(kernels):
    def platform(body, **kw):
        a = assemble(".arch adhdp\n" + DATA + body, "t.s")
        return Platform(load_arch("adhdp"), a.binary, ScriptedHost(), kernels=kernels, **kw)
    with pytest.raises(SimError,
                       match=r"did not halt within 50 instructions \(PC 0, cycle 200\)"):
        platform("l: ff X, W, H, 4, 4\ncc.jmp l\n", max_instructions=50).run()
    with pytest.raises(SimError, match=r"PC 2 is outside the program of 2 instructions "
                                       r"\(after 2 instructions"):
        platform("ff X, W, H, 4, 4\nff X, W, H, 4, 4\n").run()


def test_instructions_whose_run_was_replaced_go_through_python():
    """An op whose ``run`` was replaced after loading (as the RTL transactor does) has no
    kernel in the loop: the replacement runs, the results stay those of the model."""
    a = assemble(".arch adhdp\n" + DATA + "ff X, W, H, 4, 4, act=bsig\nff H, W, H, 4, 4\n"
                 "cc.halt\n", "t.s")
    arch = load_arch("adhdp")
    ref = Platform(arch, a.binary, ScriptedHost())
    ref.run()
    p = Platform(arch, a.binary, ScriptedHost())
    calls = []
    op = p.agent.ops[1]
    inner = op.run

    def replaced():
        calls.append(1)
        inner()
    op.run = replaced
    prog = prepare(p.agent.controller)
    assert prog.compiled == 1                      # the first ff (cc.halt is Python's)
    p.run()
    assert calls == [1]
    assert np.array_equal(p.symbol_view("H"), ref.symbol_view("H"))
    assert p.agent.controller.cycles_at == ref.agent.controller.cycles_at


class _TakeOver:
    """A stand-in for an RTL transactor (``datapath=``): it replaces the ``run`` of every FF,
    BP, WU and BP_WU with a call of the model's own and counts the calls."""

    def __init__(self):
        self.calls = 0
        self.programs = []

    def attach(self, agent):
        from rlaccel.tlm.loader import EXEC
        for op in agent.ops:
            if op.kind == EXEC and op.mnemonic in ("ff", "bp", "wu", "bp_wu"):
                op.run = self._wrap(op.run)

    def _wrap(self, inner):
        def run():
            self.calls += 1
            return inner()
        return run

    def close(self):
        pass


@pytest.mark.parametrize("kernels", ["compiled", "reference"])
def test_a_transactor_takes_only_its_instructions_out_of_the_compiled_loop(monkeypatch,
                                                                           kernels):
    """With every matrix instruction handed to a transactor the program stays in the compiled
    loop (those instructions return to Python, the rest run compiled: they are not counted
    in the work the kernels are weighed against), and the report equals the run without the
    transactor bit for bit, on either loop."""
    from rlaccel.tlm.fast import engine
    entered = []
    real = engine.process

    def process(ctrl, prog):
        entered.append((prog.kernels, prog.work, prog.compiled))
        return (yield from real(ctrl, prog))
    monkeypatch.setattr(engine, "process", process)
    over = ["stop_on_success=false", "max_steps=60"]
    plain = run(CARTPOLE, over, trials=2)
    assert len(entered) == 1
    kernels_alone, work_alone, _ = entered.pop()
    dp = _TakeOver()
    taken = run(CARTPOLE, over, trials=2, datapath=dp, kernels=kernels)
    assert dp.calls > 1000
    if kernels == "compiled":
        assert len(entered) == 1
        k, work, compiled = entered[0]
        assert work < work_alone and k < kernels_alone and 2 * k >= work and compiled > 0
    else:
        assert entered == []
    assert _strip({**taken, "sim": None}) == _strip({**plain, "sim": None})


def test_several_agents_compiled_equal_reference(tmp_path):
    """A ring all-gather between base-family ff's: the sync ops run in Python."""
    from tests.tlm.test_platform import _arch, _binary
    arch = _arch(tmp_path, 3)
    bins = [_binary(arch, i, 3) for i in range(3)]
    out = {}
    for k in ("compiled", "reference"):
        p = Platform(arch, bins, kernels=k)
        r = p.run()
        out[k] = (r.cycles, r.energy_pj, [list(p.symbol_view("ALL", agent=i)) for i in range(3)],
                  [a.controller.cycles_at for a in p.agents])
    assert out["compiled"] == out["reference"]


def test_plain_python_fallback_gives_the_same_bits(tmp_path):
    """With numba's JIT off the same loop runs as plain Python: the same report."""
    over = ["--set", "max_steps=8", "--set", "stop_on_success=false"]
    cmd = [sys.executable, "-m", "rlaccel", "run", str(CARTPOLE), "--trials", "1", "-q"] + over
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run(cmd + ["--json", str(tmp_path / "py.json")], env=env, check=True,
                   capture_output=True)
    subprocess.run(cmd + ["--json", str(tmp_path / "jit.json")], check=True,
                   capture_output=True)
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("py.json", "jit.json"))
    assert _strip(a) == _strip(b) and a["instructions"] > 100
