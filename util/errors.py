"""The one exception tree of rlaccel.

Every error a user can cause (a bad program, a bad binary, a bad architecture file, an
instruction that does not fit its field) is a :class:`RlaccelError`. The command line turns
these into a one-paragraph message and exit status 1; anything else is a bug.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

__all__ = [
    "did_you_mean",
    "RlaccelError",
    "ArchError",
    "IsaError",
    "EncodeError",
    "DecodeError",
    "DTypeError",
    "SourceError",
    "AsmError",
    "BinaryFormatError",
    "SimError",
    "OutputError",
    "ResourceError",
]


class RlaccelError(Exception):
    """Base class of every error rlaccel reports to its user."""


class ArchError(RlaccelError):
    """An architecture file is malformed, unknown, or a program does not fit it."""


class IsaError(RlaccelError):
    """The ISA table is inconsistent, or an instruction is used against its definition."""


class EncodeError(IsaError):
    """An operand value does not fit its field, or an operand is missing or unknown."""


class DecodeError(IsaError):
    """An instruction word is not a legal instruction of the architecture."""


class DTypeError(RlaccelError):
    """A number format name or parameter is not valid."""


class BinaryFormatError(RlaccelError):
    """An ``.rlb`` file is not a valid rlaccel binary (magic, version, CRC, truncation...)."""


class SimError(RlaccelError):
    """The simulated machine stopped on an error of the program it runs."""


class OutputError(RlaccelError):
    """An output file must not or cannot be written: it is one of the command's inputs, two
    outputs are the same file, it is not a regular file, or its directory is missing or
    read-only (:func:`rlaccel.util.files.check_outputs`)."""


class ResourceError(RlaccelError):
    """A setting asks for more than this process may use: memory a network, a buffer or a
    sweep would need (estimated before it is allocated, :mod:`rlaccel.util.memory`), or a
    count beyond a stated limit. The message names the setting."""


class SourceError(RlaccelError):
    """An error located in a source file: ``file:line:col: message``, the line and a caret."""

    def __init__(self, message: str, file: str = "<input>", line: int = 0, col: int = 0,
                 source_line: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.source_line = source_line
        super().__init__(self._format())

    def _format(self) -> str:
        if self.line <= 0:
            return f"{self.file}: {self.message}"
        head = f"{self.file}:{self.line}:{self.col}: {self.message}"
        if self.source_line is None:
            return head
        text = self.source_line.rstrip("\n").expandtabs(1)
        caret = " " * max(self.col - 1, 0) + "^"
        return f"{head}\n    {text}\n    {caret}"


class AsmError(SourceError):
    """An error in an assembly source file."""


def did_you_mean(word: str, known: Iterable[str], prefix: str = "") -> str:
    """The hint an unknown-name message ends with: `` (did you mean 'PREFIXname'?)`` for the
    closest of ``known`` to ``word``, or ``""`` when none is close."""
    hint = get_close_matches(word, list(known), n=1)
    return f" (did you mean '{prefix}{hint[0]}'?)" if hint else ""
