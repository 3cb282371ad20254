"""The functional semantics of the base family: one definition per instruction.

``bind(ins, U, S, dt, counter)`` returns a closure that executes the instruction on the
unified memory ``U`` and the synapse memory ``S`` (numpy arrays of raw words, reached
directly as DMI would) with the number format ``dt`` (:mod:`isa.dtypes`, where rounding,
saturation and accumulation are defined). The simulator adds time and energy around these
closures; the RTL test benches use them as the predictor (STYLE.md item 6).

Matrix layout: ``W`` at ``syn`` is ``rows x cols``, row-major; the column window
``[off, cols)`` is what FF/BP/WU see. The virtual-update block after ``W`` holds
``Lambda`` (1 word), ``o0`` (rows) and ``E`` (rows) -- see :mod:`isa.table`. The VU chip's
``bp.vu``/``bp_wu.vu`` address the E of the layer below (``cols-off`` words), which ends where
their own ``W`` starts (``syn + cols - off``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from rlaccel.isa.encoding import Instruction
from rlaccel.isa.expr import compile_expr
from rlaccel.isa.immediate import raw_from_imm
from rlaccel.isa.table import ENUMS, FAMILY_FILES

__all__ = ["bind", "MATRIX", "E_MERGED", "SCALAR", "BRANCHES", "vu_block", "vu_words",
           "half_square",
           "branch_rule"]

ACT = ENUMS["act"]
#: the virtual-update block after a weight matrix (``isa/base.toml``'s shape VU_BLOCK)
_VU_WORDS = compile_expr(FAMILY_FILES["base"].shapes["VU_BLOCK"])

#: mnemonics executed by the datapath (matrix and VU instructions)
MATRIX = frozenset({"ff", "ff.mov", "bp", "wu", "bp_wu", "bp.vu", "bp_wu.vu", "vu.init",
                    "vu.step", "vu.commit"})
#: the virtual-update chip's modes of BP and BP_WU: E accumulated in the same pass
E_MERGED = frozenset({"bp.vu", "bp_wu.vu"})
#: mnemonics executed by the scalar unit
SCALAR = frozenset({"sca.add", "sca.sub", "sca.mul", "sca.mac", "sca.sqh", "sca.cmp",
                    "sca.mov", "sca.li", "sca.td", "sca.max", "sca.min"})


#: conditional branches of the controller
BRANCHES = frozenset({"cc.blt", "cc.bge", "cc.bsqlt", "cc.bz", "cc.bnz"})


def vu_words(rows: int) -> int:
    """Words of the virtual-update block after a matrix of ``rows`` rows (the ISA table's
    ``VU_BLOCK``: Lambda, o0 and E)."""
    return _VU_WORDS({"rows": rows})


def half_square(dt, counter=None) -> Callable:
    """``a -> a*a/2`` in the number format: the cost e^2/2 of Fig. 2 (``sca.sqh``, and the
    check of ``cc.bsqlt``)."""
    half = dt.quantize(0.5)
    return lambda a: dt.mul(dt.mul(a, a, counter=counter), half, counter=counter)


def vu_block(syn: int, rows: int, cols: int) -> tuple[int, int, int]:
    """Addresses of Lambda, o0 and E in the VU block after a rows x cols matrix at syn."""
    lam = syn + rows * cols
    return lam, lam + 1, lam + 1 + rows


def _matrix(S, syn, rows, cols, off):
    W = S[syn:syn + rows * cols].reshape(rows, cols)
    return W[:, off:] if off else W


def bind(ins: Instruction, U: np.ndarray, S: np.ndarray, dt, counter=None) -> Callable[[], None]:
    """The executable semantics of one datapath or scalar instruction."""
    o = ins.operands
    mn = ins.mnemonic
    c = counter
    if mn == "ff.mov":
        n = o["cols"]
        src, dst = U[o["src"]:o["src"] + n], U[o["dst"]:o["dst"] + n]

        def mov():
            dst[:] = src.copy()
        return mov
    if mn in MATRIX:
        rows, cols = o["rows"], o["cols"]
        off = o.get("off", 0)
        n = cols - off
        act = ACT[o.get("act", 0)]
        syn = o["syn"]
        merged = mn in E_MERGED
        Eb = S[syn:syn + n] if merged else None      # E of the layer below (eq. 23)
        W = _matrix(S, syn + n if merged else syn, rows, cols, off)
        if mn == "ff":
            src, dst = U[o["src"]:o["src"] + n], U[o["dst"]:o["dst"] + rows]

            def ff():
                dst[:] = dt.activate(act, dt.matvec(W, src, counter=c), counter=c)
            return ff
        if mn in ("bp", "bp_wu", "bp.vu", "bp_wu.vu"):
            g, x = U[o["src"]:o["src"] + rows], U[o["dst"]:o["dst"] + n]
            update = mn in ("bp_wu", "bp_wu.vu")

            def bp():
                xin = x.copy()
                e = dt.rmatvec(W, g, counter=c)          # with the weights before the update
                if update:
                    W[:] = dt.sub(W, dt.outer(g, xin, counter=c), counter=c)
                x[:] = e if act == "none" else dt.mul(dt.derivative(act, xin, counter=c), e,
                                                      counter=c)
                if merged:
                    Eb[:] = dt.sub(Eb, x, counter=c)     # eq. 23 (E accumulates -eps)
            return bp
        if mn == "wu":
            g, x = U[o["src"]:o["src"] + rows], U[o["dst"]:o["dst"] + n]

            def wu():
                W[:] = dt.sub(W, dt.outer(g, x, counter=c), counter=c)
            return wu
        lam_a, o0_a, e_a = vu_block(syn, rows, cols)
        lam, o0, E = S[lam_a:lam_a + 1], S[o0_a:o0_a + rows], S[e_a:e_a + rows]
        if mn == "vu.init":
            p, dst = U[o["src"]:o["src"] + cols], U[o["dst"]:o["dst"] + rows]
            zero = np.zeros(rows, dtype=S.dtype)

            def vu_init():
                o0[:] = dt.matvec(W, p, counter=c)           # eq. 22
                lam[0] = dt.sumsq(p, counter=c)              # eq. 20
                E[:] = zero
                dst[:] = dt.activate(act, o0, counter=c)
            return vu_init
        if mn == "vu.step":
            dst = U[o["dst"]:o["dst"] + rows]

            def vu_step():                                   # eq. 21
                dst[:] = dt.activate(act, dt.add(o0, dt.mul(E, lam[0], counter=c), counter=c),
                                     counter=c)
            return vu_step
        if mn == "vu.commit":
            p = U[o["src"]:o["src"] + cols]

            def vu_commit():                                 # eq. 24
                W[:] = dt.add(W, dt.outer(E, p, counter=c), counter=c)
            return vu_commit
    if mn in SCALAR:
        return _scalar(mn, o, U, dt, c)
    raise KeyError(f"no functional semantics for '{mn}' in the base-family simulator")


def _scalar(mn, o, U, dt, c):
    d = o["dst"]
    dst = U[d:d + 1]

    def cell(name):
        a = o[name]
        return U[a:a + 1]

    if mn == "sca.li":
        value = raw_from_imm(dt, o["imm"])

        def li():
            dst[0] = value
        return li
    a = cell("a")
    if mn == "sca.mov":
        def mov():
            dst[:] = a
        return mov
    if mn == "sca.sqh":
        square = half_square(dt, c)

        def sqh():                                           # a*a/2, the cost of Fig. 2
            dst[:] = square(a)
        return sqh
    b = cell("b")
    if mn == "sca.add":
        def add():
            dst[:] = dt.add(a, b, counter=c)
        return add
    if mn == "sca.sub":
        def sub():
            dst[:] = dt.sub(a, b, counter=c)
        return sub
    if mn == "sca.mul":
        def mul():
            dst[:] = dt.mul(a, b, counter=c)
        return mul
    if mn in ("sca.max", "sca.min"):
        pick = np.maximum if mn == "sca.max" else np.minimum

        def extreme():
            dst[:] = pick(a, b)
        return extreme
    if mn == "sca.cmp":
        one, zero, minus = dt.quantize(1.0), dt.quantize(0.0), dt.quantize(-1.0)

        def cmp():
            dst[0] = one if a[0] > b[0] else (zero if a[0] == b[0] else minus)
        return cmp
    cc = cell("c")
    if mn == "sca.mac":
        def mac():
            dst[:] = dt.add(cc, dt.mul(a, b, counter=c), counter=c)
        return mac
    dd = cell("d")
    if mn == "sca.td":
        def td():                                            # d*a - b + c (eq. 4, Si & Wang form)
            dst[:] = dt.add(dt.sub(dt.mul(dd, a, counter=c), b, counter=c), cc, counter=c)
        return td
    raise KeyError(mn)  # pragma: no cover - SCALAR lists exactly the cases above


def branch_rule(ins: Instruction, U: np.ndarray, dt, counter=None) -> Callable[[], bool]:
    """Whether a conditional branch is taken, as a callable on the unified memory ``U``."""
    o, mn = ins.operands, ins.mnemonic
    a = o["a"]
    if mn == "cc.bnz" or mn == "cc.bz":
        zero = dt.quantize(0.0)
        if mn == "cc.bnz":
            return lambda: U[a] != zero
        return lambda: U[a] == zero
    b = o["b"]
    if mn == "cc.blt":
        return lambda: U[a] < U[b]
    if mn == "cc.bge":
        return lambda: U[a] >= U[b]
    if mn == "cc.bsqlt":
        square = half_square(dt, counter)
        return lambda: square(U[a]) < U[b]
    raise KeyError(mn)  # pragma: no cover - BRANCHES lists exactly the cases above
