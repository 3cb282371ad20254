"""Direct memory interface: hand a hot loop the target's numpy array itself.

A :class:`DmiRegion` grants direct access to the words ``[start, end)`` of an initiator's
address space: ``data[address - start]`` *is* the word at ``address`` in the target's
storage, so a loop reads and writes it without building a payload per word. The region
carries the timing the target would have annotated (:meth:`DmiRegion.read_delay`) and the
target's ``count`` method, through which the loop reports its accesses so statistics and
energy stay the same as on the transport path.

A target that withdraws access (reconfiguration, a memory that is reloaded by other means)
calls ``invalidate_direct_mem_ptr(start, end)`` on its target socket; every bound initiator
socket passes the range to its ``on_invalidate`` callback. :class:`DmiCache` is that callback
for initiators that hold several regions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from rlaccel.tlm.core.payload import Command, GenericPayload
from rlaccel.tlm.core.timing import AccessTiming

__all__ = ["DmiRegion", "DmiCache", "DmiSource"]


class DmiSource(Protocol):
    """What a :class:`DmiCache` needs of its socket (an initiator socket of
    :mod:`rlaccel.tlm.core.sockets`, which this module does not import: the sockets hand out
    :class:`DmiRegion` objects)."""

    on_invalidate: Callable[..., None]

    def get_direct_mem_ptr(self, payload: GenericPayload) -> "DmiRegion | None": ...


def _no_count(reads: int = 0, writes: int = 0, words_read: int = 0,
              words_written: int = 0) -> None:
    """Default ``count`` of a region whose owner keeps no statistics."""


@dataclass(slots=True, eq=False)
class DmiRegion:
    """Direct access to the words ``[start, end)`` (``end`` excluded).

    ``data`` -- a numpy view of the target's storage, ``data[a - start]`` is word ``a``;
    ``read_timing``/``write_timing`` -- what the target would annotate per access;
    ``read_allowed``/``write_allowed`` -- the access granted;
    ``count(reads=, writes=, words_read=, words_written=)`` -- the owner's statistics hook;
    ``owner`` -- the target's name, for messages; ``valid`` -- cleared when invalidated.
    """

    start: int
    end: int
    data: np.ndarray
    read_timing: AccessTiming
    write_timing: AccessTiming
    read_allowed: bool = True
    write_allowed: bool = True
    count: Callable[..., None] = _no_count
    owner: str = ""
    valid: bool = True

    def contains(self, address: int, length: int = 1) -> bool:
        """True when the words ``address .. address+length-1`` all lie in the region."""
        return self.start <= address and address + length <= self.end

    def allows(self, command: Command) -> bool:
        """True when the region grants ``command`` (READ or WRITE)."""
        if command is Command.READ:
            return self.read_allowed
        if command is Command.WRITE:
            return self.write_allowed
        return False

    def view(self, address: int, length: int) -> np.ndarray:
        """The words ``address .. address+length-1`` as a view (writes go to the target)."""
        i = address - self.start
        return self.data[i:i + length]

    def read_delay(self, words: int) -> int:
        """Cycles the target would annotate for a read of ``words`` words."""
        return self.read_timing.delay(words)

    def write_delay(self, words: int) -> int:
        """Cycles the target would annotate for a write of ``words`` words."""
        return self.write_timing.delay(words)

    def translated(self, offset: int, low: int, high: int, latency: int = 0
                   ) -> DmiRegion | None:
        """This region seen ``offset`` words higher, clipped to ``[low, high)``.

        An interconnect calls it with its base address and mapped range; ``latency`` is what
        the hop adds per access. None when nothing of the region is left.
        """
        start = max(self.start + offset, low)
        end = min(self.end + offset, high)
        if start >= end:
            return None
        first = start - offset - self.start
        return DmiRegion(start, end, self.data[first:first + end - start],
                         self.read_timing.plus(latency), self.write_timing.plus(latency),
                         self.read_allowed, self.write_allowed, self.count, self.owner)


class DmiCache:
    """The DMI regions an initiator holds on one socket, dropped when the target withdraws.

    Registers itself as the socket's ``on_invalidate`` callback. :meth:`get` answers from the
    regions it holds and asks the target (one ``get_direct_mem_ptr``) on a miss.
    """

    def __init__(self, socket: DmiSource):
        self.socket = socket
        self.regions: list[DmiRegion] = []
        self._payload = GenericPayload()
        socket.on_invalidate = self.invalidate

    def get(self, address: int, command: Command = Command.READ, length: int = 1
            ) -> DmiRegion | None:
        """A region granting ``command`` on ``length`` words at ``address``, or None."""
        for region in self.regions:
            if region.contains(address, length) and region.allows(command):
                return region
        payload = self._payload.prepare(command, address, length)
        region = self.socket.get_direct_mem_ptr(payload)
        if region is None or not (region.contains(address, length) and region.allows(command)):
            return None
        self.regions.append(region)
        return region

    def invalidate(self, start: int, end: int) -> None:
        """Drop (and mark invalid) every region overlapping ``[start, end)``."""
        keep = []
        for region in self.regions:
            if region.start < end and start < region.end:
                region.valid = False
            else:
                keep.append(region)
        self.regions = keep
