"""ISA rows of the sparse family (LearningGroup): weight grouping and OSEL encoding,
the cores' sparse matrix operations, and the VPUs' vector operations of IC3Net training.

Owned by the family: its major opcodes (numbered from ``FIRST_OPCODE``), its formats and one
:func:`~rlaccel.isa.rows.op` row per mnemonic. :mod:`rlaccel.isa.table` assembles the
families into the one table everything derives from.

The machine (``machines/learninggroup/README.md``; the LearningGroup paper, section III and Fig. 3) keeps every model
parameter in the **global parameter memory** (the synapse space, ``saddr``): a layer of M
inputs and N outputs is ``W`` (M x N, row-major, the paper's ``y = x W``) followed by its bias
as row M, so a parameter block is ``(M+1)*N`` words; its gradient accumulator and its RMSprop
average are blocks of the same shape. FLGW's grouping matrices ``IG`` (M x G) and ``OG``
(G x N) and their averages sit there too. Activations, host buffers and the activation
history of an episode are in the unified space (``uaddr``); vectors of a batch (one per
agent) are stored back to back. The **sparse row memory** (``srm``) counts entries: an
encoded matrix of R rows takes ``groups + R`` entries from its address (the G tuple slots,
then the index list of R max indexes; the baseline encoder writes R tuples and no index
list).

Three majors, one per stage of the paper's instruction scheduler:

* ``SGRP`` -- weight grouping and the weight update: the max-index unit (``gmax.row``,
  ``gmax.col``), the sparse data encoder (``osel``, OSEL or the baseline, forward or
  transposed), the grouping-matrix update (``gupd.row``, ``gupd.col``) and RMSprop (``rms``);
* ``SMM`` -- the load allocation unit and the cores: weight compression (``wcomp`` through the
  sparse row memory, ``wcomp.d`` dense) into the cores' weight memories, then the layer's
  forward product (``sff``), the transposed product of back-propagation (``sbp``) and the
  weight-gradient accumulation (``sgrad``), each over a batch of vectors;
* ``SVEC`` -- the VPUs' vector operations (IC3Net's LSTM cell forward and backward, the
  communication mean, the heads' softmax and policy gradient, adds, scales, fills) and the
  activation memory's indexed frames (``ld.x``, ``st.x``: the time steps of an episode for
  back-propagation through time).
"""

from __future__ import annotations

from rlaccel.isa.rows import op

#: the number of the first major opcode; the others follow in order (the numbers are
#: the encoding: they never change once binaries exist, and no two families share one)
FIRST_OPCODE = 14
MAJORS = ('SGRP', 'SMM', 'SVEC')

FORMATS = {
    "SG": (("funct", "funct"), ("dst", "uaddr"), ("syn", "saddr"), ("n", "dim"),
           ("groups", "group")),
    "OS": (("funct", "funct"), ("srm", "srm"), ("ridx", "uaddr"), ("cidx", "uaddr"),
           ("rows", "dim"), ("cols", "dim"), ("groups", "group"), ("enc", "mode"),
           ("t", "mode")),
    "GU": (("funct", "funct"), ("syn", "saddr"), ("v", "saddr"), ("w", "saddr"),
           ("g", "saddr"), ("srm", "srm"), ("rows", "dim"), ("cols", "dim"),
           ("groups", "group"), ("hp", "uaddr")),
    "RM": (("funct", "funct"), ("w", "saddr"), ("g", "saddr"), ("v", "saddr"), ("n", "vlen"),
           ("hp", "uaddr")),
    "WC": (("funct", "funct"), ("syn", "saddr"), ("srm", "srm"), ("rows", "dim"),
           ("cols", "dim"), ("groups", "group"), ("t", "mode")),
    "MM": (("funct", "funct"), ("dst", "uaddr"), ("src", "uaddr"), ("src2", "uaddr"),
           ("syn", "saddr"), ("syn2", "saddr"), ("rows", "dim"), ("cols", "dim"),
           ("batch", "batch")),
    "VE": (("funct", "funct"), ("dst", "uaddr"), ("a", "uaddr"), ("b", "uaddr"),
           ("c", "uaddr"), ("d", "uaddr"), ("s", "uaddr"), ("n", "dim"), ("m", "dim"),
           ("batch", "batch")),
}

#: a parameter block: W (rows x cols) and the bias row
P = "(rows+1)*cols"
#: an encoded matrix in the sparse row memory: G tuple slots and the index list of its rows
#: (the transposed matrix, t = 1, has cols rows)
SRM = "groups+rows+t*(cols-rows)"
#: the hyper-parameter block of RMSprop: lr, alpha, 1 - alpha, eps, gradient scale
HP = "5"

