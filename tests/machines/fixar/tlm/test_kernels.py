"""The AAP cores' exact matrix products: every product exact, the sum exact, one round half
up and one saturation per output -- compared bit for bit with plain Python ints, on random and
extreme operands at DDPG's 400x300 layers and a batch of 64."""

import numpy as np
import pytest

from rlaccel.tlm.fast import jit

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import DTypeError
from rlaccel.machines.fixar.tlm.kernels import limb_plan, matmul_round, rescale, saturate
from rlaccel.machines.fixar.tlm.pe import product_full

from tests.machines.fixar.tlm.conftest import python_matmul_round

Q32 = get_dtype("fixed32")
LO, HI = int(Q32.min_raw), int(Q32.max_raw)
I32 = (-(1 << 31), (1 << 31) - 1)


def cancelling(rng, m, k, n, small):
    """Operands whose product is small although every partial sum is huge: ``A = [P, P+D]``,
    ``B = [V; -V]`` so ``A @ B = -D @ V`` (32-bit P and V, |D| <= small)."""
    P = rng.integers(-(1 << 31) + small, (1 << 31) - small, size=(m, k))
    D = rng.integers(-small, small + 1, size=(m, k))
    V = rng.integers(*I32, size=(k, n), endpoint=True)
    return np.hstack([P, P + D]), np.vstack([V, -V])


def test_limb_plan():
    """One product when the sum fits 2**52; otherwise limbs narrow enough for 400 terms."""
    assert limb_plan(400, 1 << 16, 1 << 24)[1] == 1
    width, n = limb_plan(400, 1 << 31, 1 << 31)
    assert 400 * (1 << 31) * (1 << width) <= 1 << 52 and width * n >= 32
    with pytest.raises(DTypeError, match="cannot be kept exact"):
        limb_plan(1 << 22, 1 << 31, 1 << 31)


def test_random_full_range_400x300_batch64(rng):
    """Full 32-bit operands, shift 44 so the results do not saturate: limbs, high path."""
    X = rng.integers(*I32, size=(64, 400), endpoint=True)
    Wt = rng.integers(*I32, size=(400, 300), endpoint=True)
    got = matmul_round(X, Wt, 44, Q32)
    want = python_matmul_round(X, Wt, 44, LO, HI)
    assert (got == want).all() and (np.abs(want) < HI).mean() > 0.99


def test_cancelling_sums_400x300_batch64(rng):
    """Huge partial sums that cancel to small results: the low limbs decide every bit."""
    A, B = cancelling(rng, 64, 200, 300, small=255)
    got = matmul_round(A, B, 16, Q32)
    want = python_matmul_round(A, B, 16, LO, HI)
    assert A.shape == (64, 400) and (got == want).all()
    assert (np.abs(want) < HI).all()


def test_extremes_saturate_and_count():
    """Every operand at -2**31: 400 products of 2**62 saturate, and are counted."""
    A = np.full((64, 400), I32[0])
    B = np.full((400, 300), I32[0])
    B[:, 1] = I32[1]
    c = SaturationCounter()
    got = matmul_round(A, B, 16, Q32, counter=c)
    assert (got[:, 0] == HI).all() and (got[:, 1] == LO).all() and c.saturations == 64 * 300
    assert (got == python_matmul_round(A, B, 16, LO, HI)).all()


def test_typical_ddpg_operands_take_one_product(rng):
    """q16.16 weights below 1 and activations below 256: one exact float64 product."""
    X = rng.integers(-(1 << 24), 1 << 24, size=(64, 400))
    Wt = rng.integers(-(1 << 16), 1 << 16, size=(400, 300))
    assert limb_plan(400, 1 << 24, 1 << 16)[1] == 1
    assert (matmul_round(X, Wt, 16, Q32) == python_matmul_round(X, Wt, 16, LO, HI)).all()


def test_round_half_up_ties():
    """Exactly half an LSB rounds towards +infinity, whichever path sums."""
    for big in (0, 1 << 30):       # 0: one product; 2**30: limbs
        A = np.array([[1, big, big], [-1, big, big]])
        B = np.array([[1 << 15], [1 << 31 - 1], [-(1 << 31 - 1)]])
        assert matmul_round(A, B, 16, Q32).ravel().tolist() == [1, 0]


