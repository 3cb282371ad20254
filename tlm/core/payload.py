"""The generic payload: one memory transaction (TLM-2.0 ``tlm_generic_payload``).

A payload says what to do (:class:`Command`), where (a word address), how much (a length in
words) and with which buffer (``data``, a numpy array the initiator owns). The target answers
by setting :attr:`GenericPayload.status` and, for a read, by copying the words into ``data``.
The payload itself never copies: hot loops keep one payload and one buffer per socket and
refill them with :meth:`GenericPayload.prepare`.

Byte enables and streaming widths of TLM-2.0 are left out: the machines address words.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from rlaccel.util.errors import SimError

__all__ = ["Command", "Status", "GenericPayload"]


class Command(Enum):
    """What a transaction does. ``IGNORE`` reaches the target and changes nothing."""

    READ = "read"
    WRITE = "write"
    IGNORE = "ignore"


class Status(Enum):
    """The target's answer. A target sets exactly one of these before it returns."""

    INCOMPLETE = "incomplete"
    OK = "ok"
    ADDRESS_ERROR = "address error"
    COMMAND_ERROR = "command error"
    GENERIC_ERROR = "generic error"


_OK = Status.OK
_INCOMPLETE = Status.INCOMPLETE


@dataclass(slots=True, eq=False)
class GenericPayload:
    """One transaction of ``length`` words at word ``address``.

    ``data`` is the initiator's buffer: a read fills ``data[:length]``, a write takes its
    words from ``data[:length]``. A read with ``data=None`` gets a fresh array from the target
    (convenient, but it allocates). ``dmi_allowed`` is the target's hint that
    :meth:`~tlm.core.sockets.InitiatorSocket.get_direct_mem_ptr` would succeed here.
    ``extensions`` carries optional tags (energy attribution, tracing), ``None`` until used.
    ``detail`` is set by a target on an error, with a message that names it.
    """

    command: Command = Command.IGNORE
    address: int = 0
    length: int = 0
    data: np.ndarray | None = None
    status: Status = Status.INCOMPLETE
    dmi_allowed: bool = False
    extensions: dict[str, Any] | None = None
    detail: str = ""

    @classmethod
    def read(cls, address: int, length: int = 1, data: np.ndarray | None = None
             ) -> GenericPayload:
        """A new read of ``length`` words at ``address`` into ``data``."""
        return cls(Command.READ, address, length, data)

    @classmethod
    def write(cls, address: int, data: np.ndarray, length: int | None = None
              ) -> GenericPayload:
        """A new write of ``data`` (all of it unless ``length`` is given) at ``address``."""
        return cls(Command.WRITE, address, len(data) if length is None else length, data)

    def prepare(self, command: Command, address: int, length: int,
                data: np.ndarray | None = None) -> GenericPayload:
        """Reuse this payload for a new transaction: set the request, clear the answer."""
        self.command = command
        self.address = address
        self.length = length
        self.data = data
        self.status = _INCOMPLETE
        self.dmi_allowed = False
        self.detail = ""
        return self

    def is_ok(self) -> bool:
        """True when the target completed the transaction."""
        return self.status is _OK

    def error_message(self) -> str:
        """What went wrong, in words (``""`` when the transaction is OK).

        The target's own message (:attr:`detail`) when it gave one, otherwise the command, the
        words and the status, e.g. ``read of words 0x10..0x13 failed: address error``.
        """
        if self.status is _OK:
            return ""
        if self.detail:
            return self.detail
        what = self.status.value
        if self.status is _INCOMPLETE:
            what += " (no target answered)"
        return f"{self.command.value} of {_words(self.address, self.length)} failed: {what}"

    def raise_for_status(self) -> None:
        """Raise :class:`~rlaccel.util.errors.SimError` with :meth:`error_message` unless OK."""
        if self.status is not _OK:
            raise SimError(self.error_message())


def _words(address: int, length: int) -> str:
    """``word 0x10`` or ``words 0x10..0x13`` (``0 words at 0x10`` for an empty range)."""
    if length == 1:
        return f"word {address:#x}"
    if length <= 0:
        return f"{length} words at {address:#x}"
    return f"words {address:#x}..{address + length - 1:#x}"
