"""ISA rows of the ddpg family (FIXAR, seed 002): batched matrix operations, Adam, the PRNG,
quantisation-aware training control, soft target updates and vector operations.

Owned by the family: its major opcodes (numbered in :data:`rlaccel.isa.table.FAMILIES` order),
its formats and one :func:`~rlaccel.isa.table.op` row per mnemonic. :mod:`rlaccel.isa.table`
assembles the families into the one table everything derives from.
"""

from __future__ import annotations

from ._rows import op

MAJORS = ('BMM', 'ADAM', 'RNG', 'QAT', 'SOFT', 'VEC')

FORMATS = {
    "MB": (("funct", "funct"), ("src", "uaddr"), ("syn", "saddr"), ("dst", "uaddr"),
           ("rows", "dim"), ("cols", "dim"), ("batch", "batch"), ("act", "act")),
    "AD": (("w", "saddr"), ("g", "saddr"), ("m", "saddr"), ("v", "saddr"), ("n", "vlen"),
           ("hp", "uaddr")),
    "RN": (("dst", "uaddr"), ("src", "uaddr"), ("n", "dim"), ("sigma", "uaddr"),
           ("stream", "u8")),
    "Q": (("funct", "funct"), ("src", "uaddr"), ("n", "dim"), ("dst", "uaddr"),
          ("bits", "u6"), ("frac", "u6")),
    "SF": (("dst", "saddr"), ("src", "saddr"), ("n", "vlen"), ("tau", "uaddr")),
    "VE": (("funct", "funct"), ("dst", "uaddr"), ("a", "uaddr"), ("b", "uaddr"), ("n", "dim")),
}

W = "rows*cols"

ENTRIES = [
    # ---- ddpg (FIXAR, seed 002) ----
    op("bff", "BMM", "MB", "src syn dst rows cols batch act=none",
        "Batched forward over batch vectors stored back to back: "
        "dst[b,i] = act(sum_j W[i,j]*src[b,j]).",
        fixed={"funct": 0}, reads={"src": "batch*cols", "syn": W}, writes={"dst": "batch*rows"}),
    op("bbp", "BMM", "MB", "src syn dst rows cols batch act=none",
        "Batched back-propagation: dst[b,j] = act'(dst[b,j]) * sum_i W[i,j]*src[b,i].",
        fixed={"funct": 1}, reads={"src": "batch*rows", "syn": W, "dst": "batch*cols"},
        writes={"dst": "batch*cols"}),
    op("bwu", "BMM", "MB", "src syn dst rows cols batch",
        "Batched weight gradient: G[i,j] = sum_b src[b,i]*dst[b,j], written over G at syn.",
        fixed={"funct": 2}, reads={"src": "batch*rows", "dst": "batch*cols"}, writes={"syn": W}),
    op("adam", "ADAM", "AD", "w g m v n hp",
        "Adam update of n weights at w with gradients g and moments m, v; hyper-parameters "
        "(beta1, beta2, lr, eps, step) at hp.",
        reads={"w": "n", "g": "n", "m": "n", "v": "n", "hp": "5"},
        writes={"w": "n", "m": "n", "v": "n"}),
    op("noise", "RNG", "RN", "dst src n sigma stream",
        "dst[i] = src[i] + sigma * N(0,1) from PRNG stream.",
        reads={"src": "n", "sigma": "1"}, writes={"dst": "n"}),
    op("qat.prec", "QAT", "Q", "bits frac",
        "Activation precision control: following activations are rounded to a bits-wide "
        "format with frac fraction bits (quantisation-aware training).", fixed={"funct": 0}),
    op("qat.mon", "QAT", "Q", "src n dst",
        "Min/max monitor: dst[0] = min(src[0:n]), dst[1] = max(src[0:n]).", fixed={"funct": 1},
        reads={"src": "n"}, writes={"dst": "2"}),
    op("soft", "SOFT", "SF", "dst src n tau",
        "Soft target update: dst[i] = tau*src[i] + (1-tau)*dst[i] over n synapse words.",
        reads={"src": "n", "dst": "n", "tau": "1"}, writes={"dst": "n"}),
    op("vadd", "VEC", "VE", "dst a b n", "dst[i] = a[i] + b[i].", fixed={"funct": 0},
        reads={"a": "n", "b": "n"}, writes={"dst": "n"}),
    op("vsub", "VEC", "VE", "dst a b n", "dst[i] = a[i] - b[i].", fixed={"funct": 1},
        reads={"a": "n", "b": "n"}, writes={"dst": "n"}),
    op("vmul", "VEC", "VE", "dst a b n", "dst[i] = a[i] * b[i].", fixed={"funct": 2},
        reads={"a": "n", "b": "n"}, writes={"dst": "n"}),
    op("vscale", "VEC", "VE", "dst a b n", "dst[i] = a[i] * b[0] (b is a scalar).",
        fixed={"funct": 3}, reads={"a": "n", "b": "1"}, writes={"dst": "n"}),
]
