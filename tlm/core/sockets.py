"""Sockets and the target interface: blocking transport, DMI and debug access.

Wiring is explicit and done once: ``initiator_socket.bind(target_socket)``. After binding,
``initiator_socket.b_transport`` *is* the target's bound method, so a transaction is one plain
Python call -- no SimPy event. This is the loosely-timed style of TLM-2.0: the initiator passes
the time it is already ahead of SimPy (``delay``), the target adds its latency and returns
the sum, and the initiator decides when to synchronise (:class:`~tlm.core.quantum.QuantumKeeper`).

The three forward calls a target answers (:class:`Target`):

* ``b_transport(payload, delay) -> delay`` -- the transaction, with timing, statistics, energy;
* ``get_direct_mem_ptr(payload) -> DmiRegion | None`` -- direct access to its storage;
* ``transport_dbg(payload) -> words`` -- debug access: no time, no statistics, no energy.

The backward call is ``TargetSocket.invalidate_direct_mem_ptr(start, end)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable

from rlaccel.util.errors import ArchError, SimError

from rlaccel.tlm.core.dmi import DmiRegion
from rlaccel.tlm.core.payload import GenericPayload, Status

__all__ = ["Target", "TargetSocket", "InitiatorSocket"]


class Target(ABC):
    """What a target socket forwards to. Subclasses implement :meth:`b_transport`.

    The defaults refuse DMI and answer debug transport with COMMAND_ERROR.
    """

    name: str = "target"

    @abstractmethod
    def b_transport(self, payload: GenericPayload, delay: int) -> int:
        """Carry out ``payload``; return ``delay`` plus the cycles it took here."""

    def get_direct_mem_ptr(self, payload: GenericPayload) -> DmiRegion | None:
        """A region granting ``payload.command`` at ``payload.address``; None by default."""
        payload.dmi_allowed = False
        return None

    def transport_dbg(self, payload: GenericPayload) -> int:
        """Debug access without timing or energy; returns the words moved (0 by default)."""
        payload.status = Status.COMMAND_ERROR
        payload.detail = f"{self.name}: no debug access"
        return 0


class TargetSocket:
    """The port of a target; any number of initiator sockets may bind to it."""

    def __init__(self, name: str, target: Target):
        for method in ("b_transport", "get_direct_mem_ptr", "transport_dbg"):
            if not callable(getattr(target, method, None)):
                raise TypeError(f"target of socket {name!r} must be a tlm.core.Target, "
                                f"not {type(target).__name__}")
        self.name = name
        self.target = target
        self.initiators: list[InitiatorSocket] = []

    def bind(self, initiator: InitiatorSocket) -> None:
        """Same as ``initiator.bind(self)``."""
        initiator.bind(self)

    def invalidate_direct_mem_ptr(self, start: int, end: int) -> None:
        """Tell every bound initiator that DMI regions overlapping ``[start, end)`` are void."""
        for initiator in self.initiators:
            initiator.invalidate_direct_mem_ptr(start, end)

    def __repr__(self) -> str:
        return f"TargetSocket({self.name!r})"


class InitiatorSocket:
    """The port of an initiator, bound to exactly one target socket.

    ``on_invalidate(start, end)`` is called when the target withdraws DMI access (settable;
    :class:`~tlm.core.dmi.DmiCache` installs itself there).
    """

    def __init__(self, name: str,
                 on_invalidate: Callable[[int, int], None] | None = None):
        self.name = name
        self.on_invalidate = on_invalidate
        self.target_socket: TargetSocket | None = None

    def bind(self, target_socket: TargetSocket) -> None:
        """Connect to ``target_socket``; a socket is bound once."""
        if not isinstance(target_socket, TargetSocket):
            raise TypeError(f"initiator socket {self.name!r} must bind to a TargetSocket, "
                            f"not {type(target_socket).__name__}")
        if self.target_socket is not None:
            raise ArchError(f"initiator socket {self.name!r} is already bound to "
                            f"{self.target_socket.name!r}; cannot bind it to "
                            f"{target_socket.name!r}")
        self.target_socket = target_socket
        target_socket.initiators.append(self)
        target = target_socket.target
        # Instance attributes shadow the unbound methods below: a call through the socket is
        # a single call of the target's bound method.
        self.b_transport = target.b_transport
        self.get_direct_mem_ptr = target.get_direct_mem_ptr
        self.transport_dbg = target.transport_dbg

    @property
    def bound(self) -> bool:
        """True once :meth:`bind` has connected the socket."""
        return self.target_socket is not None

    def b_transport(self, payload: GenericPayload, delay: int) -> int:
        """Blocking transport to the bound target (replaced by the target's method on bind)."""
        raise self._unbound()

    def get_direct_mem_ptr(self, payload: GenericPayload) -> DmiRegion | None:
        """Ask the bound target for direct access (replaced on bind)."""
        raise self._unbound()

    def transport_dbg(self, payload: GenericPayload) -> int:
        """Debug transport to the bound target (replaced on bind)."""
        raise self._unbound()

    def invalidate_direct_mem_ptr(self, start: int, end: int) -> None:
        """Backward path from the target: pass ``[start, end)`` to ``on_invalidate``."""
        if self.on_invalidate is not None:
            self.on_invalidate(start, end)

    def _unbound(self) -> SimError:
        return SimError(f"initiator socket {self.name!r} is not bound to a target")

    def __repr__(self) -> str:
        peer = self.target_socket.name if self.target_socket else "unbound"
        return f"InitiatorSocket({self.name!r} -> {peer})"
