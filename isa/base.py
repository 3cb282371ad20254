"""ISA rows of the base family of every machine: the ADHDP accelerator's ISA (the ADHDP
paper, Fig. 6): matrix instructions (FF, BP, WU, BP_WU) and the virtual update (VU), the scalar
unit (SCA) and the controller (CC).

Owned by the family: its major opcodes (numbered from ``FIRST_OPCODE``), its formats and one
:func:`~rlaccel.isa.rows.op` row per mnemonic. :mod:`rlaccel.isa.table` assembles the
families into the one table everything derives from.
"""

from __future__ import annotations

from rlaccel.isa.rows import op

#: words of the virtual-update block after a weight matrix (Lambda, o0, E) -- the ADHDP paper,
#: section IV-B ("they can be stored conveniently in the synapse memory")
VU_BLOCK = "2*rows+1"

#: the number of the first major opcode; the others follow in order (the numbers are
#: the encoding: they never change once binaries exist, and no two families share one)
FIRST_OPCODE = 0
MAJORS = ('FF', 'BP', 'WU', 'BP_WU', 'VU', 'SCA', 'CC')

FORMATS = {
    "M": (("src", "uaddr"), ("syn", "saddr"), ("dst", "uaddr"), ("rows", "dim"),
          ("cols", "dim"), ("off", "count"), ("act", "act"), ("mode", "mode")),
    "S": (("funct", "funct"), ("dst", "uaddr"), ("a", "uaddr"), ("b", "uaddr"),
          ("c", "uaddr"), ("d", "uaddr")),
    "SI": (("funct", "funct"), ("dst", "uaddr"), ("imm", "word")),
    "CB": (("funct", "funct"), ("a", "uaddr"), ("b", "uaddr"), ("target", "pc")),
    "CL": (("funct", "funct"), ("ctr", "ctr"), ("limit", "limit"), ("target", "pc")),
    "CH": (("funct", "funct"), ("out", "uaddr"), ("nout", "dim"), ("inp", "uaddr"),
           ("nin", "dim")),
    "CM": (("funct", "funct"), ("id", "u8")),
}

W = "rows*cols"
WVU = f"rows*cols+{VU_BLOCK}"
#: mode 1 of BP and BP_WU (the virtual-update chip): ``syn`` addresses the E accumulator of the
#: layer below (``cols-off`` words, the end of its VU block), which this layer's W follows
EW = "cols-off+rows*cols"

