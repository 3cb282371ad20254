"""ISA rows of the ddpg family (FIXAR, the FIXAR paper): batched matrix operations on the AAP cores,
the Adam unit, the soft update and weight loads, the PRNG, quantisation-aware training and the
activation unit's vector operations.

Owned by the family: its major opcodes (numbered from ``FIRST_OPCODE``), its formats and one
:func:`~rlaccel.isa.rows.op` row per mnemonic. :mod:`rlaccel.isa.table` assembles the
families into the one table everything derives from. ``machines/fixar/README.md`` section
12 is the specification; the instruction models are in ``machines/fixar/tlm/models.py``.

Conventions:

* A batch operand is ``batch`` rows of a buffer in the unified space, row ``b`` at ``addr +
  b * stride``; so the critic's input rows ``[s | a]`` and the actor's ``s`` are the same rows
  read with different ``cols``, and the actor writes ``mu(s)`` into the action columns.
* A layer at ``syn`` is ``W`` (``rows x cols``, row-major) followed by its ``rows`` biases
  (``machines/fixar/network.py``'s layout). Weights, target weights, gradients and the Adam
  moments are regions of the synapse space (the paper's weight and gradient memories and the
  memories machines/fixar/README.md section 13 adds for targets and moments).
* ``qid`` names the QAT slot of a layer input (Algorithm 1 keeps one range per layer input
  per network): before ``qat.freeze``, a forward with ``mon=1`` folds its inputs into the
  slot's min/max; after it, every read of that input goes through the slot's quantiser, so
  forward, the ReLU mask of back-propagation and the weight gradient all see the 16-bit codes.
"""

from __future__ import annotations

from rlaccel.isa.rows import WB, batch_rows, op

#: six majors, as before phase B (so the later families' opcodes keep their numbers); every
#: format starts with ``funct``, which selects the mnemonic inside its major
#: the number of the first major opcode; the others follow in order (the numbers are
#: the encoding: they never change once binaries exist, and no two families share one)
FIRST_OPCODE = 7
MAJORS = ('BMM', 'ADAM', 'RNG', 'QAT', 'SOFT', 'VEC')

FORMATS = {
    "DFF": (("funct", "funct"), ("src", "uaddr"), ("sstride", "dim"), ("syn", "saddr"),
           ("dst", "uaddr"), ("dstride", "dim"), ("rows", "dim"), ("cols", "dim"),
           ("batch", "batch"), ("act", "act"), ("qid", "u4"), ("mon", "u4")),
    "DBP": (("funct", "funct"), ("err", "uaddr"), ("estride", "dim"), ("syn", "saddr"),
           ("dst", "uaddr"), ("dstride", "dim"), ("rows", "dim"), ("cols", "dim"),
           ("off", "count"), ("batch", "batch"), ("act", "act"), ("mask", "uaddr"),
           ("mstride", "dim"), ("qid", "u4")),
    "DWG": (("funct", "funct"), ("err", "uaddr"), ("estride", "dim"), ("x", "uaddr"),
           ("xstride", "dim"), ("grad", "saddr"), ("rows", "dim"), ("cols", "dim"),
           ("batch", "batch"), ("qid", "u4")),
    "DAD": (("funct", "funct"), ("w", "saddr"), ("g", "saddr"), ("m", "saddr"), ("n", "vlen"),
           ("hp", "uaddr")),
    "DRN": (("funct", "funct"), ("dst", "uaddr"), ("src", "uaddr"), ("n", "dim"),
           ("sigma", "uaddr"), ("stream", "u8")),
    "DQ": (("funct", "funct"), ("bits", "u6")),
    "DSF": (("funct", "funct"), ("dst", "saddr"), ("src", "saddr"), ("ld", "uaddr"),
           ("n", "vlen"), ("tau", "uaddr")),
    "DVE": (("funct", "funct"), ("dst", "uaddr"), ("dstride", "dim"), ("src", "uaddr"),
           ("sstride", "dim"), ("z", "uaddr"), ("cols", "dim"), ("batch", "batch"),
           ("act", "act"), ("neg", "u4"), ("value", "word")),
}


HP_WORDS = 7                   # Adam's block: lr*c1, c2, b1, 1-b1, b2, 1-b2, eps (float32)

