"""The simulator on adhdp-f64 equals the float64 golden model bit for bit, and the virtual
update equals the regular update (seed 001, section IV: "does not reduce the precision")."""

from pathlib import Path

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble_file
from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.adhdp.host import AdhdpHost, LearningConfig, Trials
from rlaccel.machines.adhdp.reference import AdhdpReference
from rlaccel.tlm.platform import Platform
from rlaccel.isa.machine import machine

ROOT = machine("adhdp").programs
F64 = load_arch("adhdp-f64")
VU64 = load_arch("adhdp-vu-f64")


def _tlm(program, cfg, defines=None):
    arch = VU64 if "_vu" in program else F64
    a = assemble_file(ROOT / program, arch=arch, defines=defines)
    trials = Trials(cfg)
    host = AdhdpHost(trials, a.binary, get_dtype("float64"))
    s = Platform(arch, a.binary, host)
    j, u = [], []
    exchange = host.exchange

    def spy(out):
        j.append(float(s.symbol_view("J")[0]))
        u.append(float(out[0]))
        return exchange(out)
    host.exchange = spy
    s.run()
    return a, s, trials.learning(), j[1:], u[1:]


def _reference(a, cfg, vu):
    ref = AdhdpReference.from_binary(a.binary, VU64 if vu else F64, vu)
    return ref, ref.run(Trials(cfg))


@pytest.mark.parametrize("program,vu,line12", [
    ("cartpole.s", False, 1), ("cartpole_vu.s", True, 1), ("cartpole_large_vu.s", True, 1),
    ("cartpole.s", False, 0), ("cartpole_vu.s", True, 0)])
def test_bit_exact_with_golden_model(program, vu, line12):
    """Weights, actions and J estimates of every step equal the golden model's bit for bit,
    with the critic loop of Fig. 2 line 12 and with Si & Wang's."""
    cfg = LearningConfig(trials=6, seed=3)
    a, s, learn, j, u = _tlm(program, cfg, {"LINE12": line12})
    ref, rlearn = _reference(a, cfg, vu)
    assert learn == rlearn
    assert np.array_equal(s.agent.synapse.data.view(np.int64), ref.S.view(np.int64))
    assert j == ref.j_trace and len(j) > 100
    assert u == ref.actions[:len(u)]


def test_whole_run_to_success_bit_exact():
    """A whole learning run (until a trial balances 1000 steps) stays bit-exact."""
    cfg = LearningConfig(trials=100)
    a, s, learn, j, u = _tlm("cartpole.s", cfg)
    ref, rlearn = _reference(a, cfg, False)
    assert learn["success"] and learn == rlearn
    assert np.array_equal(s.agent.synapse.data.view(np.int64), ref.S.view(np.int64))


def test_virtual_update_equals_regular_update():
    """Over a whole run in float64 the Fig. 7 program follows the Fig. 2 program to 1e-9."""
    cfg = LearningConfig(trials=100)
    base = assemble_file(ROOT / "cartpole.s", arch=F64)
    vu = assemble_file(ROOT / "cartpole_vu.s", arch=VU64)
    r0, l0 = _reference(base, cfg, False)
    r1, l1 = _reference(vu, cfg, True)
    assert l0 == l1 and l0["success"]
    for w in ("Wa1", "Wa2", "Wc1", "Wc2"):
        np.testing.assert_allclose(getattr(r1, w), getattr(r0, w), rtol=0, atol=1e-9)
    np.testing.assert_allclose(r1.actions, r0.actions, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r1.j_trace, r0.j_trace, rtol=0, atol=1e-9)


@pytest.mark.parametrize("program,vu", [("cartpole.s", False), ("cartpole_vu.s", True)])
def test_loop_iterations_are_the_simulators(program, vu):
    """The golden model's per-step loop iterations (what machines/adhdp/bench/causes.py --histogram
    reads) add up to the simulator's executions of each loop body's first instruction, and
    its steps with a started loop to the VU program's vu.init/vu.commit executions."""
    cfg = LearningConfig(trials=6, seed=3)
    a, s, *_ = _tlm(program, cfg)
    ref, _ = _reference(a, cfg, vu)
    runs = s.agent.controller.exec_count
    pc = {sym.name: sym.address for sym in a.binary.symbols if sym.space == "text"}
    its = np.array(ref.loop_iterations)
    assert its[:, 0].sum() == runs[pc["critic"]] > 0
    assert its[:, 1].sum() == runs[pc["actor"]] > 0
    if vu:
        assert (its[:, 0] > 0).sum() == runs[pc["cdone"]]      # critic_vu_commit
        assert (its[:, 1] > 0).sum() == runs[pc["adone"]]      # vu.commit