def test_addend_is_a_bias_at_the_products_binary_point(rng):
    A, B = cancelling(rng, 8, 50, 20, small=1000)
    bias = rng.integers(*I32, size=20, endpoint=True) << 16
    got = matmul_round(A, B, 16, Q32, addend=bias)
    assert (got == python_matmul_round(A, B, 16, LO, HI, addend=bias)).all()


def test_equals_isa_dtypes_matvec_and_rmatvec(rng):
    """Same format on both sides: the kernel is dtypes' matvec rule, batched."""
    W = rng.integers(*I32, size=(300, 400), endpoint=True) >> 8
    x = rng.integers(*I32, size=(400, 64), endpoint=True) >> 4
    assert (matmul_round(W, x, 16, Q32) == Q32.matvec(W, x)).all()
    g = rng.integers(*I32, size=(300,), endpoint=True) >> 10
    assert (matmul_round(W.T, g[:, None], 16, Q32)[:, 0] == Q32.rmatvec(W, g)).all()


def test_isa_dtypes_fixed32_exact_at_ddpg_sizes(rng):
    """The brief's check: isa.dtypes' fixed32 matvec (limb split) and outer are exact for
    400-term sums of 32x32-bit products and a batch of 64, against Python ints."""
    A, B = cancelling(rng, 300, 200, 64, small=1 << 12)       # W (300, 400), X (400, 64)
    assert (Q32.matvec(A, B) == python_matmul_round(A, B, 16, LO, HI)).all()
    g = rng.integers(*I32, size=300, endpoint=True)
    x = rng.integers(*I32, size=400, endpoint=True)
    want = python_matmul_round(g[:, None], x[None, :], 16, LO, HI)
    assert (Q32.outer(g, x) == want).all()


def test_sum_of_pe_products(rng):
    """The kernel sums exactly what the PEs multiply (pe.product_full, 32x32 from 32x16)."""
    W = rng.integers(*I32, size=(3, 16), endpoint=True)
    x = rng.integers(*I32, size=16, endpoint=True)
    for i in range(3):
        s = sum(int(product_full(int(w), int(a))) for w, a in zip(W[i], x))
        want = min(max((s + (1 << 43)) >> 44, LO), HI)
        assert matmul_round(W[i:i + 1], x[:, None], 44, Q32)[0, 0] == want


def test_mixed_formats_32x16(rng):
    """q16.16 weights times 16-bit QAT operands with 12 fraction bits: shift = 16 + 12 - 16."""
    Wt = rng.integers(*I32, size=(400, 300), endpoint=True) >> 4
    codes = rng.integers(-(1 << 16), 1 << 16, size=(64, 400))
    got = matmul_round(codes, Wt, 12, Q32)
    assert (got == python_matmul_round(codes, Wt, 12, LO, HI)).all()


def test_errors_name_the_problem():
    q = Q32
    with pytest.raises(DTypeError, match="must be raw integers, not float64"):
        matmul_round(np.ones((2, 2)), np.ones((2, 2), dtype=np.int64), 0, q)
    with pytest.raises(DTypeError, match=r"shapes \(2, 3\) and \(2, 2\) do not match"):
        matmul_round(np.ones((2, 3), dtype=np.int64), np.ones((2, 2), dtype=np.int64), 0, q)
    with pytest.raises(DTypeError, match="wider than 33-bit signed"):
        matmul_round(np.array([[1 << 40]]), np.array([[1]]), 0, q)
    with pytest.raises(DTypeError, match="shift -1 is outside 0..60"):
        matmul_round(np.array([[1]]), np.array([[1]]), -1, q)


def test_saturate_counts():
    c = SaturationCounter()
    y = saturate(np.array([-5, 0, 5, 9]), -4, 4, c)
    assert y.tolist() == [-4, 0, 4, 4] and c.saturations == 3


def test_prepared_operands_give_the_same_bits(rng):
    """An Operand (checked, max and float64 copy made once) and its transpose are the same
    operands as the raw arrays, on the one-product and the limb paths."""
    from rlaccel.machines.fixar.tlm.kernels import Operand
    W = rng.integers(*I32, size=(300, 400), endpoint=True)
    X = rng.integers(-(1 << 20), 1 << 20, size=(64, 400))
    op = Operand(W)
    for w in (W >> 12, W):                  # small: one product; full range: limbs
        o = Operand(w)
        assert (matmul_round(X, o.T, 16, Q32) == matmul_round(X, w.T, 16, Q32)).all()
        assert (matmul_round(o, X.T, 30, Q32) == matmul_round(w, X.T, 30, Q32)).all()
    assert op.shape == (300, 400) and op.T.shape == (400, 300) and op.maxabs <= 1 << 31


