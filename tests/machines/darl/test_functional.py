"""HDQL on the unit models: in float64 it is the reference up to summation order; in fixed32
it follows the reference within the format's precision; its delayed cache holds exactly the
updates the reference has already applied; its stage end synchronises bit for bit."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.darl.config import HdqlConfig
from rlaccel.machines.darl.functional import FunctionalHdql
from rlaccel.machines.darl.reference import HdqlReference
from rlaccel.machines.darl.replay import Batch

Q = get_dtype("fixed32")


def _cfg(**kw):
    return HdqlConfig(**{"d": 256, "chunk": 16, **kw})


def _batches(n, m, agents_rng, n_obs=4, a=2):
    rng = np.random.default_rng(agents_rng)
    return [Batch(np.arange(m), rng.uniform(-1, 1, (m, n_obs)), rng.integers(0, a, m),
                  rng.choice([1.0, -5.0], m), rng.uniform(-1, 1, (m, n_obs))) for _ in range(n)]


def _pair(fmt, **kw):
    cfg = _cfg(**kw)
    ref = HdqlReference(cfg, 4, 2, np.random.default_rng(7))
    fun = FunctionalHdql(cfg, 4, 2, np.random.default_rng(7), fmt=fmt)
    assert np.array_equal(ref.P, fun.P)
    return ref, fun


def _as_float(fun, x):
    return Q.to_float(x) if fun.fixed else x


def test_float64_units_equal_the_reference_up_to_rounding():
    ref, fun = _pair("float64")
    for stage in range(3):
        for b in _batches(4, 8, stage):
            vr, vf = ref.train(0, b), fun.train(0, b)
            assert np.allclose(vr, vf, rtol=0, atol=1e-12)
        ref.end_stage()
        fun.end_stage()
    assert np.allclose(ref.tr, fun.tr, atol=1e-12) and np.allclose(ref.ti, fun.ti, atol=1e-12)
    s = np.array([0.1, 0.2, -0.3, 0.0])
    assert ref.act(0, s) == fun.act(0, s)


def test_the_cache_holds_what_the_reference_has_already_applied():
    ref, fun = _pair("float64")
    for b in _batches(3, 8, 11):
        ref.train(0, b)
        fun.train(0, b)
    qr, qi = fun.qr[0].copy(), fun.qi[0].copy()
    assert len(fun.caches[0]) >= 1                   # the last sample's update is pending
    fun.caches[0].drain(qr, qi)
    assert np.allclose(qr, ref.qr[0], atol=1e-12) and np.allclose(qi, ref.qi[0], atol=1e-12)


def test_fixed32_follows_the_float_reference():
    """Over three stages of training the q16.16 model stays within 1e-3 of float64 (the
    codebook's half LSB, P in turns, every product rounded)."""
    ref, fun = _pair("fixed32")
    for stage in range(3):
        for b in _batches(5, 8, 20 + stage):
            vr, vf = ref.train(0, b), fun.train(0, b)
            assert np.allclose(vr, vf, atol=2e-4)
        ref.end_stage()
        fun.end_stage()
    assert np.abs(Q.to_float(fun.tr) - ref.tr).max() < 1e-3
    assert np.abs(ref.tr).max() > 0.05
    assert fun.counter.saturations == 0


def test_fixed32_stage_end_adds_the_butterfly_average_and_copies_it_to_every_agent():
    cfg = _cfg(agents=4, number="fixed32", sync_every="episode")
    fun = FunctionalHdql(cfg, 4, 2, np.random.default_rng(3))
    assert fun.fixed and fun.tr.dtype == np.int64
    for k in range(4):
        for b in _batches(2, 8, 30 + k):
            fun.train(k, b)
    shards = [s.copy() for s in fun.sr]
    tr0 = fun.tr.copy()
    fun.end_stage()
    total = sum(s.astype(object) for s in shards)
    expect = np.vectorize(lambda t: (int(t) + 2) >> 2)(total).astype(np.int64) + tr0
    assert np.array_equal(fun.tr, expect)
    assert all(np.array_equal(q, fun.tr) for q in fun.qr)
    assert all(len(c) == 0 for c in fun.caches) and not any(s.any() for s in fun.sr)


def test_fixed32_average_in_every_iteration_is_rounded_every_iteration():
    """Several agents averaging every round: iteration j of every agent ends with the
    butterfly average of the shards, so the sum is divided (a shift, one rounding) once per
    iteration: within half an LSB per iteration of the exact average, and not always equal to
    the single rounding of the once-per-stage average."""
    cfg = _cfg(agents=4, number="fixed32")
    assert cfg.allreduce_each_iteration
    fun = FunctionalHdql(cfg, 4, 2, np.random.default_rng(3))
    for k in range(4):
        for b in _batches(2, 8, 30 + k):
            fun.train(k, b)
    shards = [s.copy() for s in fun.sr]
    tr0 = fun.tr.copy()
    fun.end_stage()
    total = sum(s.astype(object) for s in shards)
    once = np.vectorize(lambda t: (int(t) + 2) >> 2)(total).astype(np.int64) + tr0
    exact = np.vectorize(lambda t: t / 4)(total).astype(np.float64) + tr0
    assert np.abs(fun.tr - exact).max() <= 16 * 0.5                # 16 iterations (2 x 8)
    assert not np.array_equal(fun.tr, once)
    assert all(np.array_equal(q, fun.tr) for q in fun.qr)
    assert not any(s.any() for s in fun.sr) and not any(fun.deltas)


def test_fixed32_is_deterministic():
    def run():
        fun = FunctionalHdql(_cfg(), 4, 2, np.random.default_rng(1))
        for b in _batches(3, 8, 4):
            fun.train(0, b)
        fun.end_stage()
        return fun.tr, fun.act(0, np.array([0.3, -0.1, 0.2, 0.0]))
    (a, x), (b, y) = run(), run()
    assert np.array_equal(a, b) and x == y


def test_only_machine_formats():
    from rlaccel.programs.manifest import ManifestError
    with pytest.raises(ManifestError, match="fixed32 or float64, not fp16"):
        FunctionalHdql(_cfg(), 4, 2, np.random.default_rng(0), fmt="fp16")
