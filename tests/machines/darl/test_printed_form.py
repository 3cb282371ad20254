"""The printed form (``learning.form = "printed"``: hdql_printed.s, eq. 9 and 14 as the DARL
paper prints them) on the simulated machine: it learns what its unit models learn bit for
bit, their compiled kernels learn the same, its iteration costs the cosine's depth and no
encoding of s', and the QHD form stays the default."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.darl.config import task_config
from rlaccel.machines.darl.functional import CompiledHdql, FunctionalHdql, compiled_available
from rlaccel.machines.darl.task import env_shape
from rlaccel.machines.darl.training import Training, streams
from rlaccel.machines.darl.tlm import kernels as K
from rlaccel.machines.darl.tlm.printed import cosine_cycles
from rlaccel.machines.darl.tlm.timing import LatencyConstants
from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.runner import _Setup

CP = "machines/darl/programs/cartpole.toml"


def _learner(cls, cfg):
    n, a = env_shape(cfg.env)
    return cls(cfg, n, a, streams(cfg.seed, cfg.agents)["init"])


def test_the_default_form_is_qhd():
    assert task_config("cartpole").form == "qhd"


def test_the_printed_form_keeps_the_norm_and_sign_knobs_at_their_defaults():
    with pytest.raises(ManifestError, match="form = 'printed' computes eq. 9 as printed"):
        task_config("cartpole", form="printed", imag_sign=-1)


@pytest.mark.parametrize("agents", [1, 2])
def test_the_compiled_kernels_learn_what_the_unit_models_learn(agents):
    cfg = task_config("cartpole", agents=agents, seed=3, number="fixed32", form="printed",
                      d=256)
    assert compiled_available(cfg)
    a = Training(cfg, learner=_learner(FunctionalHdql, cfg))
    b = Training(cfg, learner=_learner(CompiledHdql, cfg))
    a.run(3)
    b.run(3)
    assert a.curve.agent_returns == b.curve.agent_returns
    for x, y in ((a.learner.tr, b.learner.tr), (a.learner.ti, b.learner.ti),
                 (a.learner.qr[0], b.learner.qr[0])):
        assert np.array_equal(x, y)
    assert a.learner.counter.saturations == b.learner.counter.saturations
    assert np.abs(a.learner.tr).max() > 0


def test_the_simulator_learns_what_the_unit_models_learn_bit_for_bit():
    s = _Setup(CP, ["stages=2", "stop_at_target=false", "learning.form='printed'",
                    "learning.d=256"], arch=None, seed=None, trace=None, progress=None,
               datapath=None, kernels="compiled", options={})
    assert s.r.program.name == "hdql_printed.s"
    res = s.platform.run()
    host = s.r.state
    ref = Training(host.cfg, learner=_learner(FunctionalHdql, host.cfg))
    ref.run(2)
    assert host.curve.agent_returns == ref.curve.agent_returns
    L = ref.learner
    assert np.array_equal(s.platform.symbol_view("QD", 0),
                          np.concatenate([L.tr.ravel(), L.ti.ravel()]))
    r = s.report(res)
    # one encoding, the cosine's depth on the regression, eq. 14's subtract-multiply-add
    c = LatencyConstants()
    qhd = _Setup(CP, ["stages=1", "stop_at_target=false", "learning.d=256"], arch=None,
                 seed=None, trace=None, progress=None, datapath=None, kernels="compiled",
                 options={})
    rq = qhd.report(qhd.platform.run())
    assert r["latency_cycles"] == rq["latency_cycles"] + cosine_cycles(16, c) - c.mul
    assert r["latency_inference_cycles"] == (rq["latency_inference_cycles"]
                                             + cosine_cycles(16, c))


def test_on_one_encoder_the_second_encoding_streams_after_the_first():
    """darl-enc1 (``[hdc] encoders = 1``): QHD's s' follows s through the one encoder, K
    chunks a cycle each, so its iteration is K - 1 cycles longer (the s' regression was
    issued a cycle after the s one); an inference, one encoding, is unchanged."""
    def latency(arch):
        s = _Setup(CP, ["stages=1", "stop_at_target=false", "learning.d=256"], arch=arch,
                   seed=None, trace=None, progress=None, datapath=None, kernels="compiled",
                   options={})
        r = s.report(s.platform.run())
        return r["latency_cycles"], r["latency_inference_cycles"]
    two, one = latency(None), latency("darl-enc1")
    assert one == (two[0] + 256 // 16 - 1, two[1])