@pytest.mark.parametrize("shift", [0, 12, 16, 30])
def test_fused_single_product_path_bit_exact(rng, monkeypatch, shift):
    """The single-product path's fused tail (numba: one pass of bias, rounding, saturation
    and its count) against Python ints and against the plain int64 tail (HAVE_NUMBA off), on
    operands at the path's bound (K max|A| max|B| = 2**52, either operand the larger),
    strided rows, per-column and per-row biases (a full (M, N) one takes the int64 path),
    and saturating results."""
    from numpy.lib.stride_tricks import as_strided

    from rlaccel.machines.fixar.tlm import kernels
    wide = np.zeros((64, 2 * 400), np.int64)
    wide[:, ::2] = rng.integers(-(1 << 17) + 1, 1 << 17, size=(64, 400))
    X = as_strided(wide, shape=(64, 400), strides=(wide.strides[0], 2 * wide.strides[1]))
    X[0, :] = (1 << 17) - 1                   # the bound itself
    Wt = rng.integers(-(1 << 26) + 1, 1 << 26, size=(400, 300))
    Wt[:, 0] = (1 << 26) - 1                  # row 0, column 0: a sum of 400 * 2**43
    assert 400 * max(abs(X).max(), 1) * abs(Wt).max() <= 1 << 52
    cases = [(X, Wt, None), (X, Wt, rng.integers(-(1 << 40), 1 << 40, size=300)),
             (Wt.T, X.T, rng.integers(-(1 << 40), 1 << 40, size=(300, 1))),
             (X[:, :8], Wt[:8, :5], np.full(5, 1 << 47)),
             (X, Wt, rng.integers(-(1 << 40), 1 << 40, size=(64, 300)))]
    for A, B, add in cases:
        want = python_matmul_round(A, B, shift, LO, HI, addend=add)
        c_fast, c_plain = SaturationCounter(), SaturationCounter()
        fast = matmul_round(A, B, shift, Q32, addend=add, counter=c_fast)
        with monkeypatch.context() as m:
            m.setattr(kernels, "HAVE_NUMBA", False)
            plain = matmul_round(A, B, shift, Q32, addend=add, counter=c_plain)
        assert fast.flags.c_contiguous and fast.dtype == np.int64
        assert np.array_equal(fast, want) and np.array_equal(plain, want)
        assert c_fast.saturations == c_plain.saturations == int(
            np.count_nonzero((want == LO) | (want == HI)))
    assert c_fast.saturations > 0 or shift > 16      # small shifts saturate


def test_fused_rounding_ties_and_negative_halves():
    """Half an LSB rounds up, minus half rounds up too (towards +infinity), in the fused
    tail as in Python ints."""
    A = np.array([[1], [-1], [3], [-3]], np.int64)
    B = np.array([[1 << 15]], np.int64)                 # +-0.5 and +-1.5 LSB at shift 16
    assert matmul_round(A, B, 16, Q32).ravel().tolist() == [1, 0, 2, -1]


