"""The exploration-noise PRNG: xorshift32 lanes and a 12-term CLT Gaussian in q16.16,
reproducible per seed and stream."""

import numpy as np
import pytest

from rlaccel.util.errors import DTypeError
from rlaccel.machines.fixar.tlm.prng import (GAUSS_FRAC, REGISTERS, NoiseGenerator,
                                             splitmix64, xorshift32)


def test_published_values():
    """Marsaglia (2003): xorshift32 from 2463534242 gives 723471715; splitmix64's first
    output from state 0 is 0xE220A8397B1DCDAF."""
    assert xorshift32(2463534242) == 723471715
    assert splitmix64(0) == 0xE220A8397B1DCDAF


def _scalar_gaussians(regs, cycles):
    """The lanes' outputs computed one register at a time in Python ints."""
    regs = [[int(r) for r in lane] for lane in regs]
    out = []
    for _ in range(cycles):
        for lane in regs:
            for k in range(REGISTERS):
                lane[k] = xorshift32(lane[k])
            out.append(sum((r >> 16) + (r & 0xFFFF) for r in lane) - 6 * 65535)
    return out


def test_vectorised_lanes_equal_the_scalar_definition():
    g = NoiseGenerator(seed=7, stream=3, lanes=5)
    want = _scalar_gaussians(g.state(), cycles=3)
    got = np.concatenate([g.gaussian_raw(5), g.gaussian_raw(10)])
    assert got.tolist() == want and g.cycles == 3


def test_outputs_fill_lanes_then_cycles():
    """A request of n takes ceil(n / lanes) cycles; output j is lane j % lanes."""
    a, b = NoiseGenerator(1, lanes=4), NoiseGenerator(1, lanes=4)
    assert a.gaussian_raw(6).tolist() == b.gaussian_raw(8)[:6].tolist() and a.cycles == 2
    assert a.gaussian_raw(0).size == 0 and a.cycles == 2
    with pytest.raises(DTypeError, match="cannot draw -1 samples"):
        a.gaussian_raw(-1)


def test_reproducible_per_seed_and_stream():
    draw = lambda s, st: NoiseGenerator(s, st).gaussian_raw(64)  # noqa: E731
    assert (draw(1, 0) == draw(1, 0)).all()
    assert (draw(1, 0) != draw(2, 0)).mean() > 0.9
    assert (draw(1, 0) != draw(1, 1)).mean() > 0.9


def test_state_restore_replays():
    g = NoiseGenerator(9)
    g.gaussian_raw(40)
    saved = g.state()
    first = g.gaussian_raw(32)
    g.restore(saved)
    assert (g.gaussian_raw(32) == first).all()
    with pytest.raises(DTypeError, match="nonzero words"):
        g.restore(np.zeros_like(saved))


def test_standard_normal_moments_and_range():
    """Mean 0, variance (2**32 - 1) / 2**32, range +-6: 200,000 samples."""
    x = NoiseGenerator(3).gaussian(200_000)
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1.0) < 0.01
    assert np.abs(x).max() <= 6.0
    assert abs((np.abs(x) < 1).mean() - 0.6827) < 0.01        # one sigma
    raw = NoiseGenerator(3).gaussian_raw(10)
    assert (raw * 2.0 ** -GAUSS_FRAC == NoiseGenerator(3).gaussian(10)).all()
