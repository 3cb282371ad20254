"""The agent's prepared weight operands: the float64 mirror they live in, renewed by the
compiled passes that write it (updated) or dropped when words change behind them
(written); a column operand's contiguous float64 copy is dropped by both. The AAP
instructions' scratch buffers: views of one shared arena, apart within a call."""

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.fixar.tlm.state import FixarState

ACC = get_dtype("fixed32")


def _state():
    return FixarState(acc=ACC, store=ACC, segments=16, prng_lanes=16)


def test_operand_mirror_updated_and_written():
    rng = np.random.default_rng(4)
    S = rng.integers(-(1 << 20), 1 << 20, size=100)
    st = _state()
    op = st.operand(S, 10, 3, 4)
    assert np.array_equal(op.f64, S[10:22].reshape(3, 4)) and op.f64.base is st.mirror
    assert op.maxabs == int(np.abs(S[10:22]).max()) and st.operand(S, 10, 3, 4) is op
    cols = st.operand_cols(S, 10, 3, 4, 1)
    assert np.array_equal(cols.f64, S[10:22].reshape(3, 4)[:, 1:])
    assert cols.f64.flags.c_contiguous and st.operand_cols(S, 10, 3, 4, 1) is cols
    assert cols.maxabs == int(np.abs(S[10:22].reshape(3, 4)[:, 1:]).max())
    # a pass that wrote the words and their mirror: the operands inside keep their arrays
    S[5:30] += 7
    st.mirror[5:30] = S[5:30]
    st.updated(5, 30, 1 << 21)
    assert st.operand(S, 10, 3, 4) is op and op.maxabs == 1 << 21
    assert np.array_equal(op.f64, S[10:22].reshape(3, 4))
    # a column operand's float64 words are a copy: made again from the renewed mirror
    assert (10, 3, 4, 1) not in st.weights
    cols = st.operand_cols(S, 10, 3, 4, 1)
    assert np.array_equal(cols.f64, S[10:22].reshape(3, 4)[:, 1:])
    assert cols.maxabs == int(np.abs(S[10:22].reshape(3, 4)[:, 1:]).max())
    # partly inside an updated range, or written behind the mirror: made again from S
    st.updated(15, 40, 1 << 21)
    assert (10, 3, 4) not in st.weights and (10, 3, 4, 1) not in st.weights
    S[12] = 1 << 22
    op2 = st.operand(S, 10, 3, 4)
    assert op2.maxabs == 1 << 22 and op2.f64[0, 2] == 1 << 22
    st.written(21, 22)
    assert (10, 3, 4) not in st.weights
    st.operand(S, 50, 2, 2)
    st.written(0, 50)                          # ends where the next operand starts
    assert (50, 2, 2) in st.weights


def test_scratch_buffers_are_apart_contiguous_and_shared():
    st = _state()
    a, b = st.scratch((2, 3), (4, 5))
    assert a.shape == (2, 3) and b.shape == (4, 5)
    assert a.flags.c_contiguous and b.flags.c_contiguous
    assert not np.may_share_memory(a, b)
    a[...], b[...] = 1.0, 2.0
    assert (a == 1.0).all()                     # b does not overlap a
    (c,) = st.scratch((3, 2))                   # a later instruction: the same words
    assert np.shares_memory(c, a)
    (d,) = st.scratch((10, 10))                 # larger than the arena: it grows
    assert d.shape == (10, 10) and st.arena.size >= 100
