"""A single run whose running trials are answered by the compiled plant
(:mod:`rlaccel.machines.adhdp.plant`) equals the run answered by the Python host throughout
(the environment's ``step`` and the format's ``quantize``): the whole report but wall-clock
figures, on a fixed-point and a float64 chip, with trials that fail and trials that balance
to ``max_steps``; a checkpoint taken while the plant runs in the compiled arrays resumes bit
for bit; plants without a twin and other float formats keep the Python host."""

import copy

import pytest

import rlaccel.machines.adhdp.plant as plant_module
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.machine import machine
from rlaccel.machines.adhdp.host import LearningConfig, Trials
from rlaccel.machines.adhdp.plant import CompiledPlant, compiled_plant
from rlaccel.programs.checkpoint import run_checkpointed
from rlaccel.programs.runner import _Setup, run
from rlaccel.tlm.fast.jit import HAVE_NUMBA

PROGRAMS = machine("adhdp").programs


def _clean(report: dict) -> dict:
    r = copy.deepcopy(report)
    r.pop("timing")                                    # wall-clock and host-measured figures
    r["sim"].pop("checkpoint", None)
    return r


def _python_host(monkeypatch):
    monkeypatch.setattr(plant_module, "compiled_plant", lambda trials, host, dt: None)


@pytest.mark.skipif(not HAVE_NUMBA, reason="NUMBA_DISABLE_JIT=1: the Python host answers "
                                           "every exchange (compiled_plant returns None)")
@pytest.mark.parametrize("manifest,arch,over,seed,trials", [
    ("cartpole.toml", "adhdp", ["stop_on_success=false", "max_steps=300"], 1, 6),
    ("cartpole.toml", "adhdp-vu-f64", ["virtual_update=true", "max_steps=120"], 1, 4),
])
def test_the_compiled_plant_answers_as_the_python_host(monkeypatch, manifest, arch, over,
                                                        seed, trials):
    path = PROGRAMS / manifest
    used = []
    real = CompiledPlant.answer

    def counted(self, raw_u):
        used.append(1)
        return real(self, raw_u)

    monkeypatch.setattr(CompiledPlant, "answer", counted)
    fast = run(path, over, arch=arch, seed=seed, trials=trials)
    assert len(used) > 100                             # it answered the running trials
    with monkeypatch.context() as m:
        _python_host(m)
        slow = run(path, over, arch=arch, seed=seed, trials=trials)
    assert _clean(fast) == _clean(slow)
    steps, failed = fast["learning"]["steps_per_trial"], fast["learning"]["failed"]
    assert 0 < len(steps) <= trials and any(failed) and not all(failed)  # fell, balanced


class _Killed(Exception):
    pass


@pytest.mark.skipif(not HAVE_NUMBA, reason="NUMBA_DISABLE_JIT=1: no compiled plant")
def test_a_run_killed_in_a_running_trial_resumes_bit_for_bit(monkeypatch, tmp_path):
    over, options, every = ["stop_on_success=false"], {"trials": 3}, 400

    def setup():
        return _Setup(PROGRAMS / "cartpole.toml", over, arch=None, seed=3, trace=None,
                      progress=None, datapath=None, kernels="compiled", options=options)

    whole = setup()
    ref = whole.report(whole.platform.run())
    assert sum(ref["learning"]["steps_per_trial"]) > 3 * every    # long trials: saves in them
    ck = tmp_path / "run.ckpt"
    real, calls = CompiledPlant.answer, []

    def dies(self, raw_u):                  # killed between two saves, in a running trial
        calls.append(1)
        if len(calls) == 2 * every + every // 2:
            raise _Killed
        return real(self, raw_u)

    with monkeypatch.context() as m:
        m.setattr(CompiledPlant, "answer", dies)
        with pytest.raises(_Killed):
            run_checkpointed(setup(), ck, every, {"run": "test"})
    resumed = setup()
    res = run_checkpointed(resumed, ck, every, {"run": "test"})
    assert resumed.checkpoint["resumed_at"] == 2 * every
    assert _clean(resumed.report(res)) == _clean(ref)


def test_only_the_cartpole_on_fixed_point_or_float64_gets_the_twin():
    cart = Trials(LearningConfig(trials=1))
    beam = Trials(LearningConfig(env_id="rlaccel/BallBeam-v0", trials=1))

    class Host:
        nin, offsets = 0, {}

    fp32 = get_dtype("fp32")
    assert compiled_plant(cart, Host, fp32) is None          # its reply rounds to float32
    assert compiled_plant(beam, Host, get_dtype("q6.18")) is None
    assert compiled_plant(object(), Host, get_dtype("q6.18")) is None   # no environment
