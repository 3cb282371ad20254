"""ISA rows of the hdc family (DARL, seed 004): hypervector encoding, similarity regression,
selection, the delayed update cache and the butterfly all-reduce.

Owned by the family: its major opcodes (numbered in :data:`rlaccel.isa.table.FAMILIES` order),
its formats and one :func:`~rlaccel.isa.table.op` row per mnemonic. :mod:`rlaccel.isa.table`
assembles the families into the one table everything derives from.
"""

from __future__ import annotations

from ._rows import op

MAJORS = ('HENC', 'HSIM', 'HSEL', 'HCACHE', 'HRED')

FORMATS = {
    "HE": (("src", "uaddr"), ("syn", "saddr"), ("dst", "uaddr"), ("n", "dim"), ("d", "hvdim")),
    "HS": (("funct", "funct"), ("src", "uaddr"), ("syn", "saddr"), ("dst", "uaddr"),
           ("n", "dim"), ("d", "hvdim"), ("chunk", "hvdim")),
    "HL": (("funct", "funct"), ("src", "uaddr"), ("dst", "uaddr"), ("mask", "uaddr"),
           ("n", "dim")),
    "HC": (("funct", "funct"), ("src", "uaddr"), ("syn", "saddr"), ("aux", "saddr"),
           ("n", "dim"), ("d", "hvdim")),
    "HR": (("src", "uaddr"), ("dst", "uaddr"), ("d", "hvdim"), ("peer", "agent")),
}


ENTRIES = [
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