ENTRIES = [
    # ---- SGRP: weight grouping (the LearningGroup paper, sections III-A, III-B, Fig. 4(b), 5) ----
    op("gmax.row", "SGRP", "SG", "dst syn n groups",
        "Max-index unit: dst[i] = the first index of the maximum of row i of the n x groups "
        "input grouping matrix IG at syn (the group of input i).",
        fixed={"funct": 0}, reads={"syn": "n*groups"}, writes={"dst": "n"}),
    op("gmax.col", "SGRP", "SG", "dst syn n groups",
        "Max-index unit: dst[j] = the first index of the maximum of column j of the groups x n "
        "output grouping matrix OG at syn (the group of output j).",
        fixed={"funct": 1}, reads={"syn": "groups*n"}, writes={"dst": "n"}),
    op("osel", "SGRP", "OS", "srm ridx cidx rows cols groups enc=0 t=0",
        "Sparse data encoder: the mask mask[i,j] = (ridx[i] == cidx[j]) of a rows x cols layer "
        "as sparse data tuples (bitvector, non-zero indexes, workload, max index) and the "
        "index list at srm; enc=0 OSEL (a tuple per distinct max index: Index Miss, else "
        "Index Hit), enc=1 the baseline (a tuple per row); t=1 encodes the transposed "
        "matrix (cols rows over rows-bit bitvectors) for back-propagation. A bitvector "
        "holds at most 512 columns.",
        fixed={"funct": 2}, reads={"ridx": "rows", "cidx": "cols"}, writes={"srm": SRM}),
    op("gupd.row", "SGRP", "GU", "syn v w g srm rows cols groups hp",
        "Input grouping update (FLGW, straight-through softmax): r[i] = sum over kept j of "
        "g[i,j]*w[i,j] (g the weight-gradient accumulator), dIG[i,k] = scale*r[i] * "
        "P[i,k] * ([k == sel(i)] - P[i,sel(i)]) with P = softmax(IG[i,:]); then RMSprop on "
        "IG at syn with its average at v (hyper-parameters at hp).",
        fixed={"funct": 3},
        reads={"syn": "rows*groups", "v": "rows*groups", "w": "rows*cols", "g": "rows*cols",
               "srm": "groups+rows", "hp": HP},
        writes={"syn": "rows*groups", "v": "rows*groups"}),
    op("gupd.col", "SGRP", "GU", "syn v w g srm rows cols groups hp",
        "Output grouping update: c[j] = sum over kept i of g[i,j]*w[i,j], dOG[k,j] = "
        "scale*c[j] * P[k,j] * ([k == sel(j)] - P[sel(j),j]) with P the softmax of OG's "
        "column j; then RMSprop on OG at syn with its average at v.",
        fixed={"funct": 4},
        reads={"syn": "groups*cols", "v": "groups*cols", "w": "rows*cols", "g": "rows*cols",
               "srm": "groups+rows", "hp": HP},
        writes={"syn": "groups*cols", "v": "groups*cols"}),
    op("rms", "SGRP", "RM", "w g v n hp",
        "RMSprop on n words (IC3Net's optimiser, torch's rule in FP16): gs = g*scale, "
        "v = alpha*v + (1-alpha)*gs*gs, w -= lr*gs/(sqrt(v) + eps); the gradient "
        "accumulator g is cleared. hp holds lr, alpha, 1-alpha, eps, scale.",
        fixed={"funct": 5}, reads={"w": "n", "g": "n", "v": "n", "hp": HP},
        writes={"w": "n", "g": "n", "v": "n"}),
    # ---- SMM: load allocation unit and cores (sections III-C, III-D, Fig. 6, 7) ----
    op("wcomp", "SMM", "WC", "syn srm rows cols groups t=0",
        "Weight compression: the load allocation unit reads the unmasked weights of the "
        "rows x cols layer at syn through the sparse row memory at srm (t=1: the transposed "
        "tuples, W read in place), splits the rows evenly over the cores (row-based) and "
        "loads each core's weight memory.",
        fixed={"funct": 0}, reads={"syn": P, "srm": SRM}),
    op("wcomp.d", "SMM", "WC", "syn rows cols t=0",
        "Weight compression of a dense layer (every weight; t=1 the transposed matrix).",
        fixed={"funct": 1}, reads={"syn": P}),
    op("sff", "SMM", "MM", "dst src syn rows cols batch",
        "Sparse forward on the cores: dst[b,j] = sum over kept i of src[b,i]*W[i,j] + "
        "bias[j] for b < batch, with the weights wcomp loaded for the layer at syn; every "
        "product and partial sum in FP16, each core's rows in order, the aggregator adding "
        "the cores' sums and the bias.",
        fixed={"funct": 2}, reads={"src": "batch*rows", "syn": P},
        writes={"dst": "batch*cols"}),
    op("sbp", "SMM", "MM", "dst src syn rows cols batch",
        "Sparse back-propagation: dst[b,i] = sum over kept j of src[b,j]*W[i,j] (the "
        "transposed product, weights loaded by wcomp with t=1).",
        fixed={"funct": 3}, reads={"src": "batch*cols", "syn": "rows*cols"},
        writes={"dst": "batch*rows"}),
    op("sgrad", "SMM", "MM", "src src2 syn syn2 rows cols batch",
        "Weight-gradient accumulation: for b < batch in order, G[i,j] += src[b,i]*src2[b,j] "
        "on the kept weights of the layer at syn and G[rows,j] += src2[b,j] (the bias), "
        "G the accumulator block at syn2, each multiply and add in FP16.",
        fixed={"funct": 4}, reads={"src": "batch*rows", "src2": "batch*cols",
                                   "syn2": P},
        writes={"syn2": P}),
    # ---- SVEC: the VPUs' vector operations and the activation memory's frames ----
    op("v.add", "SVEC", "VE", "dst a b n", "dst[k] = a[k] + b[k] for k < n.",
        fixed={"funct": 0}, reads={"a": "n", "b": "n"}, writes={"dst": "n"}),
    op("v.muls", "SVEC", "VE", "dst a s n", "dst[k] = a[k] * s[0] (a scalar word).",
        fixed={"funct": 1}, reads={"a": "n", "s": "1"}, writes={"dst": "n"}),
    op("v.set", "SVEC", "VE", "dst s n", "dst[k] = s[0] for k < n.",
        fixed={"funct": 2}, reads={"s": "1"}, writes={"dst": "n"}),
    op("v.smax", "SVEC", "VE", "dst a n m batch",
        "Softmax of each of batch segments: dst[b*m : b*m+n] = softmax(a[b*m : b*m+n]) "
        "(max subtracted, exp, FP16 sum, divide).",
        fixed={"funct": 3}, reads={"a": "(batch-1)*m+n"}, writes={"dst": "(batch-1)*m+n"}),
    op("v.mean", "SVEC", "VE", "dst a b n batch",
        "IC3Net's communication: dst[i,:] = sum over j != i of b[i]*b[j]*a[j,:] / (batch-1) "
        "for batch agents of n words (b: each agent's previous talk action, 0 or 1).",
        fixed={"funct": 4}, reads={"a": "batch*n", "b": "batch"},
        writes={"dst": "batch*n"}),
    op("lstm.fw", "SVEC", "VE", "dst a b n batch",
        "LSTM cell (torch's LSTMCell) for batch agents of n units: from the gate "
        "pre-activations a (batch x 4n: i, f, g, o) and the cell state b (batch x n), write "
        "the activated gates, the new cell state s, tanh(s) and h = o*tanh(s) at dst "
        "(regions of batch*4n, batch*n, batch*n, batch*n words).",
        fixed={"funct": 5}, reads={"a": "batch*4*n", "b": "batch*n"},
        writes={"dst": "batch*7*n"}),
    op("lstm.bw", "SVEC", "VE", "dst a b c d s n batch",
        "LSTM cell backward: dh at a, ds of the next step at b, the step's gates, s, tanh(s) "
        "and h at c (lstm.fw's layout), its previous cell state at d; writes the gate "
        "pre-activation gradients dz (batch x 4n) at dst and ds*f*s[0] (the gradient "
        "passed to the previous step; s[0] = 0 cuts it) over b.",
        fixed={"funct": 6},
        reads={"a": "batch*n", "b": "batch*n", "c": "batch*7*n", "d": "batch*n", "s": "1"},
        writes={"dst": "batch*4*n", "b": "batch*n"}),
    op("pgrad", "SVEC", "VE", "dst a b s n batch",
        "IC3Net's head gradients for batch agents: a holds per agent the n action "
        "probabilities, the 2 talk probabilities and the value (n+3 words); b the step's "
        "training data (env actions, talk actions, advantages, returns: batch words each); "
        "dst[a] = [adv*(p - onehot(action)), adv*(talk - onehot(talk action)), "
        "s[0]*(value - return)] (s[0] = 2 x the value coefficient).",
        fixed={"funct": 7}, reads={"a": "batch*(n+3)", "b": "4*batch", "s": "1"},
        writes={"dst": "batch*(n+3)"}),
    op("ld.x", "SVEC", "VE", "dst a s n m",
        "Activation memory, indexed: dst[0:n] = frame s[0] of the m frames of n words at a "
        "(s[0] an integer word, 0 <= s[0] < m).",
        fixed={"funct": 8}, reads={"a": "n*m", "s": "1"}, writes={"dst": "n"}),
    op("st.x", "SVEC", "VE", "dst a s n m",
        "Activation memory, indexed: frame s[0] of the m frames of n words at dst = "
        "a[0:n].",
        fixed={"funct": 9}, reads={"a": "n", "s": "1"}, writes={"dst": "n*m"}),
]
