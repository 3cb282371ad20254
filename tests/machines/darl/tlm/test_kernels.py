"""The compiled HDQL kernels (machines/darl/tlm/kernels.py) give the unit models' bits: the
encoder's (Re, Im) of quantized states, the regression's values and select's argmax, a
training batch's model, update cache, shard and update values, the running all-reduce of
several agents, and the same saturation count -- also where values saturate."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.machines.darl.config import HdqlConfig
from rlaccel.machines.darl.functional import CompiledHdql, FunctionalHdql
from rlaccel.machines.darl.replay import Batch
from rlaccel.machines.darl.tlm import kernels as K
from rlaccel.machines.darl.tlm import regress, select


Q = get_dtype("fixed32")


def _cfg(**kw):
    return HdqlConfig(**{"d": 256, "chunk": 16, "number": "fixed32", **kw})


def _pair(cfg, n_obs=4, a=2, seed=7):
    ref = FunctionalHdql(cfg, n_obs, a, np.random.default_rng(seed))
    fast = CompiledHdql(cfg, n_obs, a, np.random.default_rng(seed))
    return ref, fast


def _batches(n, m, seed, n_obs=4, a=2, scale=1.0, rewards=(1.0, -5.0)):
    rng = np.random.default_rng(seed)
    return [Batch(np.arange(m), scale * rng.uniform(-1, 1, (m, n_obs)), rng.integers(0, a, m),
                  rng.choice(rewards, m), scale * rng.uniform(-1, 1, (m, n_obs)))
            for _ in range(n)]


def _same(ref, fast):
    assert np.array_equal(ref.tr, fast.tr) and np.array_equal(ref.ti, fast.ti)
    for k in range(ref.cfg.agents):
        for x, y in ((ref.qr, fast.qr), (ref.qi, fast.qi), (ref.sr, fast.sr), (ref.si, fast.si)):
            assert np.array_equal(x[k], y[k])
    assert ref.counter.saturations == fast.counter.saturations


def test_encode_equals_the_encoder_with_saturating_states_and_nan():
    ref, fast = _pair(_cfg(), n_obs=4)
    states = np.random.default_rng(1).uniform(-3, 3, (6, 4))
    states[1, 2] = 40000.0                      # beyond q16.16: saturates
    states[2, 0] = -1e9
    states[3, 1] = np.nan                       # quantizes to 0, counted
    states[4, 3] = 0.5 + 2.0 ** -17             # a rounding tie region
    re, im = ref.encode(states)
    re2, im2 = fast.encode(states)
    assert np.array_equal(re, re2) and np.array_equal(im, im2)
    assert ref.counter.saturations == fast.counter.saturations >= 3


@pytest.mark.parametrize("sign", [1, -1])
def test_act_equals_regression_and_select(sign):
    ref, fast = _pair(_cfg(imag_sign=sign), n_obs=4, a=3)
    rng = np.random.default_rng(2)
    for m in (ref.tr, ref.ti):
        m[...] = Q.quantize(rng.normal(0, 3, m.shape))
    fast.tr[...], fast.ti[...] = ref.tr, ref.ti
    fast.tr[1, :] = fast.tr[0, :]               # a tie: the lowest index wins
    fast.ti[1, :] = fast.ti[0, :]
    ref.tr[...], ref.ti[...] = fast.tr, fast.ti
    for _ in range(20):
        s = rng.uniform(-2, 2, 4)
        re, im = ref.encode(s[None, :])
        v = regress(re[0], im[0], ref.tr, ref.ti, chunk=16, fmt=Q, imag_sign=sign)
        assert fast.act(0, s) == ref.act(0, s) == select(v, np.zeros(3, bool))[0]
    assert ref.counter.saturations == fast.counter.saturations


def test_regression_value_rounds_half_up_and_saturates_like_regress():
    rng = np.random.default_rng(3)
    d = 64
    re, im = (Q.quantize(rng.uniform(-1, 1, d)) for _ in range(2))
    qr = Q.quantize(rng.normal(0, 1, (3, d)))
    qr[2] = Q.max_raw                            # a value beyond the format: saturates
    qi = -qr
    cnt = SaturationCounter()
    v = regress(re, im, qr, qi, chunk=16, fmt=Q, counter=cnt)
    got = [K._value(re, im, qr, qi, a, 1, Q.frac_bits, Q.min_raw, Q.max_raw) for a in range(3)]
    assert [int(x) for x, _ in got] == v.tolist()
    assert sum(c for _, c in got) == cnt.saturations


@pytest.mark.parametrize("sign", [1, -1])
def test_training_batches_equal_the_unit_models(sign):
    ref, fast = _pair(_cfg(imag_sign=sign, beta=0.5))
    for stage in range(3):
        for b in _batches(4, 8, 40 + stage):
            assert np.array_equal(ref.train(0, b), fast.train(0, b))
            pend = {a for a, _, _ in ref.caches[0].entries()}
            assert pend == set(np.flatnonzero(fast.pending[0]))
            for a, ur, ui in ref.caches[0].entries():
                assert np.array_equal(fast.pr[0][a], ur) and np.array_equal(fast.pi[0][a], ui)
        _same(ref, fast)
        ref.end_stage()
        fast.end_stage()
        _same(ref, fast)
        assert not fast.pending.any()
    assert np.abs(fast.tr).max() > 0


def test_training_that_saturates_counts_as_the_unit_models_do():
    """Huge rewards and states: the update value, the update hypervectors, the model and the
    shard saturate; the kernels clip and count every one as the units do."""
    ref, fast = _pair(_cfg(beta=1.0, gamma=1.0))
    for b in _batches(6, 8, 5, scale=300.0, rewards=(30000.0, -40000.0)):
        assert np.array_equal(ref.train(0, b), fast.train(0, b))
    ref.end_stage()
    fast.end_stage()
    _same(ref, fast)
    assert fast.counter.saturations > 0


@pytest.mark.parametrize("agents,sync,every", [(2, "average", "step"), (4, "average", "step"),
                                               (8, "average", "step"), (4, "sum", "step"),
                                               (2, "average", "episode")])
def test_several_agents_and_their_all_reduce_equal_the_unit_models(agents, sync, every):
    ref, fast = _pair(_cfg(agents=agents, sync=sync, sync_every=every))
    for r in range(3):
        for k in range(agents):
            # uneven rounds: some agents train a short batch or none (episode over)
            m = 8 if (k + r) % 3 else 3
            if k == agents - 1 and r == 1:
                continue
            for b in _batches(1, m, 100 * r + k):
                assert np.array_equal(ref.train(k, b), fast.train(k, b))
        ref.end_stage()
        fast.end_stage()
        _same(ref, fast)
    assert np.abs(fast.tr).max() > 0


def test_the_running_average_saturates_and_counts_like_the_butterfly():
    ref, fast = _pair(_cfg(agents=4, beta=1.0, gamma=1.0))
    for k in range(4):
        for b in _batches(1, 8, k, scale=300.0, rewards=(30000.0, -40000.0)):
            ref.train(k, b)
            fast.train(k, b)
    ref.end_stage()
    fast.end_stage()
    _same(ref, fast)
    assert fast.counter.saturations > 0


def test_compiled_learner_refuses_what_it_does_not_compute():
    from rlaccel.programs.manifest import ManifestError
    with pytest.raises(ManifestError, match="fixed32 with norm"):
        CompiledHdql(_cfg(number="float64"), 4, 2, np.random.default_rng(0))


@pytest.mark.parametrize("agents,scale", [(2, 1 << 20), (4, 1 << 29), (8, 1 << 28),
                                          (8, 1 << 31)])
def test_the_running_average_equals_the_butterfly_every_iteration(agents, scale):
    """Updates from small to the format's limit (partial sums that saturate), uneven
    iteration counts: the kernel's element-by-element average equals the unit models'
    butterfly of whole shards, value and saturation count."""
    cfg = _cfg(d=64, agents=agents, number="fixed32", batch=6)
    ref, fast = _pair(cfg, n_obs=4, a=3)
    rng = np.random.default_rng(agents + scale % 97)
    for k in range(agents):
        m = int(rng.integers(0, 7))
        acts = rng.integers(0, 3, m)
        ur = rng.integers(-scale, scale, (m, 64)).clip(Q.min_raw, Q.max_raw)
        ui = rng.integers(-scale, scale, (m, 64)).clip(Q.min_raw, Q.max_raw)
        ref.deltas[k] = [(int(a), r, i) for a, r, i in zip(acts, ur, ui)]
        fast._keep(k, acts, ur, ui)
    assert any(ref.deltas), "the draw must hold an update for the comparison to mean anything"
    (r1, i1), (r2, i2) = ref._running_average(), fast._running_average()
    assert np.array_equal(r1, r2) and np.array_equal(i1, i2)
    assert ref.counter.saturations == fast.counter.saturations
    if scale >= 1 << 29:
        assert fast.counter.saturations > 0
