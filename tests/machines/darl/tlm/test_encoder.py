"""The encoding layer (the DARL paper, eq. 1-6): multiply by the position matrix, reduce, and the
codebook; in fixed point the phase is an exact sum with one rounding, in turns."""

import math

import numpy as np
import pytest

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import Encoder, encode_float, position_matrix

Q = get_dtype("fixed32")


def test_position_matrix_is_seeded_standard_normal():
    a = position_matrix(4, 2048, np.random.default_rng(3))
    b = position_matrix(4, 2048, np.random.default_rng(3))
    assert a.shape == (4, 2048) and np.array_equal(a, b)
    assert abs(a.mean()) < 0.05 and abs(a.std() - 1) < 0.05


def test_float_encoding_is_the_complex_exponential():
    rng = np.random.default_rng(1)
    P = position_matrix(3, 64, rng)
    s = rng.normal(size=3)
    re, im = encode_float(s, P)
    h = np.exp(1j * (s @ P))
    assert np.allclose(re, h.real, atol=1e-15) and np.allclose(im, h.imag, atol=1e-15)
    re_b, _ = encode_float(np.stack([s, 2 * s]), P)
    assert np.allclose(re_b[0], re, rtol=0, atol=1e-14)   # BLAS may sum a batch differently


def test_phase_is_the_exact_sum_rounded_once():
    rng = np.random.default_rng(2)
    P = position_matrix(8, 256, rng)
    enc = Encoder(P)
    s = Q.quantize(rng.uniform(-3, 3, size=8))
    e = enc.phase(s)
    pt = enc.P_turns_T
    for j in range(256):
        exact = sum(int(pt[j, i]) * int(s[i]) for i in range(8))
        assert int(e[j]) == (exact + (1 << 15)) >> 16


def test_fixed_encoding_tracks_cos_and_sin_of_the_state():
    """Error budget: P in turns rounded (half an LSB each), the state rounded, the phase
    rounded once, the codebook's half LSB."""
    rng = np.random.default_rng(4)
    P = position_matrix(4, 2048, rng)
    enc = Encoder(P)
    for _ in range(20):
        s = rng.uniform(-2.4, 2.4, size=4)
        re, im = enc.encode(Q.quantize(s))
        e = s @ P
        lsb = Q.lsb
        bound = (2 * math.pi * (np.abs(s).sum() * lsb / 2 + lsb / 2)
                 + np.abs(P).sum(axis=0) * lsb / 2 + lsb / 2)
        assert np.all(np.abs(Q.to_float(re) - np.cos(e)) <= bound)
        assert np.all(np.abs(Q.to_float(im) - np.sin(e)) <= bound)


def test_a_batch_of_states_as_columns():
    rng = np.random.default_rng(5)
    enc = Encoder(position_matrix(4, 32, rng))
    S = Q.quantize(rng.normal(size=(4, 3)))
    re, im = enc.encode(S)
    assert re.shape == (32, 3)
    assert np.array_equal(re[:, 1], enc.encode(S[:, 1])[0])


def test_errors_name_what_is_wrong():
    rng = np.random.default_rng(0)
    enc = Encoder(position_matrix(4, 16, rng))
    with pytest.raises(ArchError, match="a state of 3 features for a position matrix of 4"):
        enc.encode(Q.quantize(np.zeros(3)))
    with pytest.raises(ArchError, match="computes in fixed point, not float64"):
        Encoder(position_matrix(4, 16, rng), "float64")
    with pytest.raises(ArchError, match="hypervector dimension must be a positive integer"):
        position_matrix(4, 0, rng)
