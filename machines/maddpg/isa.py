"""ISA rows of the marl family (the MADDPG paper's CPU-FPGA machine): one learner per agent, each with
the compute units (CUs) of its two training pipelines, on a ring.

Owned by the family: its major opcodes (numbered from ``FIRST_OPCODE``), its formats and one
:func:`~rlaccel.isa.rows.op` row per mnemonic. :mod:`rlaccel.isa.table` assembles the
families into the one table everything derives from.

The machine is a set of dataflow pipelines (the MADDPG paper, section III-B, Fig. 4), so its main
instruction is "stream this batch through this compute unit": a learner's controller issues
one instruction per CU per batch and goes on; the CU works through the batch's samples as
their inputs become ready, one sample at a time (eq. 3, 4), so a chain of CUs is a pipeline
in simulated time. A batch operand is ``batch`` rows of a buffer in the unified space, row
``k`` at ``addr + k * stride`` (a stride of 0 reads one row for every sample). ``u`` names a
CU of the learner; its unroll factor ``F`` is set once by ``cucfg``.

* the CU streams: forward (``pfp``, ``pfpo``), back-propagation (``pbp``), weight gradient
  (``pwu``), the Gumbel-softmax head and its backward pass (``pgs``, ``pgb``), the value loss
  (``ploss``);
* per batch, on a CU's weight banks: clip a gradient tensor (``gclip``), Adam or SGD
  (``wadam``, ``wsgd``), the soft target update (``wsoft``), weights in and out (``wld``,
  ``wst``); and ``cucfg``;
* the ring: ``send``, ``recv``, ``allgather``, ``barrier`` (one vector per agent) and
  ``rgather`` (every sample's action from every learner, streamed); and ``uwait``.
"""

from __future__ import annotations

from rlaccel.isa.rows import WB, batch_rows, op

#: one major opcode: the family's rows are told apart by a 6-bit ``funct`` (the first field of
#: every format), so adding rows never renumbers the later families' opcodes
#: the number of the first major opcode; the others follow in order (the numbers are
#: the encoding: they never change once binaries exist, and no two families share one)
FIRST_OPCODE = 13
MAJORS = ('COMM',)

FORMATS = {
    "RC": (("funct", "u6"), ("src", "uaddr"), ("dst", "uaddr"), ("n", "dim"),
           ("peer", "agent")),
    "PR": (("funct", "u6"), ("a", "uaddr"), ("sa", "u16"), ("dst", "uaddr"), ("sd", "u16"),
           ("n", "dim"), ("m", "dim"), ("batch", "batch")),
    "PB": (("funct", "u6"), ("u", "u6"), ("a", "uaddr"), ("sa", "u16"), ("b", "uaddr"),
           ("sb", "u16"), ("syn", "saddr"), ("dst", "uaddr"), ("sd", "u16"), ("rows", "dim"),
           ("cols", "dim"), ("off", "count"), ("len", "dim"), ("act", "act"),
           ("batch", "batch")),
    "PH": (("funct", "u6"), ("u", "u6"), ("a", "uaddr"), ("sa", "u16"), ("b", "uaddr"),
           ("sb", "u16"), ("c", "uaddr"), ("sc", "u16"), ("k", "uaddr"), ("dst", "uaddr"),
           ("sd", "u16"), ("rows", "dim"), ("batch", "batch")),
    "UA": (("funct", "u6"), ("u", "u6"), ("dst", "saddr"), ("src", "saddr"),
           ("m", "saddr"), ("v", "saddr"), ("n", "vlen"), ("k", "uaddr")),
    "UC": (("funct", "u6"), ("u", "u6"), ("f", "u16")),
}


