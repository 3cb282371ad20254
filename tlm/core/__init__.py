"""SystemC TLM-2.0 ideas on SimPy: the loosely-timed core of the rlaccel simulator.

=====================  ==================================================================
name                   what it is
=====================  ==================================================================
``Command``            READ, WRITE or IGNORE
``Status``             INCOMPLETE, OK, ADDRESS_ERROR, COMMAND_ERROR, GENERIC_ERROR
``GenericPayload``     one transaction: command, word address, length, data buffer, status
``AccessTiming``       latency per access plus cycles per beat of ``width`` words
``Target``             base class of targets: b_transport, get_direct_mem_ptr, transport_dbg
``TargetSocket``       a target's port; sends DMI invalidations back to its initiators
``InitiatorSocket``    an initiator's port; ``bind`` once, then calls go straight to the target
``Router``             maps address ranges to targets, subtracting the base
``DmiRegion``          direct access to a target's numpy storage, with its timing and counter
``DmiCache``           the DMI regions of one initiator socket, dropped on invalidation
``QuantumKeeper``      local time of an initiator; yields to SimPy once per quantum
``DEFAULT_QUANTUM``    global quantum of a simulation that sets none (cycles)
``set_global_quantum`` set the global quantum of a simulation (its environment)
``global_quantum``     the global quantum of a simulation
``Memory``             reference memory target: numpy array, timing, statistics, energy
``MemoryStats``        access and word counters of a memory, energy in picojoules
``Ring``               ring interconnect: send/recv to the next node, all-gather, barrier
``Butterfly``          butterfly all-reduce of a power-of-two number of nodes
=====================  ==================================================================

Time is counted in clock cycles of the accelerator (``env.now``, integers). A transaction is
a plain Python call that returns its annotated delay; only the quantum keeper touches SimPy.
"""

from rlaccel.tlm.core.dmi import DmiCache, DmiRegion
from rlaccel.tlm.core.memory import Memory, MemoryStats
from rlaccel.tlm.core.payload import Command, GenericPayload, Status
from rlaccel.tlm.core.quantum import DEFAULT_QUANTUM, QuantumKeeper, global_quantum, set_global_quantum
from rlaccel.tlm.core.router import Router
from rlaccel.tlm.core.sockets import InitiatorSocket, Target, TargetSocket
from rlaccel.tlm.core.ring import Ring
from rlaccel.tlm.core.butterfly import Butterfly
from rlaccel.tlm.core.timing import AccessTiming

__all__ = [
    "Command", "Status", "GenericPayload", "AccessTiming",
    "Target", "TargetSocket", "InitiatorSocket", "Router",
    "DmiRegion", "DmiCache",
    "QuantumKeeper", "DEFAULT_QUANTUM", "set_global_quantum", "global_quantum",
    "Memory", "MemoryStats", "Ring", "Butterfly",
]
