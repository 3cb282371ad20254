"""A binary checked against its architecture: could the assembler have produced it?

:mod:`.rlb` checks that a file is a well-formed container; this module checks that its
contents mean something on the architecture it names:

* :func:`arch_of` -- the architecture to check against: the one the binary names, looked
  up only among the installed architectures (``isa/archs``), unless the user names one (a
  name or a ``.toml`` path, ``--arch``). A binary never makes rlaccel read a file of its
  choosing.
* :func:`check_binary` -- widths, families, memory sizes, symbols and every instruction
  (decoded, its jump targets inside the program, its memory ranges inside their memories,
  its immediates and the data images finite numbers). It returns the decoded program.

Every problem is a :class:`~rlaccel.util.errors.BinaryFormatError` (or an ``ArchError`` for
an architecture that does not match) whose message starts with the binary's path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rlaccel.isa.arch import Arch, arch_names, load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import Encoding, Instruction, encoding_for
from rlaccel.util.errors import ArchError, BinaryFormatError, DecodeError
from rlaccel.isa.immediate import value_from_imm
from rlaccel.isa.table import FAMILIES, TABLE

from rlaccel.assembler.evaluate import space_of_kind
from rlaccel.assembler.rlb import Binary, check_arch

__all__ = ["arch_of", "check_binary"]

#: symbol space of the binary -> the memory its addresses are in (text: the program itself)
_SYMBOL_MEMORY = {"data": "unified", "synapse": "synapse"}


def arch_of(b: Binary, arch: Arch | str | Path | None = None) -> Arch:
    """The architecture ``b`` is read against: ``arch`` if given (an Arch, a name or a
    ``.toml`` path), else the installed architecture the binary names."""
    if isinstance(arch, Arch):
        return arch
    if arch is not None:
        return load_arch(arch)
    installed = arch_names()
    if b.arch not in installed:
        raise ArchError(f"{b.origin}: the binary names architecture {b.arch!r}, which is not "
                        f"installed (installed: {', '.join(installed)}); pass --arch NAME or "
                        f"--arch FILE.toml to read it against another architecture")
    return load_arch(b.arch)


def check_binary(b: Binary, arch: Arch) -> list[Instruction]:
    """Check ``b`` against ``arch`` as the assembler would have; return its instructions."""
    def fail(msg: str) -> BinaryFormatError:
        return BinaryFormatError(f"{b.origin}: {msg}")

    enc = encoding_for(arch)
    check_arch(b, arch.name, enc.hash)
    dt = get_dtype(arch.knobs.dtype)
    if b.instr_bits != enc.instr_bits:
        raise fail(f"instructions are {b.instr_bits} bits, but '{arch.name}' has "
                   f"{enc.instr_bits}-bit instructions")
    if b.data_word_bits != dt.bits:
        raise fail(f"data words are {b.data_word_bits} bits, but '{arch.name}' has "
                   f"{dt.bits}-bit {dt.name} words")
    for f in b.families:
        if f not in FAMILIES:
            raise fail(f"unknown ISA family {f!r} (families: {', '.join(FAMILIES)})")
        if f not in arch.knobs.families:
            raise fail(f"ISA family {f!r} is not implemented by '{arch.name}' (it has "
                       f"{', '.join(arch.knobs.families)})")
    n = b.n_instructions
    if n > enc.imem_capacity:
        raise fail(f"{n} instructions of {enc.instr_bits} bits do not fit the "
                   f"{arch.knobs.imem_bytes}-byte instruction memory of '{arch.name}' "
                   f"({enc.imem_capacity} instructions)")
    mems = arch.memories
    for space, blob in (("data", b.data), ("synapse", b.synapse)):
        words, size = len(blob) // b.word_bytes, mems[_SYMBOL_MEMORY[space]]
        if words > size:
            raise fail(f"the {space} image has {words} words, but {_SYMBOL_MEMORY[space]} "
                       f"memory has {size} on '{arch.name}'")
        values = dt.to_float(dt.from_bytes(blob)) if blob else np.zeros(0)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise fail(f"{space} word {int(bad[0])} is {float(values[bad[0]])!r}, not a "
                       f"finite number")
    for s in b.symbols:
        end = s.address + s.length
        size = n if s.space == "text" else mems.get(_SYMBOL_MEMORY.get(s.space, ""))
        if size is not None and end > size:
            where = "the program" if s.space == "text" else f"{_SYMBOL_MEMORY[s.space]} memory"
            raise fail(f"symbol {s.name!r} ({s.space} {s.address}..{end}) lies outside "
                       f"{where} ({size} {'instructions' if s.space == 'text' else 'words'})")
    return [_instruction(b, enc, dt, i, w, fail) for i, w in enumerate(enc.from_bytes(b.text))]


def _instruction(b: Binary, enc: Encoding, dt, i: int, word: int, fail) -> Instruction:
    try:
        ins = enc.decode(word)
    except DecodeError as exc:
        raise DecodeError(f"{b.origin}: instruction {i}: {exc}") from None
    d = TABLE[ins.mnemonic]
    if d.family not in b.families:
        raise fail(f"instruction {i} ({ins.mnemonic}) is of ISA family '{d.family}', which "
                   f"the binary does not list (it lists {', '.join(b.families)})")
    n = b.n_instructions
    for name, v in ins.operands.items():
        kind = d.kind(name)
        if space_of_kind(kind) == "text" and v >= n:
            raise fail(f"instruction {i} ({ins.mnemonic}) jumps to {v}, outside the program "
                       f"({n} instructions)")
        if kind == "word" and not np.isfinite(value_from_imm(dt, v)):
            raise fail(f"instruction {i} ({ins.mnemonic}) has the immediate "
                       f"{value_from_imm(dt, v)!r}, not a finite number")
    mems = enc.arch.memories
    for name, _rw, addr, words in enc.extents(ins):
        space = enc.space_of(ins.mnemonic, name)
        if addr + words > mems[space]:
            raise fail(f"instruction {i} ({ins.mnemonic}) {name}={addr} spans {words} "
                       f"word(s), past the end of {space} memory ({mems[space]} words)")
    return ins
