"""The cost model: energy, power and FPGA resources derived from the design, never fitted.

* :mod:`.primitives` -- the primitive-component data with their sources (``primitives.toml``)
  and the :class:`~.primitives.Price` type;
* :mod:`.technology` -- an ASIC library at a node and supply, or an FPGA family and device:
  what an adder, a multiplier, a memory word, a flip-flop's clock cost there;
* :mod:`.model` -- an architecture's :class:`~.model.CostModel` and the derivation of every
  energy action's price (:func:`~.model.derive_energy`) through its families' ``energy``
  modules;
* :mod:`.resources` -- LUTs, flip-flops, DSPs and block RAMs per unit, per SLR and in total;
* :mod:`.sources` -- the rule every cost constant of a default architecture obeys: it names
  its source, which is neither the machine's own paper's result nor a fit.

An architecture opts in with a ``[technology]`` table (``kind = "asic"`` with ``node`` and
``voltage``, or ``kind = "fpga"`` with ``device``); see ``tlm/cost/README.md``.
"""

from rlaccel.tlm.cost.model import CostModel, EnergyModel, derive_energy, fitted_keys
from rlaccel.tlm.cost.primitives import Price, reference
from rlaccel.tlm.cost.resources import Resources, resources_of
from rlaccel.tlm.cost.technology import Asic, Fpga, technology_of

__all__ = ["CostModel", "EnergyModel", "derive_energy", "fitted_keys", "Price", "reference",
           "Resources", "resources_of", "Asic", "Fpga", "technology_of", "TABLES"]

#: the architecture tables the cost model reads (besides ``[energy]``, ``[energy_sources]``)
TABLES = ("technology", "resources", "sources")
