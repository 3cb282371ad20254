"""Every instruction of the hdc family has a kernel of the compiled loop
(``machines/darl/tlm/kernels.py`` ``run``) that equals its model's semantics bit for bit:
the memories, the update cache (its entries in order, pushed and applied) and the saturation
count, on random and saturating operands, in q16.16 and other fixed-point formats; where the
semantics raise, the kernel refuses (-1) before it writes anything."""

import numpy as np
import pytest

from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import SimError
from rlaccel.tlm.model import Binding
from rlaccel.machines.darl.tlm import kernels as K
from rlaccel.machines.darl.tlm.models import MODELS, _cache

FORMATS = ("fixed32", "q20.12", "q12.12", "q6.10")
NU, NS = 512, 4096
ARCH = load_arch("darl")


class _Op:
    def __init__(self, mnemonic, operands):
        self.mnemonic, self.operands = mnemonic, operands


class _Platform:
    n_agents = 1
    interconnect = None


class _Agent:
    """What the family's models and kernels read of an agent."""

    index = 0
    platform = _Platform()

    def __init__(self, dt, rng):
        self.dt, self.arch, self.state = dt, ARCH, {}
        self.saturations = SaturationCounter()
        self.mems = {"unified": _words(dt, rng, NU), "synapse": _words(dt, rng, NS)}
        self.ops = []

    def memory(self, space):
        return self.mems[space]


def _words(dt, rng, n, edge=True):
    lo, hi = dt.min_raw, dt.max_raw
    scale = rng.choice([1 << max(dt.frac_bits - 3, 0), 1 << dt.frac_bits, hi], n)
    v = (rng.uniform(-1, 1, n) * scale).astype(np.int64)
    if edge:
        pick = rng.random(n)
        v[pick < 0.1] = hi
        v[(pick >= 0.1) & (pick < 0.2)] = lo
    return np.clip(v, lo, hi)


def _operands(mn, rng, n, d, onehot):
    hv = lambda k: int(rng.integers(0, NS - k))           # noqa: E731
    o = {}
    if mn in ("henc", "hld"):
        o.update(src=int(rng.integers(0, NU - n * d if mn == "hld" else NU - n)),
                 syn=hv(n * d), dst=hv(2 * d), n=n, d=d)
    elif mn in ("hreg", "hreg.t"):
        o.update(src=hv(2 * d), syn=hv(2 * n * d), dst=int(rng.integers(0, NU - n)), n=n, d=d)
        if mn == "hreg":
            o["mask"] = int(rng.integers(0, NU - n))
    elif mn.startswith("hsel"):
        o.update(src=int(rng.integers(0, NU - n)), dst=int(rng.integers(0, NU)), n=n)
        if mn == "hsel.mask":
            o["mask"] = int(rng.integers(0, NU - n))
    elif mn == "hupd":
        o.update({k: int(rng.integers(0, NU - 2)) for k in ("dst", "a", "b", "c", "k")})
    elif mn == "hpush":
        o.update(src=hv(2 * d), v=int(rng.integers(0, NU)), mask=int(rng.integers(0, NU - n)),
                 syn=hv(2 * n * d), aux=hv(2 * n * d), n=n, d=d)
    else:                                                   # hsync
        o.update(src=hv(2 * n * d), syn=hv(2 * n * d), aux=hv(2 * n * d), n=n, d=d)
    return o


def _setup(fmt, mn, seed, onehot=True):
    rng = np.random.default_rng(seed)
    dt = get_dtype(fmt).trusted()
    n, d = int(rng.integers(1, 6)), 16 * int(rng.integers(1, 5))
    agents = [_Agent(dt, np.random.default_rng(seed)) for _ in range(2)]
    o = _operands(mn, np.random.default_rng(seed + 1), n, d, onehot)
    if "mask" in o:                                         # the mask: one action, or not
        for ag in agents:
            U = ag.mems["unified"]
            U[o["mask"]:o["mask"] + n] = 0
            if onehot:
                U[o["mask"] + seed % n] = 1 << dt.frac_bits
            elif n > 1:
                U[o["mask"]:o["mask"] + 2] = 1
    bs = [Binding(mn, o, ag, dt, ag.saturations, ARCH.extra["timing"], ARCH.knobs, 5)
          for ag in agents]
    for ag in agents:
        ag.ops = [_Op(mn, o)]
    return bs, o, n, d


