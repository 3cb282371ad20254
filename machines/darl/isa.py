"""ISA rows of the hdc family (the DARL paper): hyperdimensional Q-learning -- the encoding
layer with its sin/cos codebook, the chunked regression against Q and Q', selection, the
update value, the delayed update cache and the butterfly all-reduce (``machines/darl/README.md``).

Owned by the family: its major opcodes (numbered from ``FIRST_OPCODE``), its formats and one
:func:`~rlaccel.isa.rows.op` row per mnemonic. :mod:`rlaccel.isa.table` assembles the
families into the one table everything derives from.

Where the operands live: states, values ``V``, action masks, scalars (beta, gamma, r) and
the host's words in the unified space (``uaddr``: HBM pseudo channel 0 and registers);
the position matrix ``P`` (in turns, ``n x d``), the models ``Q`` and ``Q'`` (real part
``n x d`` then imaginary part), the shard and the encoded hypervectors (``Re`` then ``Im``,
``2d``) in synapse memory (``saddr``: on-chip BRAM/URAM). ``n`` is the number of state
features (``henc``, ``hld``) or of actions (the others); ``d`` the hypervector length, a
multiple of the architecture's chunk (its ``lanes``). The chunk and the three optimisations
of Fig. 10(a) are the architecture's, not operands. The update cache is state of the
updating unit, not memory.
"""

from __future__ import annotations

from rlaccel.isa.rows import op

#: the number of the first major opcode; the others follow in order (the numbers are
#: the encoding: they never change once binaries exist, and no two families share one)
FIRST_OPCODE = 17
MAJORS = ('HENC', 'HREG', 'HSEL', 'HUPD', 'HRED')

FORMATS = {
    "HE": (("funct", "funct"), ("src", "uaddr"), ("syn", "saddr"), ("dst", "saddr"),
           ("n", "dim"), ("d", "hvdim")),
    "HG": (("funct", "funct"), ("src", "saddr"), ("syn", "saddr"), ("dst", "uaddr"),
           ("mask", "uaddr"), ("n", "dim"), ("d", "hvdim")),
    "HL": (("funct", "funct"), ("src", "uaddr"), ("dst", "uaddr"), ("mask", "uaddr"),
           ("n", "dim")),
    "HU": (("funct", "funct"), ("dst", "uaddr"), ("a", "uaddr"), ("b", "uaddr"),
           ("c", "uaddr"), ("k", "uaddr")),
    "HP": (("funct", "funct"), ("src", "saddr"), ("v", "uaddr"), ("mask", "uaddr"),
           ("syn", "saddr"), ("aux", "saddr"), ("n", "dim"), ("d", "hvdim")),
    "HR": (("funct", "funct"), ("src", "saddr"), ("syn", "saddr"), ("aux", "saddr"),
           ("n", "dim"), ("d", "hvdim"), ("avg", "u4")),
}

_Q = "2*n*d"          # a model (or the shard): real part n x d, then the imaginary part

