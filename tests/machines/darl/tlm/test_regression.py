"""The chunked systolic regression (the DARL paper, eq. 9-10): V[a] = Re(conj(E') Q[a]) / D,
chunk by chunk; float64 against numpy's direct complex product, fixed point bit for bit
against an exact integer computation, whatever the chunk size."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import chunks, regress

Q = get_dtype("fixed32")


def _case(rng, a=3, d=256):
    phase = rng.uniform(0, 2 * np.pi, size=d)
    return np.cos(phase), np.sin(phase), rng.normal(size=(a, d)), rng.normal(size=(a, d))


@pytest.mark.parametrize("chunk", [1, 16, 64, 256])
def test_float_values_equal_the_direct_complex_product(chunk):
    rng = np.random.default_rng(0)
    re, im, qr, qi = _case(rng)
    v = regress(re, im, qr, qi, chunk=chunk)
    direct = np.real(np.conj(re + 1j * im) @ (qr + 1j * qi).T) / 256
    assert np.allclose(v, direct, rtol=0, atol=1e-13)


def test_fixed_values_are_the_exact_sum_rounded_once_for_every_chunk_size():
    rng = np.random.default_rng(1)
    re, im, qr, qi = _case(rng, a=4, d=512)
    re, im = Q.quantize(re), Q.quantize(im)
    qr, qi = Q.quantize(qr * 50), Q.quantize(qi * 50)
    expect = []
    for a in range(4):
        total = sum(int(qr[a, j]) * int(re[j]) + int(qi[a, j]) * int(im[j]) for j in range(512))
        den = 512 << 16
        expect.append((2 * total + den) // (2 * den))
    for chunk in (8, 16, 128, 512):
        assert regress(re, im, qr, qi, chunk=chunk, fmt="fixed32").tolist() == expect


def test_fixed_values_saturate_and_count():
    """Re and Im products add up to twice the format's range: the value saturates, once."""
    d = 16
    one = np.full(d, Q.one, dtype=np.int64)
    top = np.full((1, d), Q.max_raw, dtype=np.int64)
    c = SaturationCounter()
    assert regress(one, 0 * one, top, top, chunk=4, fmt="fixed32", counter=c).tolist() == [
        Q.max_raw]
    assert c.saturations == 0
    assert regress(one, one, top, top, chunk=4, fmt="fixed32", counter=c).tolist() == [
        Q.max_raw]
    assert c.saturations == 1


def test_the_printed_sign_subtracts_the_imaginary_products():
    rng = np.random.default_rng(2)
    re, im, qr, qi = _case(rng)
    v = regress(re, im, qr, qi, chunk=32, imag_sign=-1)
    assert np.allclose(v, (qr @ re - qi @ im) / 256, atol=1e-13)


def test_the_printed_per_chunk_cosine_normalisation():
    rng = np.random.default_rng(3)
    re, im, qr, qi = _case(rng, a=2, d=64)
    qr[1, :16] = 0.0                      # a zero block contributes 0, not a division by 0
    v = regress(re, im, qr, qi, chunk=16, norm="chunk")
    expect = np.zeros(2)
    for a in range(2):
        for k in range(4):
            s = slice(16 * k, 16 * k + 16)
            for x, q in ((re[s], qr[a, s]), (im[s], qi[a, s])):
                n = np.linalg.norm(x) * np.linalg.norm(q)
                expect[a] += x @ q / n if n else 0.0
    assert np.allclose(v, expect, atol=1e-13)


def test_a_dimension_that_is_not_a_multiple_of_the_chunk_is_refused():
    rng = np.random.default_rng(0)
    re, im, qr, qi = _case(rng, d=100)
    with pytest.raises(ArchError, match="dimension 100 does not split into chunks of 16"):
        regress(re, im, qr, qi, chunk=16)
    assert chunks(2048, 16) == 128
    with pytest.raises(ArchError, match="chunk size must be a positive integer"):
        chunks(2048, 0)


def test_other_errors():
    rng = np.random.default_rng(0)
    re, im, qr, qi = _case(rng, d=32)
    with pytest.raises(ArchError, match="norm must be one of dimension, chunk"):
        regress(re, im, qr, qi, chunk=8, norm="l2")
    with pytest.raises(ArchError, match="modelled in float64 only, not fixed32"):
        regress(Q.quantize(re), Q.quantize(im), Q.quantize(qr), Q.quantize(qi), chunk=8,
                fmt="fixed32", norm="chunk")
    with pytest.raises(ArchError, match=r"need Re, Im of shape \(D,\)"):
        regress(re, im, qr[:, :16], qi, chunk=8)


def test_div_round_int64_path_equals_the_python_integers():
    """The int64 path of the rounding division gives the exact integers' bits (both halves
    and the boundary cases), and totals too large for it take the exact path."""
    from rlaccel.machines.darl.tlm._fixed import div_round
    rng = np.random.default_rng(0)
    d = 2048 << 16
    t = np.concatenate([rng.integers(-(1 << 60), 1 << 60, 5000),
                        np.array([0, d // 2, -d // 2, d // 2 - 1, -d // 2 - 1, 3 * d // 2])])
    want = np.array([(2 * int(x) + d) // (2 * d) for x in t], dtype=np.int64)
    assert np.array_equal(div_round(t, d), want)
    big = np.array([(1 << 62) + 12345, -(1 << 62)], dtype=np.int64)
    assert np.array_equal(div_round(big, d), [(2 * int(x) + d) // (2 * d) for x in big])


def test_regress_rows_is_regress_row_by_row():
    from rlaccel.machines.darl.tlm.regression import regress_rows
    t = get_dtype("fixed32")
    rng = np.random.default_rng(5)
    re = t.quantize(rng.uniform(-1, 1, (6, 256)))
    im = t.quantize(rng.uniform(-1, 1, (6, 256)))
    qr = t.quantize(rng.normal(0, 40, (4, 256)))
    qi = t.quantize(rng.normal(0, 40, (4, 256)))
    rows = regress_rows(re, im, qr, qi, chunk=16, fmt=t)
    for b in range(6):
        assert np.array_equal(rows[b], regress(re[b], im[b], qr, qi, chunk=16, fmt=t))
    with pytest.raises(ArchError, match="fixed-point path"):
        regress_rows(re, im, qr, qi, chunk=16, fmt="float64")
