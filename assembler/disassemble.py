"""``.rlb`` -> assembly text that reassembles to the same sections and symbol table.

Labels come from the symbol table, operands are printed by name, addresses as ``SYMBOL`` or
``SYMBOL+k``, data as ``.values`` (exact decimal forms of the stored words) and ``.zero`` runs.
A symbol name that is not a plain identifier, or is an instruction mnemonic (``a;b``,
``ff``), is written in backquotes (`` `a;b` ``), so every name a binary may hold reassembles.
Only the ``source`` metadata of a reassembled binary differs: it names the file assembled.

The binary is first checked against its architecture (:func:`.check.check_binary`; the
architecture is an installed one unless the caller names another), so a binary the assembler
could not have produced is refused with a message naming it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from rlaccel.isa.arch import Arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import Instruction, encoding_for
from rlaccel.isa.immediate import value_from_imm
from rlaccel.isa.table import ENUMS, TABLE

from rlaccel.util.version import VERSION
from rlaccel.assembler.check import arch_of, check_binary
from rlaccel.assembler.evaluate import SECTION_SPACE, space_of_kind
from rlaccel.assembler.parser import is_plain_name
from rlaccel.assembler.rlb import Binary, read

__all__ = ["disassemble", "disassemble_file", "decode_program", "format_instruction",
           "symbol_text"]

_VALUES_PER_LINE = 8
#: address space -> the section whose symbols are addresses in it
_SECTION = {space: section for section, space in SECTION_SPACE.items() if space}


def decode_program(b: Binary, arch: Arch | str | None = None) -> list[Instruction]:
    """Check a binary against its architecture and decode every instruction (a bad word's
    DecodeError names the binary and the instruction's index)."""
    return check_binary(b, arch_of(b, arch))


def symbol_text(name: str) -> str:
    """A symbol name as assembly source: plain identifiers as they are, anything else (and
    instruction mnemonics) in backquotes with backquotes and backslashes escaped."""
    if is_plain_name(name) and name not in TABLE:
        return name
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


class _Names:
    """Address -> symbolic operand text, per memory space."""

    def __init__(self, b: Binary):
        self.exact: dict[str, dict[int, str]] = defaultdict(dict)
        self.spans: dict[str, list] = defaultdict(list)
        for s in sorted(b.symbols, key=lambda s: (s.space, s.address, -s.length, s.name)):
            if s.space == "const":
                continue
            self.exact[s.space].setdefault(s.address, symbol_text(s.name))
            if s.length > 1:
                self.spans[s.space].append(s)

    def text(self, space: str, value: int) -> str:
        if value in self.exact[space]:
            return self.exact[space][value]
        for s in self.spans[space]:
            if s.address < value < s.address + s.length:
                return f"{symbol_text(s.name)}+{value - s.address}"
        return str(value)


def format_instruction(ins: Instruction, enc, dt, names: _Names | None = None) -> str:
    """One instruction as assembly text with named operands."""
    d = enc.ops[ins.mnemonic]
    parts = []
    for name in d.operands:
        v = ins.operands[name]
        kind = d.kind(name)
        if kind in ENUMS:
            text = ENUMS[kind][v]
        elif kind == "word":
            text = repr(value_from_imm(dt, v))
        elif names is not None and _SECTION.get(space_of_kind(kind)):
            text = names.text(_SECTION[space_of_kind(kind)], v)
        else:
            text = str(v)
        parts.append(f"{name}={text}")
    return f"{ins.mnemonic:<10s} {', '.join(parts)}".rstrip()


def _data_lines(b: Binary, space: str, blob: bytes, dt) -> list[str]:
    raw = dt.from_bytes(blob) if blob else np.zeros(0, dtype=dt.storage)
    values = dt.to_float(raw) if len(raw) else np.zeros(0)
    # zero words by their bits: -0.0 is a value to write out, not part of a .zero run
    zero = dt.to_words(raw) == 0 if len(raw) else np.zeros(0, dtype=bool)
    syms = defaultdict(list)
    for s in b.symbols_in(space):
        syms[s.address].append(s)
    out = [f".{'synapse' if space == 'synapse' else 'data'}"]
    n = len(raw)

    def emit(lo: int, hi: int) -> None:
        k = lo
        while k < hi:
            j = k
            if zero[k]:
                while j < hi and zero[j]:
                    j += 1
                out.append(f"        .zero {j - k}")
            else:
                while j < hi and not zero[j] and j - k < _VALUES_PER_LINE:
                    j += 1
                out.append("        .values " + ", ".join(repr(float(v)) for v in values[k:j]))
            k = j

    # Labels in address order; each is followed by its words (its length, but never past
    # the next label or the image), so every word is written once. ``a``: the image is
    # written up to here; ``counter``: the assembler's location counter.
    addrs = sorted(syms)
    a = counter = 0
    for i, at in enumerate(addrs):
        gap_end = min(at, n)
        if a < gap_end and not np.all(zero[a:gap_end]):
            out.append(f"        .org {a}")       # also closes the labels above
            emit(a, gap_end)
            counter = gap_end
        a = max(a, gap_end)
        if counter != at:
            out.append(f"        .org {at}")
        for s in sorted(syms[at], key=lambda s: s.name):
            out.append(f"{symbol_text(s.name)}:")
        counter = at
        nxt = addrs[i + 1] if i + 1 < len(addrs) else n
        end = min(at + max(s.length for s in syms[at]), nxt, n)
        if end > at:
            emit(at, end)
            counter = a = end
    if a < n:                                      # the rest, zeros too: the image's length
        out.append(f"        .org {a}")
        emit(a, n)
    return out


def disassemble(b: Binary, arch: Arch | str | None = None) -> str:
    """Assembly text for a binary, checked against ``arch`` (default: the installed
    architecture the binary names)."""
    arch = arch_of(b, arch)
    program = check_binary(b, arch)
    enc = encoding_for(arch)
    dt = get_dtype(arch.knobs.dtype)
    names = _Names(b)
    origin = "".join(c if c.isprintable() else "?" for c in b.origin)
    lines = [f"; disassembled by rlaccel {VERSION} from {origin}",
             f"; {len(program)} instructions of {enc.instr_bits} bits, families "
             f"{', '.join(b.families)}",
             f".arch   {_arch_text(b.arch)}"]
    for s in b.symbols_in("const"):
        lines.append(f".equ    {symbol_text(s.name)}, {s.address}")
    labels = defaultdict(list)
    for s in b.symbols_in("text"):
        labels[s.address].append(s.name)
    lines.append(".text")
    for pc, ins in enumerate(program):
        for name in sorted(labels.get(pc, ())):
            lines.append(f"{symbol_text(name)}:")
        lines.append(f"        {format_instruction(ins, enc, dt, names)}")
    for pc in sorted(k for k in labels if k >= len(program)):
        for name in sorted(labels[pc]):
            lines.append(f"{symbol_text(name)}:")
    lines += _data_lines(b, "data", b.data, dt)
    lines += _data_lines(b, "synapse", b.synapse, dt)
    return "\n".join(lines) + "\n"


def _arch_text(name: str) -> str:
    """An architecture name as ``.arch`` reads it back: bare when it is a dashed name
    (``adhdp-f64``), else as a string."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z_][A-Za-z0-9_]*)*", name):
        return name
    return '"' + name + '"'


def disassemble_file(path: str | Path, arch: Arch | str | None = None) -> str:
    """Read and disassemble the binary at ``path`` (see :func:`disassemble`)."""
    return disassemble(read(path), arch)