ENTRIES = [
    # ---- hdc (the DARL paper) ----
    op("henc", "HENC", "HE", "src syn dst n d",
        "Encoding layer (eq. 1-6): E = P^T src (P at syn, n x d, in turns; exact sum, one "
        "rounding), then the codebook: dst[0:d] = cos(2 pi E), dst[d:2d] = sin(2 pi E).",
        fixed={"funct": 0}, reads={"src": "n", "syn": "n*d"}, writes={"dst": "2*d"}),
    op("hld", "HENC", "HE", "src syn n d",
        "Load n*d words from the unified space (HBM) into synapse memory (the position "
        "matrix): syn[0:n*d] = src[0:n*d].",
        fixed={"funct": 1}, reads={"src": "n*d"}, writes={"syn": "n*d"}),
    op("hreg", "HREG", "HG", "src syn dst mask n d",
        "Regression against Q (eq. 7-10): the pending cache updates of the rows marked in "
        "mask land on Q first (eq. 17-18), then dst[a] = (Re.QR[a] + Im.QI[a]) / d for n "
        "actions; src = Re then Im, syn = QR then QI.",
        fixed={"funct": 0}, reads={"src": "2*d", "syn": _Q, "mask": "n"},
        writes={"dst": "n", "syn": _Q}),
    op("hreg.t", "HREG", "HG", "src syn dst n d",
        "Regression against the delayed model Q' at syn (no cache): dst[a] = (Re.QR'[a] + "
        "Im.QI'[a]) / d.",
        fixed={"funct": 1}, reads={"src": "2*d", "syn": _Q}, writes={"dst": "n"}),
    op("hreg.c", "HREG", "HG", "src syn dst mask n d",
        "Regression against Q in the printed form (eq. 9): the pending cache updates of the "
        "rows marked in mask land first, then dst[a] = sum_k Re_k.QR[a,k] / (|Re_k| "
        "|QR[a,k]|) - Im_k.QI[a,k] / (|Im_k| |QI[a,k]|) over the chunks (a zero norm: 0).",
        fixed={"funct": 2}, reads={"src": "2*d", "syn": _Q, "mask": "n"},
        writes={"dst": "n", "syn": _Q}),
    op("hreg.tc", "HREG", "HG", "src syn dst n d",
        "Regression against the delayed model Q' at syn in the printed form (eq. 10, no "
        "cache): hreg.c's per-chunk cosine.",
        fixed={"funct": 3}, reads={"src": "2*d", "syn": _Q}, writes={"dst": "n"}),
    op("hsel.argmax", "HSEL", "HL", "src dst n",
        "Select, inference (eq. 11): dst[0] = argmax_a src[a] (the lowest index of ties).",
        fixed={"funct": 0}, reads={"src": "n"}, writes={"dst": "1"}),
    op("hsel.mask", "HSEL", "HL", "src dst mask n",
        "Select, training (eq. 12): dst[0] = src[a] for the action a marked in mask "
        "(q_pred).", fixed={"funct": 1}, reads={"src": "n", "mask": "n"}, writes={"dst": "1"}),
    op("hsel.max", "HSEL", "HL", "src dst n",
        "dst[0] = max_a src[a] (q_true of the next state against Q', eq. 13 as QHD computes "
        "it).", fixed={"funct": 2}, reads={"src": "n"}, writes={"dst": "1"}),
    op("hupd", "HUPD", "HU", "dst a b c k",
        "Update value (eq. 14): dst[0] = k[0] * ((c[0] + k[1] * b[0]) - a[0]), i.e. "
        "beta ((r + gamma q_true) - q_pred); every product rounded once, every step "
        "saturating.", fixed={"funct": 0},
        reads={"a": "1", "b": "1", "c": "1", "k": "2"}, writes={"dst": "1"}),
    op("hupd.p", "HUPD", "HU", "dst a b c k",
        "Update value as printed (eq. 14): dst[0] = (b[0] - a[0]) * k[0] + c[0], i.e. "
        "(q_true - q_pred) beta + r; the product rounded once, every step saturating.",
        fixed={"funct": 2}, reads={"a": "1", "b": "1", "c": "1", "k": "1"},
        writes={"dst": "1"}),
    op("hpush", "HUPD", "HP", "src v mask syn aux n d",
        "Update hypervectors (eq. 15-16): U = v[0] * (Re, Im) of src for the action marked in "
        "mask, pushed into the delayed update cache (it lands on Q when that row is next "
        "streamed with its mask bit) and added to the shard row at syn; with the delayed "
        "update switched off ([timing] delayed_update = 0) added to Q at aux at once.",
        fixed={"funct": 1}, reads={"src": "2*d", "v": "1", "mask": "n", "syn": _Q,
                                   "aux": _Q},
        writes={"syn": _Q, "aux": _Q}),
    op("hallreduce", "HRED", "HR", "src n d avg=1",
        "Butterfly all-reduce over the agents (eq. 19-22): src[0:2nd] (the shard) <- the "
        "average of every agent's src (avg=0: the sum, eq. 22's division left out), the same "
        "bits on every agent; synchronising.",
        fixed={"funct": 0}, reads={"src": _Q}, writes={"src": _Q}),
    op("hsync", "HRED", "HR", "src syn aux n d",
        "Stage end (bundled mode, section 4.1): Q' (aux) += src (the reduced shard); Q (syn) "
        "<- Q'; src <- 0; the update cache emptied.",
        fixed={"funct": 1}, reads={"src": _Q, "aux": _Q},
        writes={"src": _Q, "syn": _Q, "aux": _Q}),
]