@pytest.mark.parametrize("numba", [True, False], ids=["numba", "plain"])
def test_destination_relu_mask_and_buffers(rng, monkeypatch, numba):
    """The instructions' form -- the result written into a strided destination, ReLU or the
    ReLU derivative's mask applied after the saturation (not counted), the sums in a reused
    float64 buffer, the input converted by operand_into (with its min and max) -- equals
    the plain result, in Python ints, on the single-product path and the limb path, and
    when the mask overlaps the destination (read before it is written)."""
    from numpy.lib.stride_tricks import as_strided

    from rlaccel.machines.fixar.tlm import kernels
    from rlaccel.machines.fixar.tlm.kernels import Operand, operand_into
    monkeypatch.setattr(kernels, "HAVE_NUMBA", numba)
    mem = rng.integers(-(1 << 20), 1 << 20, size=4000)
    X = as_strided(mem, shape=(8, 40), strides=(50 * 8, 8))        # rows 50 words apart
    f = np.empty((8, 40))
    x, lo, hi = operand_into(X, f)
    assert (lo, hi) == (int(X.min()), int(X.max())) and np.array_equal(f, X)
    assert x.maxabs == max(-lo, hi) and x.raw is X
    for W in (rng.integers(-(1 << 16), 1 << 16, size=(30, 40)),          # one product
              rng.integers(*I32, size=(30, 40), endpoint=True)):        # limbs
        bias = rng.integers(-(1 << 31), 1 << 31, size=30) << 16
        mask = rng.integers(-2, 3, size=(8, 30))
        want = python_matmul_round(X, W.T, 16, LO, HI, addend=bias)
        for relu, m in ((False, None), (True, None), (False, mask)):
            expect = np.maximum(want, 0) if relu else want
            expect = np.where(mask > 0, expect, 0) if m is not None else expect
            out = np.zeros(4000, np.int64)
            D = as_strided(out[7:], shape=(8, 30), strides=(50 * 8, 8))
            c, c0 = SaturationCounter(), SaturationCounter()
            got = matmul_round(x, Operand(W).T, 16, Q32, addend=bias, counter=c, into=D,
                               work=np.empty((8, 30)), relu=relu, mask=m)
            matmul_round(X, W.T, 16, Q32, addend=bias, counter=c0)
            assert got is D and np.array_equal(D, expect) and c.saturations == c0.saturations
            assert np.count_nonzero(out) == np.count_nonzero(expect)   # nothing else written
        # the mask is the destination itself (in place)
        D = mask.copy()
        matmul_round(X, W.T, 16, Q32, addend=bias, into=D, mask=D)
        assert np.array_equal(D, np.where(mask > 0, want, 0))
    with pytest.raises(DTypeError, match="mask has shape"):
        matmul_round(X, W.T, 16, Q32, mask=np.ones((2, 2), np.int64))
    with pytest.raises(DTypeError, match="raw integers"):
        operand_into(X.astype(float), f)


@pytest.mark.parametrize("numba", [True, False], ids=["numba", "plain"])
def test_addend_beyond_2_60_is_refused_before_writing(monkeypatch, numba):
    from rlaccel.machines.fixar.tlm import kernels
    monkeypatch.setattr(kernels, "HAVE_NUMBA", numba)
    A, B = np.ones((2, 3), np.int64), np.ones((3, 4), np.int64)
    for add in (np.array([0, 0, 1 << 60, 0]), np.array([[0], [-(1 << 60)]]),
                np.full((2, 4), 1 << 60)):
        D = np.zeros((2, 4), np.int64)
        with pytest.raises(DTypeError, match="below 2\\*\\*60"):
            matmul_round(A, B, 0, Q32, addend=add, into=D)
        assert not D.any()
    ok = np.array([0, 0, (1 << 60) - 1, 0])
    assert matmul_round(A, B, 60, Q32, addend=ok).tolist() == [[0, 0, 1, 0]] * 2


@pytest.mark.skipif(not jit.HAVE_NUMBA,
                    reason="NUMBA_DISABLE_JIT=1: the single-product path is the compiled code's")
