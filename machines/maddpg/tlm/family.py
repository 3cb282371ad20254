"""The marl family (the MADDPG paper's learners on a ring): MADDPG on CPU-FPGA.

Every agent is a learner with the compute units of its two training pipelines
(:mod:`.streams`: batches streamed through the units sample by sample, the streamed ring
exchange of the actions; :mod:`.apply`: once per batch on the units' weight banks; both on
the functional and timing models of :mod:`rlaccel.machines.maddpg.tlm`), and the agents'
vector messages over the ring (:mod:`.models`). ``FAMILY`` is what the simulator loads
(:mod:`rlaccel.tlm.families`).

The family counts energy with the base family's actions (multiply-adds, element operations,
bank and buffer words) and declares none of its own, so any architecture whose ``[energy]``
prices the base family can implement it; the ring prices its own words.
"""

from rlaccel.tlm.model import Family
from rlaccel.machines.maddpg.tlm.apply import MODELS as _APPLY
from rlaccel.machines.maddpg.tlm.device import check_device
from rlaccel.machines.maddpg.tlm.learner import _constants
from rlaccel.machines.maddpg.tlm.models import MODELS as _MESSAGES
from rlaccel.machines.maddpg.tlm.streams import MODELS as _STREAMS

#: result categories: forward, back-propagation, weight gradients, the Gumbel-softmax head,
#: the value loss, applying a batch's gradients, the ring's streamed exchange, messages
CATEGORIES = ("FP", "BP", "WU", "HEAD", "LOSS", "APPLY", "RING", "COMM")

FAMILY = Family(name="marl", models={**_MESSAGES, **_STREAMS, **_APPLY}, actions={},
                categories=CATEGORIES, tables=("learner", "device"),
                checks=(_constants, check_device),
                doc="MADDPG learners (the MADDPG paper): compute-unit streams, per-batch updates, the "
                    "streamed ring exchange and vector messages between agents")
