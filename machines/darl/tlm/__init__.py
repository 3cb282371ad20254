"""Functional models of DARL's units (the DARL paper), for the ``hdc`` ISA family.

Pure numpy on the number formats of :mod:`rlaccel.isa.dtypes` (fixed32 = q16.16, the paper's
"fixed point-32 bit", and float64); the unit modules know nothing about the simulator (they
import only :mod:`rlaccel.isa` and numpy), so the instruction models of :mod:`.models` call
them as their semantics and the RTL benches use them as predictors (one functional semantics
per unit).

* :mod:`.codebook` -- the triangle codebook: sin/cos by lookup of the phase's fraction bits
  in a quarter-wave table (section 3.2);
* :mod:`.encoder` -- the encoding layer: position matrix (in turns), multiply, reduce,
  codebook (eq. 1-6);
* :mod:`.regression` -- the chunked systolic regression of Re and Im against Q or Q'
  (eq. 9-10);
* :mod:`.updating` -- select (eq. 11-13), the update value (eq. 14), the update hypervectors
  (eq. 15-16);
* :mod:`.update_cache` -- the delayed update cache, a FIFO whose entries land on Q when the
  action's row is next used with its mask bit (eq. 7-8, 17-18);
* :mod:`.allreduce` -- the butterfly all-reduce of the agents' shards and its cycles
  (eq. 19-22);
* :mod:`.timing` -- cycles of one kernel iteration (Table 1's L) with the three
  optimisations of Fig. 10(a) as switches;
* :mod:`.throughput` -- inferences per second (eq. 23-25);
* :mod:`.power` -- Table 2's power figures, which the cost model's power is compared with.

* :mod:`.models` -- the ``hdc`` ISA family's instruction models (these units as semantics,
  :func:`.timing.instruction_cycles` as costs); ``FAMILY`` is what the simulator loads.

``machines/darl/README.md`` is the specification these implement.
"""

from rlaccel.machines.darl.tlm.allreduce import allreduce_cycles, butterfly_allreduce, stages
from rlaccel.machines.darl.tlm.codebook import Codebook
from rlaccel.machines.darl.tlm.encoder import Encoder, encode_float, position_matrix
from rlaccel.machines.darl.tlm.power import TABLE2, compare, paper_watts
from rlaccel.machines.darl.tlm.regression import chunks, regress
from rlaccel.machines.darl.tlm.throughput import ips, ips_terms, iteration_seconds
from rlaccel.machines.darl.tlm.timing import (TABLE1, LatencyConstants, Optimisations, Workload, iteration_cycles,
                     latency_cycles)
from rlaccel.machines.darl.tlm.update_cache import UpdateCache
from rlaccel.machines.darl.tlm.updating import greedy, select, update_hypervectors, update_value
from rlaccel.machines.darl.tlm.timing import instruction_cycles

from rlaccel.tlm.model import Family
from rlaccel.machines.darl.tlm.models import MODELS as _MODELS, TIMING_KEYS as _TIMING_KEYS
from rlaccel.machines.darl.tlm.models import optimisations
from rlaccel.machines.darl.tlm.energy import ACTIONS as _ACTIONS

#: result categories: encoding, regression, select, update, the all-reduce, the stage end,
#: loading the position matrix
CATEGORIES = ("ENC", "REG", "SEL", "UPD", "ALLREDUCE", "SYNC", "LOAD")

FAMILY = Family(name="hdc", models=_MODELS, actions=_ACTIONS, categories=CATEGORIES,
                timing_keys=_TIMING_KEYS, tables=("hdc",), checks=(optimisations,),
                doc="DARL (the DARL paper): codebook encoder, chunked regression, select, the "
                    "delayed update cache and the butterfly all-reduce")

__all__ = [
    "Codebook", "Encoder", "encode_float", "position_matrix",
    "chunks", "regress",
    "greedy", "select", "update_value", "update_hypervectors",
    "UpdateCache",
    "stages", "butterfly_allreduce", "allreduce_cycles",
    "TABLE1", "LatencyConstants", "Workload", "Optimisations", "iteration_cycles",
    "latency_cycles", "instruction_cycles", "FAMILY",
    "iteration_seconds", "ips", "ips_terms",
    "TABLE2", "compare", "paper_watts",
]
