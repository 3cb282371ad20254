"""An interconnect that maps address ranges to targets.

The unified address space of a machine (neuron memory, buffers, ...) is several memories
behind one socket: ``router.map(base, memory.socket)`` places a target at ``base``; the router
forwards a transaction to the target whose range holds it, with ``base`` subtracted from the
address (and restored on return), and adds its own ``latency`` per access. An address no
target holds, or a transaction that runs past the end of its target, gets ADDRESS_ERROR.
DMI regions and invalidations are translated between the two address spaces.
"""

from __future__ import annotations

from bisect import bisect_right, insort

from rlaccel.util.errors import ArchError

from rlaccel.tlm.core.dmi import DmiRegion
from rlaccel.tlm.core.payload import GenericPayload, Status, _words
from rlaccel.tlm.core.sockets import InitiatorSocket, Target, TargetSocket

__all__ = ["Router"]

_ADDRESS_ERROR = Status.ADDRESS_ERROR


class Router(Target):
    """Address decoder with one target socket (``socket``) and one initiator socket per map.

    ``latency`` -- cycles added to every transported access (and to DMI timings).
    """

    def __init__(self, name: str, latency: int = 0):
        self.name = name
        self.latency = latency
        self.socket = TargetSocket(f"{name}.socket", self)
        self._bases: list[int] = []
        self._ends: list[int] = []
        self._names: list[str] = []
        self._ports: list[InitiatorSocket] = []
        self._forward: list = []        # the targets' b_transport, one lookup less per access

    def map(self, base: int, target_socket: TargetSocket, size: int | None = None,
            name: str | None = None) -> InitiatorSocket:
        """Place the target behind ``target_socket`` at words ``[base, base+size)``.

        ``size`` defaults to the target's ``size``; ``name`` (for messages) to the target's
        ``name``. Returns the router's initiator socket bound to the target.
        """
        target = target_socket.target
        name = name if name is not None else getattr(target, "name", target_socket.name)
        known = getattr(target, "size", None)
        if size is None:
            if known is None:
                raise ArchError(f"router {self.name!r}: give the size of {name!r}, "
                                f"its target has no size")
            size = known
        if base < 0 or size <= 0:
            raise ArchError(f"router {self.name!r}: cannot map {name!r} at {base:#x} with "
                            f"{size} words")
        if known is not None and size > known:
            raise ArchError(f"router {self.name!r}: {name!r} has {known} words, "
                            f"cannot map {size}")
        end = base + size
        for b, e, other in zip(self._bases, self._ends, self._names):
            if base < e and b < end:
                raise ArchError(f"router {self.name!r}: {name!r} at {base:#x}..{end - 1:#x} "
                                f"overlaps {other!r} at {b:#x}..{e - 1:#x}")
        port = InitiatorSocket(f"{self.name}.{name}",
                               on_invalidate=lambda s, e: self._invalidate(base, end, s, e))
        port.bind(target_socket)
        i = bisect_right(self._bases, base)
        insort(self._bases, base)
        self._ends.insert(i, end)
        self._names.insert(i, name)
        self._ports.insert(i, port)
        self._forward.insert(i, port.b_transport)
        return port

    @property
    def address_map(self) -> list[tuple[int, int, str]]:
        """``(base, end, name)`` of every mapped range, by address (``end`` excluded)."""
        return list(zip(self._bases, self._ends, self._names))

    # ------------------------------------------------------------------ forward path
    def b_transport(self, payload: GenericPayload, delay: int) -> int:
        address = payload.address
        i = bisect_right(self._bases, address) - 1
        if i < 0 or address + payload.length > self._ends[i] or address >= self._ends[i]:
            self._address_error(payload, i)
            return delay
        payload.address = address - self._bases[i]
        delay = self._forward[i](payload, delay + self.latency)
        payload.address = address
        return delay

    def get_direct_mem_ptr(self, payload: GenericPayload) -> DmiRegion | None:
        address = payload.address
        i = self._decode(address)
        if i < 0:
            payload.dmi_allowed = False
            return None
        base = self._bases[i]
        payload.address = address - base
        region = self._ports[i].get_direct_mem_ptr(payload)
        payload.address = address
        if region is None:
            return None
        return region.translated(base, base, self._ends[i], self.latency)

    def transport_dbg(self, payload: GenericPayload) -> int:
        address = payload.address
        i = bisect_right(self._bases, address) - 1
        if i < 0 or address + payload.length > self._ends[i] or address >= self._ends[i]:
            self._address_error(payload, i)
            return 0
        payload.address = address - self._bases[i]
        words = self._ports[i].transport_dbg(payload)
        payload.address = address
        return words

    # ------------------------------------------------------------------ backward path
    def _invalidate(self, base: int, end: int, start: int, stop: int) -> None:
        low, high = max(start + base, base), min(stop + base, end)
        if low < high:
            self.socket.invalidate_direct_mem_ptr(low, high)

    # ------------------------------------------------------------------ helpers
    def _decode(self, address: int) -> int:
        """Index of the range holding ``address``, or -1."""
        i = bisect_right(self._bases, address) - 1
        return i if i >= 0 and address < self._ends[i] else -1

    def _address_error(self, payload: GenericPayload, i: int) -> None:
        address = payload.address
        payload.status = _ADDRESS_ERROR
        if i >= 0 and address < self._ends[i]:
            b, e = self._bases[i], self._ends[i]
            payload.detail = (f"router {self.name!r}: {payload.command.value} of "
                              f"{_words(address, payload.length)} runs past the end of "
                              f"{self._names[i]!r} ({b:#x}..{e - 1:#x})")
        else:
            ranges = ", ".join(f"{n!r} {b:#x}..{e - 1:#x}"
                               for b, e, n in zip(self._bases, self._ends, self._names))
            payload.detail = (f"router {self.name!r}: no target at address {address:#x} "
                              f"(map: {ranges or 'empty'})")

    def __repr__(self) -> str:
        return f"Router({self.name!r}, {len(self._bases)} targets)"
