"""The LearningGroup vector processing unit in FP16 (the paper, section III-D, Fig. 7).

Each VPU has an FP16 multiplier, an FP16 adder, a 4-to-1 activation multiplexer and four
accumulation registers. Every multiply and every add is rounded to IEEE binary16 (round to
nearest even), and partial sums stay in the FP16 registers: a multiply-accumulate is two
roundings, ``acc <- fp16(acc + fp16(w * a))`` (a separate multiplier and adder, no fused
multiply-add). Rounding goes through :mod:`rlaccel.isa.dtypes`' fp16 (float32 arithmetic
rounded once to binary16, which equals the correctly rounded binary16 result).

The VPU's MAC chain is ``isa.dtypes``' fp16 with FP16 accumulation
(``get_dtype("fp16", accumulate="fp16")``, :data:`FP16_ACC`, the format the architecture
names): every product and every partial sum rounded. :func:`matvec` is that format's
``matvec``; :func:`dot` the same chain along the last axis of broadcast operands (tested
equal). The default fp16 accumulates in float32 and rounds once.

A :class:`VpuArray` is the N VPUs of one core stepped one cycle at a time: the controller
broadcasts up to four activations, each VPU takes its own weight and a 2-bit select, and
multiplies into the accumulation register its select names.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import SimError

from rlaccel.machines.learninggroup.tlm.timing import ROWS_PER_PASS, VPUS

__all__ = ["FP16", "FP16_ACC", "REGISTERS", "half", "mul", "add", "mac", "dot", "matvec", "VpuArray",
           "count_overflows"]

FP16 = get_dtype("fp16")
#: the VPU's format: FP16 products and FP16 accumulation registers
FP16_ACC = get_dtype("fp16", accumulate="fp16")
#: accumulation registers (and broadcast activations) per VPU: the rows a core takes at once
#: (Fig. 7; the architecture's rows_per_pass)
REGISTERS = ROWS_PER_PASS


def half(a, what: str = "operand") -> np.ndarray:
    """``a`` as a float16 array; a value that is not exactly an FP16 number is an error
    (quantize with ``FP16.quantize`` first)."""
    a = np.asarray(a)
    if a.dtype == np.float16:
        return a
    h = a.astype(np.float16)
    bad = ~((h.astype(np.float64) == a) | (np.isnan(h) & np.isnan(a.astype(np.float64))))
    if bad.any():
        raise SimError(f"{what}: {float(a.reshape(-1)[np.flatnonzero(bad)[0]])!r} is not an "
                       f"FP16 value (quantize it first)")
    return h


def count_overflows(n: int, counter=None) -> None:
    """Count finite -> inf results as saturations, as isa.dtypes does (a compiled kernel's
    count too)."""
    if n:
        FP16.saturations += n
        if counter is not None:
            counter.saturations += n


def mul(a, b, *, counter=None) -> np.ndarray:
    """The FP16 multiplier: ``fp16(a * b)``."""
    return FP16.mul(a, b, counter=counter)


def add(a, b, *, counter=None) -> np.ndarray:
    """The FP16 adder: ``fp16(a + b)``."""
    return FP16.add(a, b, counter=counter)


def mac(acc, w, a, *, counter=None) -> np.ndarray:
    """One multiply-accumulate: ``fp16(acc + fp16(w * a))``."""
    return FP16.add(acc, FP16.mul(w, a, counter=counter), counter=counter)


def dot(w, a, *, counter=None) -> np.ndarray:
    """MAC chains along the last axis, from a +0 register, in index order: every product
    and every partial sum rounded to FP16. ``w`` and ``a`` broadcast; the result has the
    shape of the broadcast minus its last axis."""
    p = mul(w, a, counter=counter)
    if p.shape[-1] == 0:
        return np.zeros(p.shape[:-1], dtype=np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        # numpy's float16 cumsum adds one element at a time, rounding each sum to binary16
        acc = np.cumsum(p, axis=-1, dtype=np.float16)[..., -1]
        out = acc + np.float16(0.0)             # a cleared register is +0: -0 + +0 = +0
    finite = np.isfinite(p).all(axis=-1)
    count_overflows(int(np.count_nonzero(finite & ~np.isfinite(out))), counter)
    return np.asarray(out)


def matvec(W, x, *, counter=None) -> np.ndarray:
    """``y[i] = dot(W[i, :], x)``: one VPU MAC chain per output."""
    W, x = half(W, "VPU matvec weights"), half(x, "VPU matvec input")
    if W.ndim != 2 or x.shape != (W.shape[1],):
        raise SimError(f"VPU matvec: shapes {W.shape} and {x.shape} do not match "
                       f"(need (M, K) and (K,))")
    return FP16_ACC.matvec(W, x, counter=counter)


class VpuArray:
    """N VPUs (by default a core's) with :data:`REGISTERS` FP16 accumulation registers each,
    stepped cycle by cycle."""

    def __init__(self, n: int = VPUS):
        if n < 1:
            raise SimError(f"a VPU array needs at least one VPU, not {n}")
        self.n = n
        self.acc = np.zeros((REGISTERS, n), dtype=np.float16)
        self.cycles = 0
        self.busy = 0                 # VPU-cycles that did a multiply-accumulate

    def clear(self) -> None:
        """Zero every accumulation register (+0)."""
        self.acc[:] = 0

    def cycle(self, weights, activations, select, enable=None, *, counter=None) -> None:
        """One cycle: VPU ``p`` (where ``enable[p]``) does ``acc[select[p], p] +=
        weights[p] * activations[select[p]]`` in FP16; ``activations`` are the (up to four)
        values the controller broadcasts."""
        w = half(weights, "VPU weights")
        act = half(activations, "VPU activations")
        sel = np.asarray(select, dtype=np.int64)
        if w.shape != (self.n,) or sel.shape != (self.n,):
            raise SimError(f"VPU cycle: {self.n} VPUs need {self.n} weights and selects, not "
                           f"{w.shape[0] if w.ndim else w} and {sel.size}")
        if act.ndim != 1 or not 1 <= act.size <= REGISTERS:
            raise SimError(f"VPU cycle: the controller broadcasts 1..{REGISTERS} "
                           f"activations, not {act.size}")
        en = np.ones(self.n, bool) if enable is None else np.asarray(enable, bool)
        if en.any() and (sel[en].min() < 0 or sel[en].max() >= act.size):
            raise SimError(f"VPU cycle: a select is outside 0..{act.size - 1}")
        lanes = np.flatnonzero(en)
        regs = sel[lanes]
        self.acc[regs, lanes] = mac(self.acc[regs, lanes], w[lanes], act[regs],
                                    counter=counter)
        self.cycles += 1
        self.busy += lanes.size
