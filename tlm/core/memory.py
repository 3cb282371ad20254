"""The reference memory target: a numpy array with timing, statistics and energy.

A :class:`Memory` answers blocking transport (timing from its :class:`AccessTiming` of reads
and writes, statistics counted), DMI (the whole array, granted unless disabled) and debug
transport (no time, no statistics; it may write a read-only memory, which is how a loader
fills one). An access outside ``[0, size)`` gets ADDRESS_ERROR with a message naming the
memory, the words and its size; :meth:`Memory.check_range` raises the same message as a
:class:`~rlaccel.util.errors.SimError`.

Statistics are plain counters (:class:`MemoryStats`); energy is computed from them when asked,
so counting costs two integer additions per access. Loops that use DMI report their accesses
with ``region.count(...)`` (the memory's :meth:`MemoryStats.count`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rlaccel.util.errors import SimError

from rlaccel.tlm.core.dmi import DmiRegion
from rlaccel.tlm.core.payload import Command, GenericPayload, Status, _words
from rlaccel.tlm.core.sockets import Target, TargetSocket
from rlaccel.tlm.core.timing import AccessTiming

__all__ = ["Memory", "MemoryStats"]

_READ, _WRITE, _IGNORE = Command.READ, Command.WRITE, Command.IGNORE
_OK, _ADDRESS_ERROR, _COMMAND_ERROR = Status.OK, Status.ADDRESS_ERROR, Status.COMMAND_ERROR


class MemoryStats:
    """Accesses and words of one memory; energy in picojoules from the per-word costs.

    ``reads``/``writes`` count accesses, ``words_read``/``words_written`` count words.
    """

    __slots__ = ("reads", "writes", "words_read", "words_written",
                 "read_energy_pj", "write_energy_pj")

    def __init__(self, read_energy_pj: float = 0.0, write_energy_pj: float = 0.0):
        self.read_energy_pj = read_energy_pj
        self.write_energy_pj = write_energy_pj
        self.reset()

    def count(self, reads: int = 0, writes: int = 0, words_read: int = 0,
              words_written: int = 0) -> None:
        """Add accesses made without transport (DMI loops call this)."""
        self.reads += reads
        self.writes += writes
        self.words_read += words_read
        self.words_written += words_written

    def reset(self) -> None:
        """Set every counter to zero."""
        self.reads = self.writes = self.words_read = self.words_written = 0

    @property
    def words(self) -> int:
        """Words read plus words written."""
        return self.words_read + self.words_written

    @property
    def energy_pj(self) -> float:
        """Energy of the words moved, in picojoules."""
        return (self.words_read * self.read_energy_pj
                + self.words_written * self.write_energy_pj)

    def as_dict(self) -> dict[str, float]:
        """The counters and the energy, for JSON results."""
        return {"reads": self.reads, "writes": self.writes, "words_read": self.words_read,
                "words_written": self.words_written, "words": self.words,
                "energy_pj": self.energy_pj}

    def __repr__(self) -> str:
        return (f"MemoryStats(reads={self.reads}, writes={self.writes}, "
                f"words_read={self.words_read}, words_written={self.words_written}, "
                f"energy_pj={self.energy_pj:g})")


class Memory(Target):
    """``size`` words of ``dtype`` behind one target socket (``socket``).

    ``read``/``write`` -- :class:`AccessTiming` of an access (default: 1 cycle per access);
    ``read_energy_pj``/``write_energy_pj`` -- energy per word moved;
    ``read_only`` -- refuse transported writes (COMMAND_ERROR) and grant read-only DMI;
    ``dmi`` -- whether direct access is granted (see :meth:`set_dmi`).
    """

    def __init__(self, name: str, size: int, dtype: npt.DTypeLike = np.int64, *,
                 read: AccessTiming = AccessTiming(), write: AccessTiming = AccessTiming(),
                 read_energy_pj: float = 0.0, write_energy_pj: float = 0.0,
                 read_only: bool = False, dmi: bool = True):
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise SimError(f"memory {name!r}: size must be a positive number of words, "
                           f"not {size!r}")
        self.name = name
        self.size = size
        self.data = np.zeros(size, dtype=dtype)
        self.read_timing = read
        self.write_timing = write
        self.read_only = read_only
        self.stats = MemoryStats(read_energy_pj, write_energy_pj)
        self.socket = TargetSocket(f"{name}.socket", self)
        self._dmi = dmi
        # DMI users of a read-only memory get a view numpy itself refuses to write through
        self._dmi_view = self.data.view()
        self._dmi_view.flags.writeable = not read_only
        self._r_latency, self._r_per_beat, self._r_width = read.latency, read.per_beat, read.width
        self._w_latency, self._w_per_beat, self._w_width = (write.latency, write.per_beat,
                                                            write.width)

    # ------------------------------------------------------------------ transport
    def b_transport(self, payload: GenericPayload, delay: int) -> int:
        """Read or write ``payload``; return ``delay`` plus the access time."""
        address = payload.address
        length = payload.length
        if address < 0 or length < 0 or address + length > self.size:
            self._address_error(payload)
            return delay
        command = payload.command
        if command is _READ:
            data = payload.data
            if data is None:
                payload.data = self.data[address:address + length].copy()
            elif length == 1:           # a scalar copy costs a fifth of a slice copy
                data[0] = self.data[address]
            else:
                data[:length] = self.data[address:address + length]
            stats = self.stats
            stats.reads += 1
            stats.words_read += length
            # AccessTiming.delay inlined: a method call costs as much as the copy
            delay += self._r_latency + self._r_per_beat * (-(-length // self._r_width))
        elif command is _WRITE and not self.read_only:
            if length == 1:
                self.data[address] = payload.data[0]
            else:
                self.data[address:address + length] = payload.data[:length]
            stats = self.stats
            stats.writes += 1
            stats.words_written += length
            delay += self._w_latency + self._w_per_beat * (-(-length // self._w_width))
        elif command is _IGNORE:
            payload.status = _OK
            return delay
        else:
            self._command_error(payload)
            return delay
        payload.status = _OK
        payload.dmi_allowed = self._dmi
        return delay

    def transport_dbg(self, payload: GenericPayload) -> int:
        """Read or write without time or statistics (may write a read-only memory)."""
        address = payload.address
        length = payload.length
        if address < 0 or length < 0 or address + length > self.size:
            self._address_error(payload)
            return 0
        command = payload.command
        if command is _READ:
            if payload.data is None:
                payload.data = self.data[address:address + length].copy()
            else:
                payload.data[:length] = self.data[address:address + length]
        elif command is _WRITE:
            self.data[address:address + length] = payload.data[:length]
        elif command is _IGNORE:
            length = 0
        else:
            self._command_error(payload)
            return 0
        payload.status = _OK
        return length

    # ------------------------------------------------------------------ DMI
    def get_direct_mem_ptr(self, payload: GenericPayload) -> DmiRegion | None:
        """The whole array, unless DMI is disabled, the address is outside or a write is
        asked of a read-only memory."""
        address = payload.address
        if (not self._dmi or not 0 <= address < self.size
                or (payload.command is _WRITE and self.read_only)):
            payload.dmi_allowed = False
            return None
        payload.dmi_allowed = True
        return DmiRegion(0, self.size, self._dmi_view, self.read_timing, self.write_timing,
                         True, not self.read_only, self.stats.count, self.name)

    def set_dmi(self, enabled: bool) -> None:
        """Grant or withdraw direct access; withdrawing invalidates every region given."""
        self._dmi = enabled
        if not enabled:
            self.socket.invalidate_direct_mem_ptr(0, self.size)

    @property
    def dmi_enabled(self) -> bool:
        """Whether :meth:`get_direct_mem_ptr` grants access."""
        return self._dmi

    # ------------------------------------------------------------------ errors
    def check_range(self, address: int, length: int = 1,
                    command: Command = Command.READ) -> None:
        """Raise :class:`~rlaccel.util.errors.SimError` unless words ``address..+length`` exist."""
        if address < 0 or length < 0 or address + length > self.size:
            raise SimError(self._range_message(command, address, length))

    def _range_message(self, command: Command, address: int, length: int) -> str:
        return (f"memory {self.name!r} has {self.size} words (0x0..{self.size - 1:#x}): "
                f"cannot {command.value} {_words(address, length)}")

    def _address_error(self, payload: GenericPayload) -> None:
        payload.status = _ADDRESS_ERROR
        payload.detail = self._range_message(payload.command, payload.address, payload.length)

    def _command_error(self, payload: GenericPayload) -> None:
        payload.status = _COMMAND_ERROR
        why = "it is read-only" if payload.command is _WRITE else "unknown command"
        payload.detail = (f"memory {self.name!r}: cannot {payload.command.value} "
                          f"{_words(payload.address, payload.length)}: {why}")

    def __repr__(self) -> str:
        return f"Memory({self.name!r}, {self.size} words of {self.data.dtype})"
