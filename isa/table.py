"""The ISA table: every instruction of every family, declared once.

Everything else derives from this module: the encoder and decoder (:mod:`isa.encoding`), the
assembler's operand checks, the disassembler, the generated reference (``rlaccel isa
--markdown``) and, later, the MyHDL decoder and the simulator's dispatch.

* ``OPCODES``: major opcode numbers, fixed across architectures (the opcode field is as wide
  as the largest opcode of the families an architecture implements).
* ``FORMATS``: field sequences packed from the least significant bit, after the opcode.
  A field's *kind* names how wide it is on an architecture (:func:`isa.arch.derive`) or, for
  the kinds in ``FIXED_WIDTHS``, a constant width.
* ``TABLE``: one :class:`OpDef` per mnemonic. ``fixed`` fields (``funct``, ``mode``) select the
  mnemonic within its major opcode; ``operands`` are what a program writes; format fields that
  are neither are reserved and must be zero. ``reads``/``writes`` give each address operand's
  extent in words as an expression of the operands: the assembler checks the whole range lies
  inside its memory and the simulator uses the same ranges for hazard checks.

The virtual-update (VU) state of a layer lives in synapse memory right after its weight matrix
``W`` (``rows*cols`` words at ``syn``): ``Lambda`` (1 word), ``o0`` (rows), ``E`` (rows) —
seed 001, section IV-B ("they can be stored conveniently in the synapse memory").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from .dtypes.activations import ACTIVATIONS
from .errors import IsaError
from .expr import compile_expr, names_in

__all__ = ["OPCODES", "OPCODE_FAMILY", "FORMATS", "FIXED_WIDTHS", "KIND_DOC", "ENUMS",
           "OpDef", "TABLE", "FAMILIES", "IMPLEMENTED", "VU_BLOCK", "validate", "op"]

FAMILIES = ("base", "ddpg", "marl", "sparse", "hdc")

#: major opcode -> (number, family)
_MAJOR = [
    ("FF", "base"), ("BP", "base"), ("WU", "base"), ("BP_WU", "base"), ("VU", "base"),
    ("SCA", "base"), ("CC", "base"),
    ("BMM", "ddpg"), ("ADAM", "ddpg"), ("RNG", "ddpg"), ("QAT", "ddpg"), ("SOFT", "ddpg"),
    ("VEC", "ddpg"),
    ("COMM", "marl"),
    ("SPG", "sparse"), ("OSEL", "sparse"), ("SMM", "sparse"),
    ("HENC", "hdc"), ("HSIM", "hdc"), ("HSEL", "hdc"), ("HCACHE", "hdc"), ("HRED", "hdc"),
]
OPCODES: Mapping[str, int] = MappingProxyType({name: i for i, (name, _) in enumerate(_MAJOR)})
OPCODE_FAMILY: Mapping[str, str] = MappingProxyType(dict(_MAJOR))

#: symbolic values of enumerated kinds (the index is the encoding); the activations are
#: the number formats' own list
ENUMS: Mapping[str, tuple[str, ...]] = MappingProxyType({"act": tuple(ACTIVATIONS)})

#: field kinds with a width that does not depend on the architecture (an enumerated kind is
#: as wide as its largest index)
FIXED_WIDTHS: Mapping[str, int] = MappingProxyType({
    "funct": 4, "mode": 2, "u4": 4, "u6": 6, "u8": 8, "u16": 16,
    **{kind: max(len(values) - 1, 1).bit_length() for kind, values in ENUMS.items()},
})

KIND_DOC: Mapping[str, str] = MappingProxyType({
    "op": "major opcode",
    "uaddr": "word address in the unified space (neuron memory, then buffers)",
    "saddr": "word address in synapse memory",
    "srm": "word address in the sparse row memory",
    "dim": "vector length / matrix rows or columns, 1..neuron_words (stored minus one)",
    "count": "offset, 0..neuron_words-1",
    "pc": "instruction index (a label)",
    "word": "one data word in the architecture's number format",
    "ctr": "loop counter number",
    "limit": "loop limit",
    "batch": "vectors in a batch, 1..max_batch (stored minus one)",
    "vlen": "region length in synapse words, 1..synapse_words (stored minus one)",
    "agent": "agent number on the ring",
    "group": "number of groups, 1..max_groups (stored minus one)",
    "hvdim": "hypervector length, 1..hv_dim (stored minus one)",
    "funct": "function within the major opcode",
    "act": f"activation: {', '.join(ACTIVATIONS)} (none bypasses the activate stage; bsig is "
           f"tanh(v/2))",
    "mode": "mode within the major opcode",
    "u4": "4-bit unsigned", "u6": "6-bit unsigned", "u8": "8-bit unsigned",
    "u16": "16-bit unsigned",
})

#: format name -> ((field, kind), ...), packed LSB-first after the opcode field
FORMATS: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType({
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
    # ddpg
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
    # marl
    "RC": (("funct", "funct"), ("src", "uaddr"), ("dst", "uaddr"), ("n", "dim"),
           ("peer", "agent")),
    # sparse
    "SG": (("funct", "funct"), ("syn", "saddr"), ("src", "uaddr"), ("dst", "uaddr"),
           ("rows", "dim"), ("cols", "dim"), ("groups", "group")),
    "OS": (("syn", "saddr"), ("idx", "uaddr"), ("srm", "srm"), ("rows", "dim"),
           ("cols", "dim"), ("groups", "group")),
    "SM": (("funct", "funct"), ("src", "uaddr"), ("srm", "srm"), ("dst", "uaddr"),
           ("rows", "dim"), ("cols", "dim"), ("act", "act")),
    # hdc
    "HE": (("src", "uaddr"), ("syn", "saddr"), ("dst", "uaddr"), ("n", "dim"), ("d", "hvdim")),
    "HS": (("funct", "funct"), ("src", "uaddr"), ("syn", "saddr"), ("dst", "uaddr"),
           ("n", "dim"), ("d", "hvdim"), ("chunk", "hvdim")),
    "HL": (("funct", "funct"), ("src", "uaddr"), ("dst", "uaddr"), ("mask", "uaddr"),
           ("n", "dim")),
    "HC": (("funct", "funct"), ("src", "uaddr"), ("syn", "saddr"), ("aux", "saddr"),
           ("n", "dim"), ("d", "hvdim")),
    "HR": (("src", "uaddr"), ("dst", "uaddr"), ("d", "hvdim"), ("peer", "agent")),
})

#: words of the virtual-update block after a weight matrix (Lambda, o0, E)
VU_BLOCK = "2*rows+1"


@dataclass(frozen=True)
class OpDef:
    """One instruction: its mnemonic, family, encoding selectors, operands and semantics."""

    mnemonic: str
    major: str
    format: str
    operands: tuple[str, ...]
    semantics: str
    fixed: Mapping[str, int] = field(default_factory=dict)
    defaults: Mapping[str, int | str] = field(default_factory=dict)
    reads: Mapping[str, str] = field(default_factory=dict)
    writes: Mapping[str, str] = field(default_factory=dict)

    @property
    def family(self) -> str:
        return OPCODE_FAMILY[self.major]

    @property
    def opcode(self) -> int:
        return OPCODES[self.major]

    @property
    def fields(self) -> tuple[tuple[str, str], ...]:
        return FORMATS[self.format]

    def kind(self, operand: str) -> str:
        return dict(self.fields)[operand]


def op(mnemonic: str, major: str, fmt: str, operands: str, semantics: str, *,
        fixed: Mapping[str, int] | None = None, reads: Mapping[str, str] | None = None,
        writes: Mapping[str, str] | None = None) -> OpDef:
    names, defaults = [], {}
    for word in operands.split():
        name, _, default = word.partition("=")
        names.append(name)
        if default:
            defaults[name] = int(default) if default.lstrip("-").isdigit() else default
    return OpDef(mnemonic, major, fmt, tuple(names), semantics,
                 MappingProxyType(dict(fixed or {})), MappingProxyType(defaults),
                 MappingProxyType(dict(reads or {})), MappingProxyType(dict(writes or {})))


W = "rows*cols"
WVU = f"rows*cols+{VU_BLOCK}"

_ENTRIES = [
    # ---- base: matrix instructions (seed 001, Fig. 6; equations 5-13) ----
    op("ff", "FF", "M", "src syn dst rows cols off=0 act=none",
        "Forward: dst[i] = act(sum_k W[i,off+k]*src[k]) for i < rows, k < cols-off; "
        "W at syn is rows x cols, row-major; act=none bypasses the activate stage.",
        fixed={"mode": 0}, reads={"src": "cols-off", "syn": W}, writes={"dst": "rows"}),
    op("bp", "BP", "M", "src syn dst rows cols off=0 act=none",
        "Back-propagate: dst holds the layer input x on entry; dst[k] = act'(x[k]) * "
        "sum_i W[i,off+k]*src[i] on exit (act' from the activation output x; none gives 1).",
        fixed={"mode": 0}, reads={"src": "rows", "syn": W, "dst": "cols-off"},
        writes={"dst": "cols-off"}),
    op("wu", "WU", "M", "src syn dst rows cols off=0",
        "Weight update: W[i,off+k] -= src[i]*dst[k] (src: error already scaled by the "
        "learning rate, dst: the layer input x, read only).",
        fixed={"mode": 0}, reads={"src": "rows", "dst": "cols-off", "syn": W}, writes={"syn": W}),
    op("wu.vu", "WU", "M", "src syn rows cols",
        "Virtual update accumulate (eq. 23): E[i] -= src[i] in the VU block after W; "
        "W itself is not written.",
        fixed={"mode": 1}, reads={"src": "rows", "syn": WVU}, writes={"syn": WVU}),
    op("bp_wu", "BP_WU", "M", "src syn dst rows cols off=0 act=none",
        "bp and wu in one pass, each W row read once (BP and WU on alternate cycles): "
        "x = dst on entry; dst[k] = act'(x[k])*sum_i W[i,off+k]*src[i]; W[i,off+k] -= src[i]*x[k].",
        fixed={"mode": 0}, reads={"src": "rows", "syn": W, "dst": "cols-off"},
        writes={"dst": "cols-off", "syn": W}),
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
    # ---- marl (MADDPG on CPU-FPGA, seed 003) ----
    op("send", "COMM", "RC", "src n", "Send src[0:n] to the next agent on the ring.",
        fixed={"funct": 0}, reads={"src": "n"}),
    op("recv", "COMM", "RC", "dst n", "Receive n words from the previous agent into dst.",
        fixed={"funct": 1}, writes={"dst": "n"}),
    op("allgather", "COMM", "RC", "src dst n",
        "All-gather: dst[a*n:(a+1)*n] = src[0:n] of agent a, for every agent.",
        fixed={"funct": 2}, reads={"src": "n"}),
    op("barrier", "COMM", "RC", "", "Wait until every agent reaches its barrier.",
        fixed={"funct": 3}),
    op("sel", "COMM", "RC", "peer",
        "Select agent peer's learner pipeline for the following instructions.",
        fixed={"funct": 4}),
    # ---- sparse (LearningGroup, seed 000) ----
    op("gmax.row", "SPG", "SG", "syn dst rows cols groups",
        "dst[i] = argmax_g G[i,g] over the rows x groups grouping matrix at syn (cols unused "
        "by the index, the matrix being grouped has cols columns).", fixed={"funct": 0},
        reads={"syn": "rows*groups"}, writes={"dst": "rows"}),
    op("gmax.col", "SPG", "SG", "syn dst rows cols groups",
        "dst[j] = argmax_g G[g,j] over the groups x cols grouping matrix at syn.",
        fixed={"funct": 1}, reads={"syn": "groups*cols"}, writes={"dst": "cols"}),
    op("gupd", "SPG", "SG", "syn src rows cols groups",
        "Grouping-matrix update: G -= the gradient at src (rows x groups).",
        fixed={"funct": 2}, reads={"src": "rows*groups"}, writes={"syn": "rows*groups"}),
    op("osel", "OSEL", "OS", "syn idx srm rows cols groups",
        "OSEL encode: keep W[i,j] where the row group idx[i] equals the column group "
        "idx[rows+j]; pack the kept weights row by row into the sparse row memory at srm.",
        reads={"syn": W, "idx": "rows+cols"}),
    op("sff", "SMM", "SM", "src srm dst rows cols act=none",
        "Sparse forward through the sparse row memory: dst[i] = act(sum over kept (i,j) of "
        "W[i,j]*src[j]).", fixed={"funct": 0}, reads={"src": "cols"}, writes={"dst": "rows"}),
    op("sbp", "SMM", "SM", "src srm dst rows cols act=none",
        "Sparse back-propagation: dst[j] = act'(dst[j]) * sum over kept (i,j) of W[i,j]*src[i].",
        fixed={"funct": 1}, reads={"src": "rows", "dst": "cols"}, writes={"dst": "cols"}),
    op("swu", "SMM", "SM", "src srm dst rows cols",
        "Sparse weight update: kept W[i,j] -= src[i]*dst[j].", fixed={"funct": 2},
        reads={"src": "rows", "dst": "cols"}),
    # ---- hdc (DARL, seed 004) ----
    op("henc", "HENC", "HE", "src syn dst n d",
        "Encode n state features into a d-wide hypervector: position matrix and cos/sin "
        "codebook at syn; dst[0:d] = cos(P*src) * sin(P*src) elementwise.",
        reads={"src": "n"}, writes={"dst": "d"}),
    op("hsim", "HSIM", "HS", "src syn dst n d chunk",
        "Chunked similarity regression against Q: dst[a] = <Q[a], src> / d for n actions, "
        "chunk elements per pass.", fixed={"funct": 0}, reads={"src": "d", "syn": "n*d"},
        writes={"dst": "n"}),
    op("hsim.t", "HSIM", "HS", "src syn dst n d chunk",
        "As hsim, against the target model Q'.", fixed={"funct": 1},
        reads={"src": "d", "syn": "n*d"}, writes={"dst": "n"}),
    op("hsel.argmax", "HSEL", "HL", "src dst n", "dst[0] = argmax_a src[a].",
        fixed={"funct": 0}, reads={"src": "n"}, writes={"dst": "1"}),
    op("hsel.mask", "HSEL", "HL", "src dst mask n",
        "dst[0] = sum_a mask[a]*src[a] (q_pred or q_true selected by the action mask).",
        fixed={"funct": 1}, reads={"src": "n", "mask": "n"}, writes={"dst": "1"}),
    op("hpush", "HCACHE", "HC", "src syn n d",
        "Push an update (hypervector src scaled by the error at syn) into the delayed update "
        "cache.", fixed={"funct": 0}, reads={"src": "d"}),
    op("hcommit", "HCACHE", "HC", "syn n d",
        "Commit the update cache into the model Q at syn.", fixed={"funct": 1},
        writes={"syn": "n*d"}),
    op("hsync", "HCACHE", "HC", "syn aux n d", "Q' (at aux) <- Q (at syn).",
        fixed={"funct": 2}, reads={"syn": "n*d"}, writes={"aux": "n*d"}),
    op("hallreduce", "HRED", "HR", "src dst d",
        "Butterfly all-reduce: dst[0:d] = sum over agents of src[0:d].",
        reads={"src": "d"}, writes={"dst": "d"}),
]

TABLE: Mapping[str, OpDef] = MappingProxyType({e.mnemonic: e for e in _ENTRIES})

#: families whose semantics the simulator implements today
IMPLEMENTED = frozenset({"base"})


def validate(entries: list[OpDef]) -> None:
    """Checks that need no architecture: names unique, selectors unique, operands exist.

    (Per-architecture checks -- fields inside the word, no overlapping bits -- are made by
    :class:`isa.encoding.Encoding` when it lays the formats out.)
    """
    seen: set[str] = set()
    dup = [e.mnemonic for e in entries if e.mnemonic in seen or seen.add(e.mnemonic)]
    if dup:
        raise IsaError(f"ISA table: duplicate mnemonic(s) {', '.join(dup)}")
    selectors: dict[tuple, str] = {}
    for e in entries:
        if e.major not in OPCODES:
            raise IsaError(f"ISA table: {e.mnemonic}: unknown major opcode {e.major}")
        names = [n for n, _ in e.fields]
        if len(set(names)) != len(names):
            raise IsaError(f"ISA table: format {e.format} repeats a field")
        for name in (*e.operands, *e.fixed):
            if name not in names:
                raise IsaError(f"ISA table: {e.mnemonic}: '{name}' is not a field of "
                               f"format {e.format}")
        if set(e.operands) & set(e.fixed):
            raise IsaError(f"ISA table: {e.mnemonic}: a field is both operand and fixed")
        for space in (e.reads, e.writes):
            for name, extent in space.items():
                if name not in e.operands:
                    raise IsaError(f"ISA table: {e.mnemonic}: extent of non-operand '{name}'")
                unknown = names_in(extent) - set(e.operands)
                if unknown:
                    raise IsaError(f"ISA table: {e.mnemonic}: extent '{extent}' names "
                                   f"{', '.join(sorted(unknown))}")
                compile_expr(extent)
        for name, value in e.fixed.items():
            width = FIXED_WIDTHS.get(dict(e.fields)[name])
            if width is None or not 0 <= value < (1 << width):
                raise IsaError(f"ISA table: {e.mnemonic}: fixed {name}={value} does not fit")
        key = (e.major, tuple(sorted(e.fixed.items())))
        if key in selectors:
            raise IsaError(f"ISA table: {e.mnemonic} and {selectors[key]} share opcode "
                           f"{e.major} with the same selectors {dict(e.fixed)}")
        selectors[key] = e.mnemonic
    by_major: dict[str, set] = {}
    for e in entries:
        by_major.setdefault(e.major, set()).add(tuple(sorted(e.fixed)))
    for major, keysets in by_major.items():
        if len(keysets) > 1:
            raise IsaError(f"ISA table: entries of {major} select on different fields {keysets}")


validate(_ENTRIES)
