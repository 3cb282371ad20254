"""The base family (seed 001, the ADHDP accelerator): matrix and virtual-update instructions on
the L-lane datapath, the scalar unit, the controller.

``FAMILY`` is what the simulator loads (:mod:`rlaccel.tlm.families`)."""

from rlaccel.tlm.model import Family
from rlaccel.tlm.families.base.energy import ACTIONS, check_energy_sources
from rlaccel.tlm.families.base.models import CATEGORIES, MODELS, check_datapath
from rlaccel.tlm.families.base.timing import TIMING_KEYS

FAMILY = Family(name="base", models=MODELS, actions=ACTIONS, categories=CATEGORIES,
                timing_keys=TIMING_KEYS, tables=("datapath", "energy_sources"),
                checks=(check_datapath, check_energy_sources),
                doc="ADHDP accelerator (seed 001): FF/BP/WU/BP_WU/VU on the datapath, SCA, CC")
