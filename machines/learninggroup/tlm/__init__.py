"""The sparse family (LearningGroup): instruction models built on the functional
and timing models of the machine's units, which the RTL benches can use as predictors too.

Units and concepts, one module each (each imports only :mod:`rlaccel.isa`, numpy and its
siblings):

* :mod:`.vpu` -- the FP16 vector processing unit (multiplier, adder, four accumulation
  registers, 4-to-1 activation select) and its MAC-chain rule.
* :mod:`.grouping` -- the max-index unit: grouping matrices to max indexes, bitvectors and
  masks (FLGW's first observation).
* :mod:`.osel` -- the sparse data encoder with OSEL and the baseline encoder, cycle by cycle,
  the sparse row memory and its footprint (Fig. 5 and 10).
* :mod:`.load_allocation` -- row-based and threshold-based allocation to the cores, their
  deviation from the theoretical workload (Table I), global-parameter-memory addresses of the
  forward and the transposed matrix.
* :mod:`.core` -- a core's sparse matrix-vector dataflow in FP16 (forward and transposed),
  as the VPUs and the aggregator compute it, in plain numpy.
* :mod:`.layer` and :mod:`.kernels` -- a compressed layer as the cores hold it, and the same
  dataflow compiled (tested equal to :mod:`.core` bit for bit).
* :mod:`.vector` -- the VPUs' vector operations of IC3Net (LSTM cell, communication, heads,
  RMSprop, the grouping-matrix gradient) in FP16.
* :mod:`.timing` -- cycle formulas: encoder steps, the core's passes of up to four rows,
  layer cycles over C cores, vector operations, utilisation and GFLOPS.
* :mod:`.state` -- the sparse row memory's tuples, the cores' layers and the run's counters.
* :mod:`.models` -- one instruction model per mnemonic of ``machines/learninggroup/isa.toml``.

``FAMILY`` is what the simulator loads (:mod:`rlaccel.tlm.families`). The machine is specified
in ``machines/learninggroup/README.md``.
"""

from rlaccel.tlm.model import Family
from rlaccel.machines.learninggroup.tlm.models import ACTIONS, CATEGORIES, MODELS, TIMING_KEYS

FAMILY = Family(name="sparse", models=MODELS, actions=ACTIONS, categories=CATEGORIES,
                timing_keys=TIMING_KEYS,
                doc="LearningGroup (the paper): weight grouping, OSEL, the cores' sparse "
                    "matrix operations, the VPUs' vector operations")
