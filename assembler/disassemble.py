"""``.rlb`` -> assembly text that reassembles to the same sections and symbol table.

Labels come from the symbol table, operands are printed by name, addresses as ``SYMBOL`` or
``SYMBOL+k``, data as ``.values`` (exact decimal forms of the stored words) and ``.zero`` runs.
Only the ``source`` metadata of a reassembled binary differs: it names the file assembled.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from isa.arch import load_arch
from isa.dtypes import get_dtype
from isa.encoding import Instruction, encoding_for
from isa.errors import DecodeError
from isa.immediate import value_from_imm
from isa.table import ENUMS

from . import __version__
from .rlb import Binary, check_arch, read

__all__ = ["disassemble", "disassemble_file", "decode_program", "format_instruction"]

_VALUES_PER_LINE = 8


def decode_program(b: Binary) -> list[Instruction]:
    """Decode every instruction of a binary (DecodeError names the index of a bad word)."""
    arch = load_arch(b.arch)
    enc = encoding_for(arch)
    check_arch(b, arch.name, enc.hash)
    out = []
    for i, w in enumerate(enc.from_bytes(b.text)):
        try:
            out.append(enc.decode(w))
        except DecodeError as exc:
            raise DecodeError(f"{b.origin}: instruction {i}: {exc}") from None
    return out


class _Names:
    """Address -> symbolic operand text, per memory space."""

    def __init__(self, b: Binary):
        self.exact: dict[str, dict[int, str]] = defaultdict(dict)
        self.spans: dict[str, list] = defaultdict(list)
        for s in sorted(b.symbols, key=lambda s: (s.space, s.address, -s.length, s.name)):
            if s.space == "const":
                continue
            self.exact[s.space].setdefault(s.address, s.name)
            if s.length > 1:
                self.spans[s.space].append(s)

    def text(self, space: str, value: int) -> str:
        if value in self.exact[space]:
            return self.exact[space][value]
        for s in self.spans[space]:
            if s.address < value < s.address + s.length:
                return f"{s.name}+{value - s.address}"
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
        elif names is not None and kind in ("uaddr", "saddr", "pc"):
            space = {"uaddr": "data", "saddr": "synapse", "pc": "text"}[kind]
            text = names.text(space, v)
        else:
            text = str(v)
        parts.append(f"{name}={text}")
    return f"{ins.mnemonic:<10s} {', '.join(parts)}".rstrip()


def _data_lines(b: Binary, space: str, blob: bytes, dt) -> list[str]:
    raw = dt.from_bytes(blob) if blob else np.zeros(0, dtype=dt.storage)
    values = dt.to_float(raw) if len(raw) else np.zeros(0)
    syms = defaultdict(list)
    for s in b.symbols_in(space):
        syms[s.address].append(s)
    out = [f".{'synapse' if space == 'synapse' else 'data'}"]
    n = len(raw)

    def emit(lo: int, hi: int) -> None:
        k = lo
        while k < hi:
            j = k
            if raw[k] == 0:
                while j < hi and raw[j] == 0:
                    j += 1
                out.append(f"        .zero {j - k}")
            else:
                while j < hi and raw[j] != 0 and j - k < _VALUES_PER_LINE:
                    j += 1
                out.append("        .values " + ", ".join(repr(float(v)) for v in values[k:j]))
            k = j

    addrs = sorted(syms)
    a = counter = i = 0
    while a < n or i < len(addrs):
        if i < len(addrs) and addrs[i] <= a:
            at = addrs[i]
            if counter != at:
                out.append(f"        .org {at}")
            for s in sorted(syms[at], key=lambda s: s.name):
                out.append(f"{s.name}:")
            length = max(s.length for s in syms[at])
            emit(at, min(at + length, n))
            a = counter = max(a, at + length)
            i += 1
        else:
            nxt = addrs[i] if i < len(addrs) else n
            if np.any(raw[a:nxt] != 0) or i == len(addrs):
                out.append(f"        .org {a}")   # also closes the labels above
                emit(a, nxt)
                counter = nxt
            a = nxt
    return out


def disassemble(b: Binary) -> str:
    """Assembly text for a binary."""
    arch = load_arch(b.arch)
    enc = encoding_for(arch)
    dt = get_dtype(arch.knobs.dtype)
    program = decode_program(b)
    names = _Names(b)
    lines = [f"; disassembled by rlaccel {__version__} from {b.origin}",
             f"; {len(program)} instructions of {enc.instr_bits} bits, families "
             f"{', '.join(b.families)}",
             f".arch   {b.arch}"]
    for s in b.symbols_in("const"):
        lines.append(f".equ    {s.name}, {s.address}")
    labels = defaultdict(list)
    for s in b.symbols_in("text"):
        labels[s.address].append(s.name)
    lines.append(".text")
    for pc, ins in enumerate(program):
        for name in sorted(labels.get(pc, ())):
            lines.append(f"{name}:")
        lines.append(f"        {format_instruction(ins, enc, dt, names)}")
    for pc in sorted(k for k in labels if k >= len(program)):
        for name in sorted(labels[pc]):
            lines.append(f"{name}:")
    lines += _data_lines(b, "data", b.data, dt)
    lines += _data_lines(b, "synapse", b.synapse, dt)
    return "\n".join(lines) + "\n"


def disassemble_file(path: str | Path) -> str:
    return disassemble(read(path))