def test_fine_bound_one_product_where_the_coarse_bound_fails(rng, monkeypatch):
    """Full 32-bit weights against 400 activations whose rows are sparse: ``K max|A| max|B|``
    is far above 2**52 but every row's sum of ``|A|`` times ``max|B|`` is at most 2**52, so
    one float64 product serves (no limbs), exactly; one row above it takes the limbs, and an
    Operand whose bound is loose after a change is made exact before the limbs are chosen."""
    from rlaccel.machines.fixar.tlm import kernels
    from rlaccel.machines.fixar.tlm.kernels import Operand, operand_into
    limbs = []
    gemm = kernels._gemm
    monkeypatch.setattr(kernels, "_gemm", lambda a, b: limbs.append(1) or gemm(a, b))
    W = rng.integers(*I32, size=(300, 400), endpoint=True)
    W[0, 0] = I32[0]                                      # max|W| = 2**31
    X = np.zeros((64, 400), np.int64)
    cols = rng.integers(0, 400, size=(64, 2))
    X[np.arange(64)[:, None], cols] = rng.choice([-1, 1], size=(64, 2)) << 19
    X[:, 7] = rng.integers(-(1 << 10), 1 << 10, size=64)  # a little more in every row
    X[0, :] = 0
    X[0, :2] = [(1 << 20) + (1 << 19), -(1 << 19)]        # row 0's sum: exactly 2**21
    assert 400 * int(np.abs(X).max()) * (1 << 31) > 1 << 56    # the coarse bound
    assert np.abs(X).sum(axis=1).max() * (1 << 31) <= 1 << 52
    want = python_matmul_round(X, W.T, 16, LO, HI)
    c = SaturationCounter()
    x = operand_into(X, np.empty((64, 400)))[0]
    for A in (X, x):
        assert np.array_equal(matmul_round(A, Operand(W).T, 16, Q32, counter=c), want)
    assert not limbs and c.saturations == 2 * int(np.count_nonzero((want == LO) | (want == HI)))
    X[0, 2] = 1                                           # row 0 one over: limbs, same bits
    assert np.array_equal(matmul_round(X, W.T, 16, Q32),
                          python_matmul_round(X, W.T, 16, LO, HI)) and limbs
    # a loose bound (the Adam unit's whole-network maximum) is made exact, for .T too
    limbs.clear()
    X[0, 2] = 0
    op = Operand(W >> 1)
    op.changed(1 << 32)
    assert op.T.maxabs == 1 << 32
    got = matmul_round(X, op.T, 16, Q32)
    assert np.array_equal(got, python_matmul_round(X, (W >> 1).T, 16, LO, HI)) and not limbs
    assert op.maxabs == op.T.maxabs == 1 << 30


def test_bit_trick_conversions_exact_to_2_51():
    """int64 <-> float64 by the 1.5 * 2**52 bit trick (the compiled passes' vectorisable
    conversions): exact for every integer of magnitude below 2**51 (and 2**51 itself from
    float64), as the plain casts are."""
    from rlaccel.machines.fixar.tlm.kernels import MAGIC_LIMIT, f2i, i2f
    edge = [0, 1, -1, 2, -2, (1 << 31) - 1, -(1 << 31), (1 << 32) + 1, -(1 << 33) - 7,
            MAGIC_LIMIT - 1, -(MAGIC_LIMIT - 1)]
    rnd = np.random.default_rng(7).integers(-MAGIC_LIMIT + 1, MAGIC_LIMIT, size=2000).tolist()
    for v in edge + rnd:
        assert i2f(np.int64(v)) == float(v) and int(f2i(np.float64(v))) == v
    for v in (MAGIC_LIMIT, -MAGIC_LIMIT):
        assert int(f2i(np.float64(v))) == v


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_round_saturate_small_sums_take_the_bit_trick_exactly(rng, mode):
    """The fused tail converts sums below 2**51 by the bit trick and larger ones (up to
    2**52) by the plain cast: both give Python ints' rounding, saturation, count, ReLU and
    mask on sums at +-(2**51 - 1), at +-2**52, ties, saturating values and strided
    destinations."""
    from numpy.lib.stride_tricks import as_strided

    from rlaccel.machines.fixar.tlm.kernels import MAGIC_LIMIT, _NO_MASK, _round_saturate
    m, n, shift = 6, 37, 20
    for limit in (MAGIC_LIMIT - 1, 1 << 52):
        t = rng.integers(-limit, limit, size=(m, n), endpoint=True)
        t[0, :4] = [limit, -limit, (1 << (shift - 1)), -(1 << (shift - 1))]
        t[1, :] = rng.integers(-3, 4, size=n) << (shift - 1)       # ties and halves
        add = (rng.integers(-(1 << 40), 1 << 40, size=n if mode == 1 else m)
               if mode else np.zeros(1, np.int64))
        mask = rng.integers(-2, 3, size=(m, n))
        for relu, mk in ((False, _NO_MASK), (True, _NO_MASK), (False, mask)):
            exp = np.empty((m, n), np.int64)
            clipped = 0
            for i in range(m):
                for j in range(n):
                    v = int(t[i, j]) + (int(add[j]) if mode == 1 else
                                        int(add[i]) if mode == 2 else 0)
                    v = (v + (1 << (shift - 1))) >> shift
                    c = min(max(v, LO), HI)
                    clipped += c != v
                    c = max(c, 0) if relu else c
                    exp[i, j] = c if mk is _NO_MASK or mk[i, j] > 0 else 0
            assert clipped > 0                                     # some saturate
            for small in ((True, False) if limit < MAGIC_LIMIT else (False,)):
                mem = np.zeros(m * 50, np.int64)
                out = as_strided(mem[3:], shape=(m, n), strides=(50 * 8, 8))
                got = _round_saturate(t.astype(np.float64), add, mode, shift, LO, HI, relu,
                                      mk, out, small)
                assert got == clipped and np.array_equal(out, exp)
                assert np.count_nonzero(mem) == np.count_nonzero(exp)


