"""The base family's instruction models: one entry per mnemonic of ``isa/base.toml``.

Each entry ties the functional semantics (:mod:`.semantics`), the timing (:mod:`.timing`),
the energy actions (:mod:`.energy`), the Fig. 11 category and the fused kernel
(:mod:`.kernels`) of one mnemonic together.
"""

from __future__ import annotations

from rlaccel.isa.encoding import Instruction
from rlaccel.isa.arch import arch_table
from rlaccel.util.errors import ArchError
from rlaccel.isa.table import TABLE

from rlaccel.tlm.model import BY_CONTROLLER, Binding, Cost, InstructionModel
from rlaccel.tlm.families.base.energy import actions
from rlaccel.tlm.families.base.kernels import kernel
from rlaccel.tlm.families.base.semantics import BRANCHES, MATRIX, SCALAR, bind, branch_rule
from rlaccel.tlm.families.base.timing import FORWARDING, SYNAPSE_PORTS, control_timing, matrix_schedule, matrix_timing

__all__ = ["MODELS", "CATEGORIES", "category", "forwarding", "synapse_ports",
           "check_datapath", "DATAPATH_KEYS"]

#: Fig. 11's categories of seed 001, in report order
CATEGORIES = ("FF", "BP_WU", "VU", "SCA", "CC")

#: controller behaviour of the controller's own instructions
_CONTROL = {"cc.jmp": "jump", "cc.halt": "halt", "cc.lset": "lset", "cc.loop": "loop",
            "cc.host": "host", "cc.mark": "mark", "cc.endmark": "endmark"}


def category(mnemonic: str) -> str:
    """The Fig. 11 category of a base-family mnemonic."""
    if mnemonic in ("ff", "ff.mov"):
        return "FF"
    if mnemonic in ("bp", "wu", "bp_wu", "bp.vu", "bp_wu.vu"):
        return "BP_WU"
    if mnemonic.startswith("vu."):
        return "VU"
    if mnemonic.startswith("sca."):
        return "SCA"
    return "CC"


def _instruction(b: Binding) -> Instruction:
    return Instruction(b.mnemonic, dict(b.ops))


def _semantics(b: Binding):
    return bind(_instruction(b), b.mem("unified"), b.mem("synapse"), b.dt, b.counter)


def _branch(b: Binding):
    return branch_rule(_instruction(b), b.mem("unified"), b.dt, b.counter)


def _matrix_cost(b: Binding) -> Cost:
    o = b.ops
    issue, depth = matrix_timing(b.mnemonic, o.get("rows", 1), o["cols"] - o.get("off", 0),
                                 b.knobs.lanes, o.get("act", 0), b.timing["pipeline_depth"],
                                 synapse_ports(b.agent.arch))
    return Cost(issue, depth, (("datapath", issue),))


def _scalar_cost(b: Binding) -> Cost:
    return Cost(1, b.timing["scalar_latency"], (("scalar", 1),))


def _control_cost(b: Binding) -> Cost:
    return Cost(control_timing(b.mnemonic), 1)


#: keys of the ``[datapath]`` table: the base family's ``forwarding`` and ``synapse_ports``;
#: ``virtual_update``, the chip's virtual-update hardware (seed 001), read by the ADHDP host
DATAPATH_KEYS = ("forwarding", "synapse_ports", "virtual_update")


def check_datapath(arch) -> None:
    """The ``[datapath]`` table: known keys, each of its type (an ArchError names what is
    wrong)."""
    where = arch.origin
    table = arch_table(arch, "datapath", DATAPATH_KEYS)
    forwarding(arch)
    synapse_ports(arch)
    if not isinstance(table.get("virtual_update", False), bool):
        raise ArchError(f"{where}: [datapath] virtual_update must be true or false, not "
                        f"{table['virtual_update']!r}")


def forwarding(arch) -> str:
    """The architecture's ``[datapath] forwarding`` (:data:`.timing.FORWARDING`; without the
    table, per instruction)."""
    value = arch.extra.get("datapath", {}).get("forwarding", "instruction")
    if value not in FORWARDING:
        raise ArchError(f"{arch.origin}: [datapath] forwarding must be one of "
                        f"{', '.join(repr(f) for f in FORWARDING)}, not {value!r}")
    return value


def synapse_ports(arch) -> int:
    """The architecture's ``[datapath] synapse_ports`` (:data:`.timing.SYNAPSE_PORTS`; without
    the key, one: a single-port synapse SRAM)."""
    value = arch.extra.get("datapath", {}).get("synapse_ports", 1)
    if isinstance(value, bool) or value not in SYNAPSE_PORTS:
        raise ArchError(f"{arch.origin}: [datapath] synapse_ports must be one of "
                        f"{', '.join(str(p) for p in SYNAPSE_PORTS)} (read and write ports of "
                        f"the synapse SRAM), not {value!r}")
    return value


def _schedule(b: Binding):
    if forwarding(b.agent.arch) != "element":
        return None
    return matrix_schedule(b.mnemonic, b.ops, b.knobs.lanes, b.timing["pipeline_depth"],
                           synapse_ports(b.agent.arch))


def _actions(b: Binding):
    return actions(b.mnemonic, b.ops, b.knobs.neuron_words)


def _model(mnemonic: str) -> InstructionModel:
    if mnemonic in MATRIX:
        control, sem, timing = "exec", _semantics, _matrix_cost
    elif mnemonic in SCALAR:
        control, sem, timing = "exec", _semantics, _scalar_cost
    elif mnemonic in BRANCHES:
        control, sem, timing = "branch", _branch, _control_cost
    else:
        control, sem, timing = _CONTROL.get(mnemonic), BY_CONTROLLER, _control_cost
    fused = kernel if control in ("exec", "branch") else None
    return InstructionModel(mnemonic, control, sem, timing, _actions, category(mnemonic), fused,
                            _schedule if mnemonic in MATRIX else None)


MODELS = {m: _model(m) for m, d in TABLE.items() if d.family == "base"}