def _fill_cache(b, rng, k, room=0):
    """``k`` pending entries of random rows (FIFO order, a row twice included), leaving at
    least ``room`` free."""
    cache = _cache(b, b.ops["n"], b.ops["d"])
    for _ in range(min(k, cache.depth - room)):
        cache.push(int(rng.integers(0, cache.actions)), _words(b.dt, rng, cache.d),
                   _words(b.dt, rng, cache.d))


def _kernel_run(b):
    k = MODELS[b.mnemonic].kernel(b)
    A = np.array([k.args], dtype=np.int64)
    X = K.state(b.agent)
    U, S = b.agent.mems["unified"], b.agent.mems["synapse"]
    return K.run(k.code, A, 0, 0, U, S, np.zeros(1, np.int64), U[:0], np.zeros(8, np.int64),
                 0, X)


def _compare(ref, fast, sats):
    for space in ("unified", "synapse"):
        assert np.array_equal(ref.agent.mems[space], fast.agent.mems[space]), space
    c1, c2 = ref.agent.state["hdc"].get("cache"), fast.agent.state["hdc"].get("cache")
    if c1 is not None:
        assert [(a, u.tolist(), v.tolist()) for a, u, v in c1.entries()] == \
            [(a, u.tolist(), v.tolist()) for a, u, v in c2.entries()]
        assert (c1.pushed, c1.applied) == (c2.pushed, c2.applied)
    assert ref.agent.saturations.saturations == sats


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mn", sorted(K.CODES))
@pytest.mark.parametrize("seed", range(4))
def test_kernel_equals_the_semantics(fmt, mn, seed):
    (ref, fast), o, n, d = _setup(fmt, mn, 100 * seed + len(mn))
    for b in (ref, fast):
        MODELS[mn].kernel(b)                # the state a kernel needs, made alike
    if mn in ("hreg", "hpush", "hsync"):
        for b in (ref, fast):
            _fill_cache(b, np.random.default_rng(seed), seed % 4, int(mn == "hpush"))
    MODELS[mn].semantics(ref)()
    sats = _kernel_run(fast)
    assert sats >= 0
    _compare(ref, fast, sats)


@pytest.mark.parametrize("mn", ["hsel.mask", "hpush"])
def test_a_mask_of_two_actions_is_refused_as_the_semantics_refuse_it(mn):
    (ref, fast), o, n, d = _setup("fixed32", mn, 3, onehot=False)
    if n < 2:
        pytest.skip("one action")
    for b in (ref, fast):
        MODELS[mn].kernel(b)
    before = [m.copy() for m in fast.agent.mems.values()]
    assert _kernel_run(fast) == -1
    assert all(np.array_equal(x, y) for x, y in zip(before, fast.agent.mems.values()))
    with pytest.raises(SimError, match="marks 2 actions"):
        MODELS[mn].semantics(ref)()


def test_a_push_into_a_full_cache_is_refused():
    (ref, fast), o, n, d = _setup("fixed32", "hpush", 11)
    for b in (ref, fast):
        MODELS["hpush"].kernel(b)
        _fill_cache(b, np.random.default_rng(0), 99)        # full
    before = fast.agent.mems["synapse"].copy()
    assert _kernel_run(fast) == -1
    assert np.array_equal(before, fast.agent.mems["synapse"])
    with pytest.raises(SimError, match="FIFO is full"):
        MODELS["hpush"].semantics(ref)()


def test_saturations_are_counted():
    """The random operands reach the format's ends: over the cases some kernels count."""
    total = 0
    for seed in range(4):
        for mn in ("henc", "hreg", "hupd", "hpush", "hsync"):
            (ref, fast), *_ = _setup("fixed32", mn, seed)
            MODELS[mn].kernel(fast)
            total += _kernel_run(fast)
    assert total > 0