ENTRIES = [
    # ---- ddpg: the AAP cores (the FIXAR paper, section V-B) ----
    op("bff", "BMM", "DFF", "src sstride syn dst dstride rows cols batch act=none qid=0 mon=0",
        "Batched forward (intra-layer parallelism): dst[b] = act(W x_b + bias) for b < batch, "
        "x_b = src[b][0:cols] read through QAT slot qid (mon=1: fold it into the slot's range "
        "before qat.freeze); exact sum, one rounding to fixed32.",
        fixed={"funct": 0}, reads={"src": batch_rows("sstride", "cols"), "syn": WB},
        writes={"dst": batch_rows("dstride", "rows")}),
    op("bbp", "BMM", "DBP",
        "err estride syn dst dstride rows cols batch off=0 act=none mask=0 mstride=1 qid=0",
        "Batched back-propagation (intra-batch parallelism): dst[b][j] = [mask[b][j] > 0] * "
        "sum_i W[i, off+j] err[b][i] for j < cols (act=relu: the mask is the layer input as "
        "stored, through slot qid; act=none: no mask).",
        fixed={"funct": 1}, reads={"err": batch_rows("estride", "rows"), "syn": "rows*(off+cols)",
                                   "mask": batch_rows("mstride", "cols")},
        writes={"dst": batch_rows("dstride", "cols")}),
    op("bwg", "BMM", "DWG", "err estride x xstride grad rows cols batch qid=0",
        "Batched weight gradient: G = sum_b err[b] x_b^T (rows x cols), then the bias "
        "gradient sum_b err[b], at grad in gradient memory (x_b through slot qid).",
        fixed={"funct": 2}, reads={"err": batch_rows("estride", "rows"),
                                   "x": batch_rows("xstride", "cols")},
        writes={"grad": WB}),
    # ---- ddpg: the Adam unit, local to the weight memory (the FIXAR paper, section III) ----
    op("adam", "ADAM", "DAD", "w g m n hp",
        "Adam on n weights at w with the gradients at g; float32 moments m[0:n] and v = "
        "m[n:2n]; hp = [lr*c1, c2, b1, 1-b1, b2, 1-b2, eps] as float32 words (the host folds "
        "the bias corrections into lr*c1 and c2 each step).",
        fixed={"funct": 0}, reads={"w": "n", "g": "n", "m": "2*n", "hp": str(HP_WORDS)},
        writes={"w": "n", "m": "2*n"}),
    # ---- ddpg: the PRNG (the FIXAR paper, section III) ----
    op("noise", "RNG", "DRN", "dst src n sigma stream=1",
        "dst[i] = src[i] + sigma * g_i, g the stream's q16.16 Gaussians (12-term CLT of "
        "xorshift32 lanes), sigma the word at sigma.",
        fixed={"funct": 0}, reads={"src": "n", "sigma": "1"}, writes={"dst": "n"}),
    op("rng.seed", "RNG", "DRN", "src stream=1",
        "Reseed a PRNG stream from the 64-bit seed in src[0] (low 32 bits) and src[1] (high).",
        fixed={"funct": 1}, reads={"src": "2"}),
    # ---- ddpg: quantisation-aware training (the FIXAR paper, Algorithm 1) ----
    op("qat.freeze", "QAT", "DQ", "bits=16",
        "Algorithm 1 at t = d: every monitored slot gets its bits-bit quantiser (power-of-two "
        "step delta, zero point z) from its range; from now on its inputs are read as codes "
        "and the PEs run two 32x16 MACs a cycle.",
        fixed={"funct": 0}),
    # ---- ddpg: the soft target update (the Adam unit's second use) and weight loads ----
    op("soft", "SOFT", "DSF", "dst src n tau",
        "Soft target update: dst[i] += round(tau * (src[i] - dst[i]) / 2^24) over n synapse "
        "words, tau the word at tau holding the 24-bit fraction as an integer.",
        fixed={"funct": 0}, reads={"src": "n", "dst": "n", "tau": "1"}, writes={"dst": "n"}),
    op("ldw", "SOFT", "DSF", "dst ld n",
        "Load weights: synapse dst[0:n] = unified ld[0:n] (from the host's buffer).",
        fixed={"funct": 1}, reads={"ld": "n"}, writes={"dst": "n"}),
    # ---- ddpg: the accumulator and activation unit's vector operations ----
    op("vact", "VEC", "DVE", "dst dstride src sstride cols batch act",
        "dst[b][j] = act(src[b][j]) for j < cols, b < batch (the output activation kept apart "
        "from its pre-activation, which vdact needs).",
        fixed={"funct": 0}, reads={"src": batch_rows("sstride", "cols")},
        writes={"dst": batch_rows("dstride", "cols")}),
    op("vdact", "VEC", "DVE", "dst dstride src sstride z cols batch act neg=0",
        "dst[b][j] = (neg ? -src : src)[b][j] * act'(z[b][j]) (z rows of cols words): act' "
        "the PWL table's slope at the pre-activation, zero beyond xmax.",
        fixed={"funct": 1}, reads={"src": batch_rows("sstride", "cols"), "z": "batch*cols"},
        writes={"dst": batch_rows("dstride", "cols")}),
    op("vfill", "VEC", "DVE", "dst cols value",
        "dst[0:cols] = value.", fixed={"funct": 2}, writes={"dst": "cols"}),
    op("td", "VEC", "DVE", "dst src z batch value",
        "TD error per sample: dst[b] = q[b] - (r[b] + gamma (1 - done[b]) q2[b]) with q at src, "
        "q2 at z, (r, done) pairs after q2 (z[batch + 2b], z[batch + 2b + 1]) and gamma the "
        "immediate value.",
        fixed={"funct": 3}, reads={"src": "batch", "z": "3*batch"}, writes={"dst": "batch"}),
]