def test_single_product_below_2_51_equals_python_ints(rng):
    """Operands whose sums stay below 2**51 (the bit-trick conversion of the fused tail) and
    just above it (the plain cast): the same bits as Python ints, saturations counted."""
    from rlaccel.machines.fixar.tlm.kernels import MAGIC_LIMIT
    for xbits in (16, 17):                 # 400 * 2**16 * 2**26 < 2**51 < 400 * 2**17 * 2**26
        X = rng.integers(-(1 << xbits) + 1, 1 << xbits, size=(64, 400))
        X[0, :] = (1 << xbits) - 1
        Wt = rng.integers(-(1 << 26) + 1, 1 << 26, size=(400, 300))
        Wt[:, 0] = (1 << 26) - 1
        bound = 400 * int(np.abs(X).max()) * int(np.abs(Wt).max())
        assert (bound < MAGIC_LIMIT) == (xbits == 16) and bound <= 1 << 52
        add = rng.integers(-(1 << 40), 1 << 40, size=300)
        c = SaturationCounter()
        got = matmul_round(X, Wt, 16, Q32, addend=add, counter=c)
        want = python_matmul_round(X, Wt, 16, LO, HI, addend=add)
        assert np.array_equal(got, want)
        assert c.saturations == int(np.count_nonzero((want == LO) | (want == HI))) > 0


@pytest.mark.skipif(not jit.HAVE_NUMBA,
                    reason="NUMBA_DISABLE_JIT=1: the fused call is the compiled code's")
def test_product_into_equals_matmul_round(rng):
    """The instructions' fused call (conversion, bound, one float64 product, tail) gives
    matmul_round's bits, saturation count and the input's min and max -- forward form
    (W transposed, per-column bias, ReLU) and back-propagation form (mask), strided input
    and destination, saturating operands -- and declines (None, nothing written) where the
    general path must decide: sums that may pass 2**52 (after a loose weight bound is made
    exact), an operand wider than 33 bits, an addend of 2**60, a weight view that is not
    contiguous."""
    from numpy.lib.stride_tricks import as_strided

    from rlaccel.machines.fixar.tlm.kernels import Operand, product_into
    mem = np.zeros(64 * 60, np.int64)
    X = as_strided(mem, shape=(64, 40), strides=(60 * 8, 8))
    X[...] = rng.integers(-(1 << 18), 1 << 18, size=(64, 40))   # 40 * 2**18 * 2**27 < 2**51
    X[0, :] = (1 << 18) - 1                                   # saturating rows
    W = Operand(rng.integers(-(1 << 27), 1 << 27, size=(30, 40)))
    bias = rng.integers(-(1 << 31), 1 << 31, size=30) << 16
    mask = rng.integers(-2, 3, size=(64, 30))
    Wb = Operand(rng.integers(-(1 << 27), 1 << 27, size=(40, 30)))
    for Wop, transpose, add, relu, m in ((W, True, bias, True, None),
                                        (W, True, bias, False, None),
                                        (Wb, False, None, False, mask)):
        B = Wop.raw.T if transpose else Wop.raw
        want = python_matmul_round(X, B, 16, LO, HI, addend=add)
        want = np.maximum(want, 0) if relu else want
        want = np.where(mask > 0, want, 0) if m is not None else want
        out = np.zeros(64 * 50, np.int64)
        D = as_strided(out[5:], shape=(64, 30), strides=(50 * 8, 8))
        c = SaturationCounter()
        seen = product_into(X, np.empty((64, 40)), Wop, transpose, 16, Q32, D,
                            np.empty((64, 30)), add=add, relu=relu, mask=m, counter=c)
        c0 = SaturationCounter()
        matmul_round(X, B, 16, Q32, addend=add, counter=c0)
        assert seen == (int(X.min()), int(X.max())) and np.array_equal(D, want)
        assert c.saturations == c0.saturations > 0
        assert np.count_nonzero(out) == np.count_nonzero(want)   # nothing else written
    # a weight bound left loose by an update (2**31: the sums' test fails with it) is made
    # exact, and the call goes on
    loose = Operand(W.raw.copy())
    loose.changed(1 << 31)
    D = np.zeros((64, 30), np.int64)
    assert product_into(X, np.empty((64, 40)), loose, True, 16, Q32, D, np.empty((64, 30)),
                        add=bias) is not None
    assert loose.maxabs == W.maxabs
    assert np.array_equal(D, python_matmul_round(X, W.raw.T, 16, LO, HI, addend=bias))
    # declined: nothing written, the general path decides
    full = Operand(rng.integers(*I32, size=(30, 40), endpoint=True))   # 40 * 2**18 * 2**31
    wide = X.copy()
    wide[1, 1] = 1 << 32
    big = np.full(30, 1 << 60)
    wider = Operand(rng.integers(-9, 10, size=(30, 45)))      # columns 5: as bbp's off
    for args, kw in (((X, full, True), {}), ((wide, W, True), {}),
                     ((X, W, True), {"add": big}),
                     ((X, Operand(wider.raw[:, 5:], 9, wider.f64[:, 5:]), True), {})):
        D = np.zeros((64, 30), np.int64)
        assert product_into(args[0], np.empty((64, 40)), args[1], args[2], 16, Q32, D,
                            np.empty((64, 30)), **kw) is None and not D.any()


