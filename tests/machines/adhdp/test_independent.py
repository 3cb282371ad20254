"""The simulator on the float64 chips equals an ADHDP written from the seed's equations
(``machines/adhdp/independent.py``, not from the assembly) to rounding, over whole trials of
cart-pole: the same trials, and actions and J estimates within 1e-9 at every step."""

from pathlib import Path

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble_file
from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.adhdp.host import AdhdpHost, LearningConfig, Trials
from rlaccel.machines.adhdp.independent import IndependentAdhdp, Settings
from rlaccel.tlm.platform import Platform
from rlaccel.isa.machine import machine

ROOT = machine("adhdp").programs


def _simulate(program, arch, cfg, line12):
    a = assemble_file(ROOT / program, arch=arch, defines={"LINE12": line12})
    trials = Trials(cfg)
    host = AdhdpHost(trials, a.binary, get_dtype("float64"))
    s = Platform(arch, a.binary, host)
    u, j = [], []
    exchange = host.exchange

    def spy(out):
        u.append(float(out[0]))
        j.append(float(s.symbol_view("J")[0]))
        return exchange(out)
    host.exchange = spy
    s.run()
    return a.binary, trials.learning(), u[1:], j[1:]


def _weights(binary):
    S = np.frombuffer(binary.synapse, dtype="<f8")
    sym = {x.name: x for x in binary.symbols}
    nx, nha, nhc = sym["X"].length, sym["HA"].length, sym["HC"].length

    def w(name, rows, cols):
        a = sym[name].address
        return S[a:a + rows * cols].reshape(rows, cols).copy()
    return (w("WA1", nha, nx), w("WA2", 1, nha)[0], w("WC1", nhc, nx + 1),
            w("WC2", 1, nhc)[0])


@pytest.mark.parametrize("program,arch,form", [
    ("cartpole.s", "adhdp-f64", "fig2"), ("cartpole_vu.s", "adhdp-vu-f64", "fig2"),
    ("cartpole.s", "adhdp-f64", "si-wang"), ("cartpole_large_vu.s", "adhdp-vu-f64", "fig2")])
def test_simulator_matches_the_equations(program, arch, form):
    cfg = LearningConfig(trials=8, seed=2, stop_on_success=False, max_steps=400)
    binary, learn, u, j = _simulate(program, load_arch(arch), cfg, int(form == "fig2"))
    model = IndependentAdhdp(*_weights(binary), Settings(form=form,
                                                          virtual_update="_vu" in program))
    ilearn = model.run(Trials(cfg))
    assert ilearn == learn and sum(learn["steps_per_trial"]) > 300
    # the simulator's exchanges: the action of every step (a trial's first step included)
    assert len(u) == len(model.actions)
    np.testing.assert_allclose(u, model.actions, rtol=0, atol=1e-9)
    np.testing.assert_allclose(j, model.j_trace, rtol=0, atol=1e-9)
