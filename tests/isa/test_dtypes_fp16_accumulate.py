"""fp16 with FP16 accumulation (``get_dtype("fp16", accumulate="fp16")``): every product and
every partial sum of a MAC chain rounded to binary16, in index order from +0 -- the VPU of
LearningGroup (seed 000, section III-D). The default fp16 accumulates in float32."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import Fp16Type, get_dtype
from rlaccel.util.errors import DTypeError

ACC = get_dtype("fp16", accumulate="fp16")
F16 = get_dtype("fp16")


def _chain(W, x):
    """A MAC chain written out: acc = fp16(acc + fp16(w*x)) from +0."""
    out = []
    for row in W:
        acc = np.float16(0.0)
        for w, v in zip(row, x):
            p = np.float16(np.float32(w) * np.float32(v))
            acc = np.float16(np.float32(acc) + np.float32(p))
        out.append(acc)
    return np.array(out, np.float16)


def test_the_option_is_a_cached_instance_and_float32_is_the_default():
    assert ACC is get_dtype("FP16", accumulate="fp16")
    assert get_dtype("fp16", accumulate="float32") is F16
    assert F16.accumulate == "float32" and ACC.accumulate == "fp16"
    assert repr(ACC) == "<DType fp16 accumulate=fp16>"


def test_2048_plus_four_ones_stays_2048_only_with_fp16_accumulation():
    W = np.array([[2048, 1, 1, 1, 1]], np.float16)
    x = np.ones(5, np.float16)
    assert ACC.matvec(W, x)[0] == 2048
    assert F16.matvec(W, x)[0] == 2052


def test_matvec_and_dot_equal_the_chain_written_out():
    rng = np.random.default_rng(3)
    W = rng.standard_normal((7, 33)).astype(np.float16)
    x = rng.standard_normal(33).astype(np.float16)
    assert np.array_equal(ACC.matvec(W, x), _chain(W, x))
    assert np.array_equal(ACC.rmatvec(W.T, x), _chain(W, x))
    assert ACC.dot(W[2], x) == _chain(W[2:3], x)[0]
    X = rng.standard_normal((33, 4)).astype(np.float16)
    got = ACC.matvec(W, X)
    for b in range(4):
        assert np.array_equal(got[:, b], _chain(W, X[:, b]))


def test_an_all_negative_zero_chain_is_positive_zero_and_overflow_counts():
    z = ACC.matvec(np.array([[-0.0, -0.0]], np.float16), np.array([1.0, 1.0], np.float16))
    assert z[0] == 0 and not np.signbit(z[0])
    before = ACC.saturations
    big = np.array([[60000.0, 60000.0]], np.float16)
    assert np.isinf(ACC.matvec(big, np.ones(2, np.float16))[0])
    assert ACC.saturations == before + 1


def test_the_option_is_checked():
    with pytest.raises(DTypeError, match="the accumulate option applies to fp16 only, "
                                         "not 'q6.18'"):
        get_dtype("q6.18", accumulate="fp16")
    with pytest.raises(DTypeError, match="fp16 accumulate must be one of float32, fp16, "
                                         "not 'bf16'"):
        get_dtype("fp16", accumulate="bf16")
    with pytest.raises(DTypeError, match="fp16 accumulate must be one of"):
        Fp16Type(accumulate="fp64")
