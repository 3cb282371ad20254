"""Every fused kernel of the base family equals the reference semantics (``semantics.bind``,
``isa.dtypes`` arithmetic) bit for bit: memories, saturation counts and branch decisions, on
random and saturating operands, for several fixed-point formats and float64."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.isa.encoding import Instruction
from rlaccel.tlm.families.base import kernels as bk
from rlaccel.tlm.families.base.semantics import BRANCHES, MATRIX, SCALAR, bind, branch_rule
from rlaccel.tlm.model import Binding

FORMATS = ("q6.18", "q6.18/12", "q16.16", "q8.8", "q1.15", "q2.30", "q12.4", "q32.0",
           "float64")                       # /12: 12 PWL segments, a table that is searched
NU, NS = 96, 640

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # float64 overflows


def _dtype(fmt):
    name, _, seg = fmt.partition("/")
    return get_dtype(name, segments=int(seg) if seg else None).trusted()


def _raw(dt, rng, n, edge):
    """Random raw words of ``dt``: uniform over a few scales, with extremes when ``edge``."""
    if dt.is_float:
        v = rng.standard_normal(n) * rng.choice([0.01, 1.0, 30.0], n)
        if edge:
            v[rng.random(n) < 0.1] = rng.choice([0.0, -0.0, 1e300, -1e300, 1e-300], 1)
        return v
    lo, hi = dt.min_raw, dt.max_raw
    scale = rng.choice([1 << max(dt.frac_bits - 3, 0), 1 << dt.frac_bits, hi], n)
    v = (rng.uniform(-1, 1, n) * scale).astype(np.int64)
    if edge:
        pick = rng.random(n)
        v[pick < 0.15] = hi
        v[(pick >= 0.15) & (pick < 0.3)] = lo
    return np.clip(v, lo, hi)


def _operands(mn, rng):
    o = {}
    rows, cols = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    if mn == "ff.mov":
        o.update(src=int(rng.integers(0, NU - 20)), dst=int(rng.integers(0, NU - 20)),
                 cols=int(rng.integers(1, 20)))      # overlapping ranges included
    elif mn in MATRIX:
        windowed = ("ff", "bp", "bp_wu", "wu", "bp.vu", "bp_wu.vu")
        off = int(rng.integers(0, cols)) if mn in windowed else 0
        o.update(rows=rows, cols=cols, off=off, act=int(rng.integers(0, 5)),
                 syn=int(rng.integers(0, NS - 2 * rows * cols - 2 * rows - 2)))
        o["src"] = int(rng.integers(0, NU - 20))
        if mn != "vu.commit":
            o["dst"] = int(rng.integers(0, NU - 20))
        if mn == "vu.step":
            o.pop("src")
        if mn == "vu.commit":
            o.pop("act")
    elif mn in SCALAR:
        for k in ("dst", "a", "b", "c", "d"):
            o[k] = int(rng.integers(0, 12))
        o["imm"] = int(rng.integers(-(1 << 20), 1 << 20))
    else:
        o.update(a=int(rng.integers(0, 12)), b=int(rng.integers(0, 12)), target=0)
    return o


def _instruction(mn, o):
    return Instruction(mn, dict(o))


class _Agent:
    index = 0


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mn", sorted(MATRIX | SCALAR))
def test_kernel_equals_reference_semantics(fmt, mn):
    dt = _dtype(fmt)
    K = bk.constants(dt)
    rng = np.random.default_rng(hash((fmt, mn)) & 0xFFFF)
    for trial in range(40):
        o = _operands(mn, rng)
        U0, S0 = _raw(dt, rng, NU, trial % 2), _raw(dt, rng, NS, trial % 3 == 0)
        U1, S1 = U0.copy(), S0.copy()
        c1 = SaturationCounter()
        ins = _instruction(mn, o)
        try:
            bind(ins, U1, S1, dt, c1)()
            refused = None
        except Exception as exc:          # the reference refuses: the kernel must, too
            refused = exc
        k = bk.kernel(Binding(mn, o, _Agent(), dt, None, {}, None))
        U2, S2 = U0.copy(), S0.copy()
        T = np.zeros(4 * 16 + 8, dtype=U2.dtype)
        B = np.zeros(8, dtype=np.int64)
        got = bk.run(k.code, np.array([k.args], dtype=np.int64), 0, 0, U2, S2, K, T, B, k.imm)
        if refused is not None:
            assert got == -1, (o, refused)
            continue
        assert got == c1.saturations, (o, got, c1.saturations)
        np.testing.assert_array_equal(U2, U1, err_msg=str(o))
        np.testing.assert_array_equal(S2, S1, err_msg=str(o))
        if dt.is_float:                   # the same bits, not only equal values (-0.0, NaN)
            assert U2.tobytes() == U1.tobytes() and S2.tobytes() == S1.tobytes()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mn", sorted(BRANCHES))
def test_branch_equals_reference_rule(fmt, mn):
    dt = _dtype(fmt)
    K = bk.constants(dt)
    rng = np.random.default_rng(7)
    taken = set()
    for trial in range(60):
        o = _operands(mn, rng)
        U = _raw(dt, rng, NU, trial % 2)
        if trial % 5 == 0:
            U[o["b"]] = U[o["a"]]                                 # ties
        if trial % 7 == 0:
            U[o["a"]] = 0                                         # zero
        c1 = SaturationCounter()
        want = bool(branch_rule(Instruction(mn, o), U, dt, c1)())
        k = bk.kernel(Binding(mn, o, _Agent(), dt, None, {}, None))
        got, sats = bk.branch(k.code, np.array([k.args], dtype=np.int64), 0, 0, U, K)
        assert (bool(got), sats) == (want, c1.saturations), o
        taken.add(want)
    assert taken == {True, False}


def test_formats_without_kernels_run_their_semantics():
    """fp16 and fp32 have no kernels: the model's kernel piece answers None."""
    for fmt in ("fp16", "fp32"):
        dt = get_dtype(fmt)
        b = Binding("ff", dict(src=0, syn=0, dst=4, rows=2, cols=2, off=0, act=1), _Agent(),
                    dt, None, {}, None)
        assert bk.kernel(b) is None and bk.constants(dt) is None