ENTRIES = [
    # ---- marl: the ring (the MADDPG paper, section III-A) ----
    op("send", "COMM", "RC", "src n", "Send src[0:n] to the next agent on the ring.",
        fixed={"funct": 0}, reads={"src": "n"}),
    op("recv", "COMM", "RC", "dst n", "Receive n words from the previous agent into dst.",
        fixed={"funct": 1}, writes={"dst": "n"}),
    op("allgather", "COMM", "RC", "src dst n",
        "All-gather: dst[a*n:(a+1)*n] = src[0:n] of agent a, for every agent.",
        fixed={"funct": 2}, reads={"src": "n"}, writes={"dst": "n*agents"}),
    op("barrier", "COMM", "RC", "", "Wait until every agent reaches its barrier.",
        fixed={"funct": 3}),
    op("uwait", "COMM", "RC", "",
        "Wait until every compute unit of this learner has finished its streams.",
        fixed={"funct": 4}),
    op("rgather", "COMM", "PR", "a sa dst sd n m batch",
        "Streamed all-gather over the ring, per sample k: send a[k][0:n]; dst[k][0:m] = every "
        "learner's vector of sample k in agent order (their lengths add up to m).",
        fixed={"funct": 5}, reads={"a": batch_rows("sa", "n")},
        writes={"dst": batch_rows("sd", "m")}),
    # ---- marl: compute-unit streams (MADDPG paper, III-B, IV-A: T = ceil(ID OD / F) per sample) --
    op("pfp", "COMM", "PB", "u a sa syn dst sd rows cols batch act=none",
        "Forward on CU u, per sample k: dst[k] = act(W a[k] + b), W at syn (rows x cols), "
        "b after it.",
        fixed={"funct": 8}, reads={"a": batch_rows("sa", "cols"), "syn": WB},
        writes={"dst": batch_rows("sd", "rows")}),
    op("pfpo", "COMM", "PB", "u a sa b sb syn dst sd rows cols off len batch act=none",
        "Forward with an overlaid window: x = a[k] with x[off:off+len] = b[k][0:len]; "
        "dst[k] = act(W x + b).",
        fixed={"funct": 9}, reads={"a": batch_rows("sa", "cols"), "b": batch_rows("sb", "len"),
                                   "syn": WB},
        writes={"dst": batch_rows("sd", "rows")}),
    op("pbp", "COMM", "PB", "u a sa syn dst sd rows cols len batch b=0 sb=0 off=0 act=none",
        "Back-propagate on CU u: dst[k][c] = (sum_i W[i,off+c] a[k][i]) * act'(b[k][c]) for "
        "c < len (act'=1 for none; relu' from the layer input b: 1 if b > 0, else 0).",
        fixed={"funct": 10}, reads={"a": batch_rows("sa", "rows"), "b": batch_rows("sb", "len"),
                                   "syn": "rows*cols"},
        writes={"dst": batch_rows("sd", "len")}),
    op("pwu", "COMM", "PB", "u a sa b sb syn rows cols batch",
        "Weight gradient of the batch on CU u: G = sum_k a[k] b[k]^T and g_b = sum_k a[k] "
        "(from 0, in sample order), at syn (rows x cols, then rows).",
        fixed={"funct": 11}, reads={"a": batch_rows("sa", "rows"), "b": batch_rows("sb", "cols")},
        writes={"syn": WB}),
    op("pgs", "COMM", "PH", "u a sa b sb dst sd rows batch",
        "Gumbel-softmax head: dst[k] = softmax(a[k] + b[k]) (a: logits, b: Gumbel noise).",
        fixed={"funct": 12}, reads={"a": batch_rows("sa", "rows"), "b": batch_rows("sb", "rows")},
        writes={"dst": batch_rows("sd", "rows")}),
    op("pgb", "COMM", "PH", "u a sa b sb c sc k dst sd rows batch",
        "Head backward with the regulariser: dst[k] = b[k] * (a[k] - sum(a[k] b[k])) + K c[k] "
        "(a: gradient at the head's output, b: its output, c: the logits, K the word at k).",
        fixed={"funct": 13}, reads={"a": batch_rows("sa", "rows"), "b": batch_rows("sb", "rows"),
                                   "c": batch_rows("sc", "rows"), "k": "1"},
        writes={"dst": batch_rows("sd", "rows")}),
    op("ploss", "COMM", "PH", "u a sa b sb c sc k dst sd batch",
        "Value loss (eq. 2): y = c[k][0] + (K (1 - c[k][1])) b[k]; dst[k] = (2/batch)(a[k] - y) "
        "(a: Q, b: the target Q', c: reward and done, K = gamma at k).",
        fixed={"funct": 14}, reads={"a": batch_rows("sa", "1"), "b": batch_rows("sb", "1"),
                                   "c": batch_rows("sc", "2"), "k": "1"},
        writes={"dst": batch_rows("sd", "1")}),
    # ---- marl: once per batch, on a CU's weight banks ----
    op("cucfg", "COMM", "UC", "u f", "Compute unit u has f multiply-add elements (its unroll "
        "factor F: f DSP-priced elements and f weight banks).",
        fixed={"funct": 16}),
    op("gclip", "COMM", "UA", "u dst n k",
        "Clip a gradient tensor: dst[0:n] *= c / max(||dst||, c), c the word at k.",
        fixed={"funct": 17}, reads={"dst": "n", "k": "1"}, writes={"dst": "n"}),
    op("wadam", "COMM", "UA", "u dst src m v n k",
        "Adam (TF1): m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; dst -= lr_t m / (sqrt(v) + eps); "
        "g at src, [lr_t, b1, b2, eps] at k.",
        fixed={"funct": 18}, reads={"dst": "n", "src": "n", "m": "n", "v": "n", "k": "4"},
        writes={"dst": "n", "m": "n", "v": "n"}),
    op("wsgd", "COMM", "UA", "u dst src n k", "SGD: dst -= lr g, g at src, lr at k.",
        fixed={"funct": 19}, reads={"dst": "n", "src": "n", "k": "1"}, writes={"dst": "n"}),
    op("wsoft", "COMM", "UA", "u dst src n k",
        "Soft target update: dst = (1 - tau) dst + tau src, tau at k.",
        fixed={"funct": 20}, reads={"dst": "n", "src": "n", "k": "1"}, writes={"dst": "n"}),
    op("wld", "COMM", "UA", "u dst n k", "Load weights: synapse dst[0:n] = unified k[0:n].",
        fixed={"funct": 21}, reads={"k": "n"}, writes={"dst": "n"}),
    op("wst", "COMM", "UA", "u src n k", "Store weights: unified k[0:n] = synapse src[0:n].",
        fixed={"funct": 22}, reads={"src": "n"}, writes={"k": "n"}),
]