@pytest.mark.skipif(not jit.HAVE_NUMBA,
                    reason="NUMBA_DISABLE_JIT=1: the fused call is the compiled code's")
def test_gradient_into_equals_matmul_round(rng):
    """The weight gradient's fused call gives matmul_round's bits of ``E.T @ X`` (strided
    errors and inputs, saturating sums counted) and rescale's of the bias gradient, and
    declines, writing nothing, where the sums may pass 2**52 or an operand is wider than
    33 bits."""
    from numpy.lib.stride_tricks import as_strided

    from rlaccel.machines.fixar.tlm.kernels import gradient_into
    mem = rng.integers(-(1 << 22), 1 << 22, size=64 * 70 + 40)
    E = as_strided(mem, shape=(64, 30), strides=(70 * 8, 8))
    X = as_strided(mem[35:], shape=(64, 40), strides=(70 * 8, 8))
    E[0, :], X[0, :] = (1 << 22) - 1, (1 << 22) - 1             # 64 * 2**44 < 2**51
    want = python_matmul_round(E.T, X, 12, LO, HI)
    G = np.zeros((30, 40), np.int64)
    c, c0 = SaturationCounter(), SaturationCounter()
    assert gradient_into(E, np.empty((64, 30)), X, np.empty((64, 40)), 12, Q32, G,
                         np.empty((30, 40)), counter=c)
    matmul_round(E.T, X, 12, Q32, counter=c0)
    assert np.array_equal(G, want) and c.saturations == c0.saturations > 0
    # with the bias gradient: rescale's bits of the errors' column sums, in the same call
    # (rounded, exact, shifted left with its clip; saturating columns counted)
    clipped = {}
    for bshift in (12, 0, -3, -20):
        bias = np.zeros(30, np.int64)
        c, c0, cb = SaturationCounter(), SaturationCounter(), SaturationCounter()
        assert gradient_into(E, np.empty((64, 30)), X, np.empty((64, 40)), 12, Q32, G,
                             np.empty((30, 40)), bias=bias, bias_shift=bshift, counter=c)
        matmul_round(E.T, X, 12, Q32, counter=c0)
        assert np.array_equal(bias, rescale(E.sum(axis=0), bshift, Q32, cb))
        assert np.array_equal(G, want) and c.saturations == c0.saturations + cb.saturations
        clipped[bshift] = cb.saturations
    assert clipped[-20] > 0 and clipped[12] == 0
    wide = np.array(X)
    wide[3, 3] = 1 << 32
    full = rng.integers(*I32, size=(64, 40), endpoint=True)     # 64 * 2**22 * 2**31
    for x in (wide, full):
        G, bias = np.zeros((30, 40), np.int64), np.zeros(30, np.int64)
        assert not gradient_into(E, np.empty((64, 30)), x, np.empty((64, 40)), 12, Q32, G,
                                 np.empty((30, 40)), bias=bias, bias_shift=12)
        assert not G.any() and not bias.any()