ENTRIES = [
    # ---- base: matrix instructions (the ADHDP paper, Fig. 6; equations 5-13) ----
    op("ff", "FF", "M", "src syn dst rows cols off=0 act=none",
        "Forward: dst[i] = act(sum_k W[i,off+k]*src[k]) for i < rows, k < cols-off; "
        "W at syn is rows x cols, row-major; act=none bypasses the activate stage.",
        fixed={"mode": 0}, reads={"src": "cols-off", "syn": W}, writes={"dst": "rows"}),
    op("ff.mov", "FF", "M", "src dst cols",
        "Vector move through the datapath (the multiply and add stages pass the operand, the "
        "activate stage is bypassed): dst[k] = src[k] for k < cols.",
        fixed={"mode": 1}, reads={"src": "cols"}, writes={"dst": "cols"}),
    op("bp", "BP", "M", "src syn dst rows cols off=0 act=none",
        "Back-propagate: dst holds the layer input x on entry; dst[k] = act'(x[k]) * "
        "sum_i W[i,off+k]*src[i] on exit (act' from the activation output x; none gives 1).",
        fixed={"mode": 0}, reads={"src": "rows", "syn": W, "dst": "cols-off"},
        writes={"dst": "cols-off"}),
    op("wu", "WU", "M", "src syn dst rows cols off=0",
        "Weight update: W[i,off+k] -= src[i]*dst[k] (src: error already scaled by the "
        "learning rate, dst: the layer input x, read only).",
        fixed={"mode": 0}, reads={"src": "rows", "dst": "cols-off", "syn": W}, writes={"syn": W}),
    op("bp_wu", "BP_WU", "M", "src syn dst rows cols off=0 act=none",
        "bp and wu in one pass, each W row read once (BP and WU on alternate cycles): "
        "x = dst on entry; dst[k] = act'(x[k])*sum_i W[i,off+k]*src[i]; W[i,off+k] -= src[i]*x[k].",
        fixed={"mode": 0}, reads={"src": "rows", "syn": W, "dst": "cols-off"},
        writes={"dst": "cols-off", "syn": W}),
    op("bp.vu", "BP", "M", "src syn dst rows cols off=0 act=none",
        "Back-propagate with the E accumulation of the virtual update merged in (the ADHDP "
        "paper, IV-B; eq. 23): syn holds E (cols-off words, the end of the layer below's VU block) and "
        "W follows it at syn+cols-off; as bp on that W, and E[k] -= dst[k] with the result.",
        fixed={"mode": 1}, reads={"src": "rows", "syn": EW, "dst": "cols-off"},
        writes={"dst": "cols-off", "syn": "cols-off"}),
    op("bp_wu.vu", "BP_WU", "M", "src syn dst rows cols off=0 act=none",
        "bp_wu with the E accumulation merged in (the ADHDP paper, IV-B; eq. 23): syn holds E "
        "(cols-off words) and W follows it at syn+cols-off; as bp_wu on that W, and "
        "E[k] -= dst[k] with the result, in the same cycles.",
        fixed={"mode": 1}, reads={"src": "rows", "syn": EW, "dst": "cols-off"},
        writes={"dst": "cols-off", "syn": EW}),
    op("vu.init", "VU", "M", "src syn dst rows cols act=none",
        "Virtual update start (eqs. 20, 22): o0 = W*src, Lambda = sum_j src[j]^2, E = 0; "
        "dst = act(o0).",
        fixed={"mode": 0}, reads={"src": "cols", "syn": W}, writes={"dst": "rows", "syn": WVU}),
    op("vu.step", "VU", "M", "syn dst rows cols act=none",
        "Virtual forward (eq. 21): dst[i] = act(o0[i] + E[i]*Lambda).",
        fixed={"mode": 1}, reads={"syn": WVU}, writes={"dst": "rows"}),
    op("vu.commit", "VU", "M", "src syn rows cols",
        "Real update on loop exit (eq. 24): W[i,j] += E[i]*src[j]; the VU block is stale "
        "until the next vu.init.",
        fixed={"mode": 2}, reads={"src": "cols", "syn": WVU}, writes={"syn": W}),
    # ---- base: scalar unit ----
    op("sca.add", "SCA", "S", "dst a b", "dst = a + b (saturating).", fixed={"funct": 0},
        reads={"a": "1", "b": "1"}, writes={"dst": "1"}),
    op("sca.sub", "SCA", "S", "dst a b", "dst = a - b (saturating).", fixed={"funct": 1},
        reads={"a": "1", "b": "1"}, writes={"dst": "1"}),
    op("sca.mul", "SCA", "S", "dst a b", "dst = a * b (rounded, saturating).",
        fixed={"funct": 2}, reads={"a": "1", "b": "1"}, writes={"dst": "1"}),
    op("sca.mac", "SCA", "S", "dst a b c", "dst = c + a * b.", fixed={"funct": 3},
        reads={"a": "1", "b": "1", "c": "1"}, writes={"dst": "1"}),
    op("sca.sqh", "SCA", "S", "dst a", "dst = a * a / 2 (the cost e^2/2 of Fig. 2).",
        fixed={"funct": 4}, reads={"a": "1"}, writes={"dst": "1"}),
    op("sca.cmp", "SCA", "S", "dst a b", "dst = 1 if a > b, 0 if a == b, -1 if a < b.",
        fixed={"funct": 5}, reads={"a": "1", "b": "1"}, writes={"dst": "1"}),
    op("sca.mov", "SCA", "S", "dst a", "dst = a.", fixed={"funct": 6},
        reads={"a": "1"}, writes={"dst": "1"}),
    op("sca.li", "SCA", "SI", "dst imm", "dst = imm (one data word).", fixed={"funct": 7},
        writes={"dst": "1"}),
    op("sca.td", "SCA", "S", "dst a b c d",
        "Temporal difference (eq. 4, in the Si & Wang form the reference learning rule uses): "
        "dst = d*a - b + c with a = J(t), b = J(t-1), c = r(t), d = gamma.",
        fixed={"funct": 8}, reads={"a": "1", "b": "1", "c": "1", "d": "1"}, writes={"dst": "1"}),
    op("sca.max", "SCA", "S", "dst a b", "dst = max(a, b).", fixed={"funct": 9},
        reads={"a": "1", "b": "1"}, writes={"dst": "1"}),
    op("sca.min", "SCA", "S", "dst a b", "dst = min(a, b).", fixed={"funct": 10},
        reads={"a": "1", "b": "1"}, writes={"dst": "1"}),
    # ---- base: controller ----
    op("cc.jmp", "CC", "CB", "target", "Jump to target.", fixed={"funct": 0}),
    op("cc.halt", "CC", "CB", "", "Stop the machine.", fixed={"funct": 1}),
    op("cc.blt", "CC", "CB", "a b target", "Branch to target if a < b.", fixed={"funct": 2},
        reads={"a": "1", "b": "1"}),
    op("cc.bge", "CC", "CB", "a b target", "Branch to target if a >= b.", fixed={"funct": 3},
        reads={"a": "1", "b": "1"}),
    op("cc.bsqlt", "CC", "CB", "a b target",
        "Check point (Fig. 2, lines 10 and 16): branch to target if a*a/2 < b.",
        fixed={"funct": 4}, reads={"a": "1", "b": "1"}),
    op("cc.bz", "CC", "CB", "a target", "Branch to target if a == 0.", fixed={"funct": 5},
        reads={"a": "1"}),
    op("cc.bnz", "CC", "CB", "a target", "Branch to target if a != 0.", fixed={"funct": 6},
        reads={"a": "1"}),
    op("cc.lset", "CC", "CL", "ctr", "Loop counter ctr = 0.", fixed={"funct": 7}),
    op("cc.loop", "CC", "CL", "ctr limit target",
        "ctr += 1; branch to target if ctr < limit.", fixed={"funct": 8}),
    op("cc.host", "CC", "CH", "out nout inp nin",
        "Host exchange: hand out[0:nout] to the host link, wait for the environment's reply "
        "and write it to inp[0:nin].",
        fixed={"funct": 9}, reads={"out": "nout"}, writes={"inp": "nin"}),
    op("cc.mark", "CC", "CM", "id", "Profiling: region id begins.", fixed={"funct": 10}),
    op("cc.endmark", "CC", "CM", "id", "Profiling: region id ends.", fixed={"funct": 11}),
]
