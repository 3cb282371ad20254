"""The vector instructions' compiled loops equal the numpy semantics they replace, bit for bit
and saturation for saturation: random operands over each format's whole range (its extremes
included, so that negation, products and sums saturate), every activation, uniform and
non-uniform PWL tables, rows strided as the memories' views are. Without numba the same
kernels run as plain Python (the wrappers are forced on)."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.isa.dtypes.fixed import FixedType
from rlaccel.machines.fixar.tlm import activation, vector
from rlaccel.machines.fixar.tlm.kernels import saturate
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator

ACTS = ("none", "relu", "tanh", "sigmoid", "bsig")
#: the machine's q16.16 (as the simulator holds it, and checked), and narrow formats whose
#: products and sums saturate often
FORMATS = [get_dtype("fixed32").trusted(), get_dtype("fixed32"), FixedType(6, 10),
           FixedType(3, 5)]
#: uniform tables (shift) and a non-uniform one (searched)
SEGMENTS = (32, 48)


@pytest.fixture(autouse=True)
def _compiled(monkeypatch):
    monkeypatch.setattr(vector, "HAVE_NUMBA", True)


def words(rng, fmt, shape):
    """Random words of ``fmt``: a third over the whole range, a third small (inside the PWL
    tables), a third at the extremes and zero."""
    lo, hi = int(fmt.min_raw), int(fmt.max_raw)
    wide = rng.integers(lo, hi, size=shape, endpoint=True)
    small = rng.integers(-(5 << fmt.frac_bits), (5 << fmt.frac_bits) + 1, size=shape)
    edge = rng.choice(np.array([lo, lo + 1, -1, 0, 1, hi - 1, hi]), size=shape)
    pick = rng.integers(0, 3, size=shape)
    return np.clip(np.choose(pick, [wide, small, edge]), lo, hi).astype(np.int64)


def strided(rng, fmt, rows, cols, stride):
    """A (rows, cols) view with rows ``stride`` words apart, as ``batch_rows`` gives."""
    mem = words(rng, fmt, rows * stride)
    return np.lib.stride_tricks.as_strided(mem, (rows, cols), (8 * stride, 8))


def counted(fmt, run):
    """``(result, counter's saturations, the format's)`` of ``run(counter)``."""
    c, before = SaturationCounter(), fmt.saturations
    out = run(c)
    return out, c.saturations, fmt.saturations - before


def same(fmt, numpy_path, kernel, D):
    """Run ``numpy_path(counter)`` and ``kernel(counter)`` (which writes ``D``): the kernel
    ran, ``D`` equals the numpy result and both counted the same saturations on the counter
    and on the format. Returns the numpy path's counter saturations."""
    want, wc, wf = counted(fmt, numpy_path)
    ran, gc, gf = counted(fmt, kernel)
    assert ran
    np.testing.assert_array_equal(D, want)
    assert (gc, gf) == (wc, wf)
    return wc


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f"{f.format}")
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("segments", SEGMENTS)
def test_activate_into(rng, fmt, act, segments):
    """vact: D = act(Z), the PWL table's saturations counted as the numpy path counts them."""
    for rows, cols in ((64, 6), (1, 6), (7, 33)):
        Z = strided(rng, fmt, rows, cols, cols + 3)
        D = np.full((rows, cols), 12345, np.int64)
        same(fmt, lambda c: fmt.activate(act, np.array(Z), segments=segments, counter=c),
             lambda c: vector.activate_into(fmt, act, Z, D, segments=segments, counter=c), D)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f"{f.format}")
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("neg", (False, True))
def test_derivative_mul_into(rng, fmt, act, neg):
    """vdact: D = mul(±S, cast(f'(Z))), with the negation's clips on the counter only."""
    lo, hi = int(fmt.min_raw), int(fmt.max_raw)
    saturated = 0
    for segments in SEGMENTS:
        for rows, cols in ((64, 6), (5, 17)):
            S = strided(rng, fmt, rows, cols, cols + 2)
            Z = words(rng, fmt, rows * cols).reshape(rows, cols)

            def numpy_path(c):
                d = saturate(-np.array(S), lo, hi, c) if neg else np.array(S)
                deriv = activation.derivative(fmt, act, Z, segments=segments)
                return fmt.mul(d, fmt.cast(deriv, fmt, counter=c), counter=c)
            D = np.full((rows, cols), -7, np.int64)
            saturated += same(fmt, numpy_path, lambda c: vector.derivative_mul_into(
                fmt, act, S, Z, D, neg, segments=segments, counter=c), D)
    if neg:     # -min_raw clips (|f'| <= 1: the product itself cannot leave the format)
        assert saturated > 0


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f"{f.format}")
def test_td_into(rng, fmt):
    """td: D = sub(Q, add(r, done > 0 ? 0 : mul(gamma, q2))), every step saturated."""
    saturated = 0
    for B in (64, 1, 9):
        for gamma in (int(fmt.quantize(0.99)), int(fmt.max_raw), int(fmt.min_raw), 0):
            Q = words(rng, fmt, B)
            Z = words(rng, fmt, 3 * B)
            Z[B + 1::2] = rng.choice(np.array([0, 1, -1, 5]), size=B)    # done flags

            def numpy_path(c):
                q2, rd = Z[:B], Z[B:].reshape(B, 2)
                disc = np.where(rd[:, 1] > 0, np.int64(0),
                                fmt.mul(np.int64(gamma), q2, counter=c))
                return fmt.sub(Q, fmt.add(rd[:, 0], disc, counter=c), counter=c)
            D = np.zeros(B, np.int64)
            saturated += same(fmt, numpy_path,
                              lambda c: vector.td_into(fmt, gamma, Q, Z, D, counter=c), D)
    assert saturated > 0


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f"{f.format}")
def test_noise_into(rng, fmt):
    """noise's tail: D = add(S, mul(sigma, g)) on the PRNG's Gaussians."""
    gen = NoiseGenerator(7, 1)
    saturated = 0
    for n in (6, 1, 40):
        for sigma in (int(fmt.quantize(0.1)), int(fmt.max_raw), int(fmt.min_raw), 1):
            S = words(rng, fmt, n)
            g = np.clip(gen.gaussian_raw(n), fmt.min_raw, fmt.max_raw)   # q16.16 words
            D = np.zeros(n, np.int64)
            saturated += same(
                fmt, lambda c: fmt.add(S, fmt.mul(np.int64(sigma), g, counter=c), counter=c),
                lambda c: vector.noise_into(fmt, S, sigma, g, D, counter=c), D)
    assert saturated > 0


def test_declines_when_the_plain_path_must_run(rng, monkeypatch):
    """Nothing is written when the destination shares memory with a source, when an
    immediate lies outside the format (the numpy path raises its error), or without numba."""
    fmt = get_dtype("fixed32")
    mem = words(rng, fmt, 40)
    before = mem.copy()
    Z, D = mem[:30].reshape(5, 6), mem[6:36].reshape(5, 6)
    assert not vector.activate_into(fmt, "tanh", Z, D)
    assert not vector.derivative_mul_into(fmt, "tanh", Z, mem[:30].reshape(5, 6) * 0, D,
                                          True)
    assert not vector.td_into(fmt, 1, mem[:4], mem[4:16], mem[2:6])
    assert not vector.td_into(fmt, int(fmt.max_raw) + 1, mem[:4], mem[4:16], np.zeros(4,
                                                                                     np.int64))
    assert not vector.noise_into(fmt, mem[:6], int(fmt.min_raw) - 1, mem[:6] * 0,
                                 np.zeros(6, np.int64))
    monkeypatch.setattr(vector, "HAVE_NUMBA", False)
    assert not vector.activate_into(fmt, "tanh", Z.copy(), np.zeros((5, 6), np.int64))
    np.testing.assert_array_equal(mem, before)
