"""Instructions as data, and their bits on one architecture.

:class:`Instruction` carries a mnemonic and semantic operand values (``rows=6`` means six rows,
``act`` is an index into ``ENUMS["act"]``) and no bits. :class:`Encoding` lays the formats of
:mod:`isa.table` out for one architecture and is the mirrored ``encode``/``decode`` pair.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.util.errors import DecodeError, EncodeError
from rlaccel.isa.expr import compile_expr
from rlaccel.isa.table import ENUMS, EXTENT_KNOBS, FIXED_WIDTHS, FORMATS, OPCODES, SPACES, TABLE, OpDef

__all__ = ["Instruction", "Field", "Encoding", "encoding_for", "kind_words"]


@dataclass(frozen=True)
class Instruction:
    """One instruction, semantically: mnemonic and operand values; no bits, no location."""

    mnemonic: str
    operands: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "operands", MappingProxyType(dict(self.operands)))

    def __eq__(self, other):
        return (isinstance(other, Instruction) and self.mnemonic == other.mnemonic
                and dict(self.operands) == dict(other.operands))

    def __hash__(self):
        return hash((self.mnemonic, tuple(sorted(self.operands.items()))))

    def __repr__(self):
        ops = ", ".join(f"{k}={v}" for k, v in self.operands.items())
        return f"Instruction({self.mnemonic} {ops})"


@dataclass(frozen=True)
class Field:
    """Placement of one field in the instruction word."""

    name: str
    kind: str
    lsb: int
    width: int

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lsb


class Encoding:
    """The instruction encoding of one architecture.

    The opcode sits in the low ``op_bits`` bits, every format's fields follow in declaration
    order, and the word is as wide as the widest format of the families the architecture
    implements. Fields a mnemonic does not use are reserved and must be zero.
    """

    def __init__(self, arch: Arch):
        self.arch = arch
        g = arch.geometry
        fams = set(arch.knobs.families)
        self.ops: Mapping[str, OpDef] = MappingProxyType(
            {m: d for m, d in TABLE.items() if d.family in fams})
        self.op_bits = max(OPCODES[d.major] for d in self.ops.values()).bit_length()
        self._widths = {**g.widths, **FIXED_WIDTHS, "op": self.op_bits}
        layouts: dict[str, tuple[Field, ...]] = {}
        for fmt in sorted({d.format for d in self.ops.values()}):
            lsb, placed = 0, []
            for name, kind in (("op", "op"), *FORMATS[fmt]):
                width = self._widths[kind]
                placed.append(Field(name, kind, lsb, width))
                lsb += width
            layouts[fmt] = tuple(placed)
        self.layouts: Mapping[str, tuple[Field, ...]] = MappingProxyType(layouts)
        self.instr_bits = max(f[-1].lsb + f[-1].width for f in layouts.values())
        self.instr_bytes = (self.instr_bits + 7) // 8
        self._by_opcode: dict[int, list[OpDef]] = {}
        for d in self.ops.values():
            self._by_opcode.setdefault(d.opcode, []).append(d)
        self._extents = {(m, kind, name): compile_expr(text)
                         for m, d in self.ops.items()
                         for kind, space in (("r", d.reads), ("w", d.writes))
                         for name, text in space.items()}
        self._knob_env = {k: getattr(arch.knobs, k) for k in EXTENT_KNOBS}
        self._validate()
        self.hash = self._hash()

    # -- validation -------------------------------------------------------------------------
    def _validate(self) -> None:
        """No two fields of a format overlap and every field lies inside the word."""
        for fmt, fields in self.layouts.items():
            used = 0
            for f in fields:
                if used & f.mask:
                    raise EncodeError(f"format {fmt}: field {f.name} overlaps another field")
                if f.lsb + f.width > self.instr_bits:
                    raise EncodeError(f"format {fmt}: field {f.name} exceeds the word")
                used |= f.mask
        by_major: dict[str, dict] = {}
        for d in self.ops.values():
            where = {f.name: (f.lsb, f.width) for f in self.layouts[d.format] if f.name in d.fixed}
            prev = by_major.setdefault(d.major, where)
            if prev != where:
                raise EncodeError(f"opcode {d.major}: the selector fields of {d.mnemonic} are "
                                  f"not where the other {d.major} formats have them")

    def _hash(self) -> str:
        desc = {"bits": self.instr_bits,
                "layouts": {k: [(f.name, f.kind, f.lsb, f.width) for f in v]
                            for k, v in self.layouts.items()},
                "ops": {m: [d.opcode, d.format, sorted(d.fixed.items()), list(d.operands)]
                        for m, d in sorted(self.ops.items())},
                "biased": sorted(self.arch.geometry.biased)}
        blob = json.dumps(desc, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    # -- operand ranges ---------------------------------------------------------------------
    def field_range(self, kind: str) -> tuple[int, int]:
        """Semantic (min, max) of a field kind on this architecture."""
        g = self.arch.geometry
        if kind in g.ranges:
            return g.ranges[kind]
        if kind in ENUMS:
            return 0, len(ENUMS[kind]) - 1
        return 0, (1 << self._widths[kind]) - 1

    def field_width(self, kind: str) -> int:
        """Bits of a field kind on this architecture."""
        return self._widths[kind]

    def layout(self, mnemonic: str) -> tuple[Field, ...]:
        return self.layouts[self.opdef(mnemonic).format]

    def opdef(self, mnemonic: str) -> OpDef:
        try:
            return self.ops[mnemonic]
        except KeyError:
            if mnemonic in TABLE:
                fam = TABLE[mnemonic].family
                raise EncodeError(
                    f"'{mnemonic}' belongs to ISA family '{fam}', which architecture "
                    f"'{self.arch.name}' does not implement (families: "
                    f"{', '.join(self.arch.knobs.families)})") from None
            raise EncodeError(f"unknown instruction '{mnemonic}'") from None

    def complete(self, ins: Instruction) -> Instruction:
        """Fill defaults and check every operand is known, present and in range."""
        d = self.opdef(ins.mnemonic)
        ops = dict(ins.operands)
        for name in ops:
            if name not in d.operands:
                expected = ", ".join(d.operands) or "no operands"
                raise EncodeError(f"{d.mnemonic} has no operand '{name}' (operands: {expected})")
        for name in d.operands:
            if name not in ops:
                if name not in d.defaults:
                    raise EncodeError(f"{d.mnemonic} needs operand '{name}' "
                                      f"({kind_words(d.kind(name))})")
                default = d.defaults[name]
                kind = d.kind(name)
                ops[name] = ENUMS[kind].index(default) if isinstance(default, str) else default
        for name in d.operands:
            kind = d.kind(name)
            lo, hi = self.field_range(kind)
            v = ops[name]
            if isinstance(v, bool) or not isinstance(v, int):
                raise EncodeError(f"{d.mnemonic}: {name} must be an integer, not {v!r}")
            if not lo <= v <= hi:
                what = f"{lo}..{hi}"
                if kind in ENUMS:
                    what = ", ".join(ENUMS[kind])
                raise EncodeError(f"{d.mnemonic}: {name}={v} does not fit: "
                                  f"{kind_words(kind)} must be {what} on '{self.arch.name}'")
        return Instruction(d.mnemonic, {n: ops[n] for n in d.operands})

    def extents(self, ins: Instruction) -> list[tuple[str, str, int, int]]:
        """(operand, 'r'|'w', first word, words) for every memory range the instruction
        touches, from the table's read/write extents."""
        d = self.ops[ins.mnemonic]
        out = []
        for kind, space in (("r", d.reads), ("w", d.writes)):
            for name in space:
                n = self._extents[(d.mnemonic, kind, name)]({**self._knob_env, **ins.operands})
                out.append((name, kind, ins.operands[name], n))
        return out

    def space_of(self, mnemonic: str, operand: str) -> str:
        """Memory space an address operand points into (:data:`rlaccel.isa.table.SPACES`)."""
        return SPACES[self.ops[mnemonic].kind(operand)]

    # -- encode / decode --------------------------------------------------------------------
    def encode(self, ins: Instruction) -> int:
        """Instruction -> integer word (operands checked against their fields)."""
        ins = self.complete(ins)
        d = self.ops[ins.mnemonic]
        g = self.arch.geometry
        word = 0
        for f in self.layouts[d.format]:
            if f.name == "op":
                raw = d.opcode
            elif f.name in d.fixed:
                raw = d.fixed[f.name]
            elif f.name in ins.operands:
                raw = ins.operands[f.name]
                if f.kind in g.biased:
                    raw -= 1
                raw &= (1 << f.width) - 1  # two's complement for signed words
            else:
                continue
            word |= raw << f.lsb
        return word

    def decode(self, word: int) -> Instruction:
        """Integer word -> Instruction; an illegal word raises DecodeError saying why."""
        if not 0 <= word < (1 << self.instr_bits):
            raise DecodeError(f"0x{word:x} is wider than the {self.instr_bits}-bit instruction "
                              f"word of '{self.arch.name}'")
        opcode = word & ((1 << self.op_bits) - 1)
        cands = self._by_opcode.get(opcode)
        if not cands:
            raise DecodeError(f"{self.hex(word)}: opcode {opcode} is "
                              f"not an instruction of '{self.arch.name}'")
        sel_layout = self.layouts[cands[0].format]  # selectors sit alike in every format
        raw = {f.name: (word >> f.lsb) & ((1 << f.width) - 1) for f in sel_layout}
        for d in cands:
            if all(raw[k] == v for k, v in d.fixed.items()):
                break
        else:
            sel = {k: raw[k] for k in cands[0].fixed}
            raise DecodeError(f"{self.hex(word)}: opcode {cands[0].major} has no instruction with "
                              f"{', '.join(f'{k}={v}' for k, v in sel.items())}")
        layout = self.layouts[d.format]
        raw = {f.name: (word >> f.lsb) & ((1 << f.width) - 1) for f in layout}
        used = sum(f.mask for f in layout if f.name == "op" or f.name in d.fixed
                   or f.name in d.operands)
        if word & ~used:
            raise DecodeError(f"{self.hex(word)}: reserved bits of {d.mnemonic} are not zero "
                              f"(mask 0x{word & ~used:x})")
        g = self.arch.geometry
        ops = {}
        for f in layout:
            if f.name not in d.operands:
                continue
            v = raw[f.name]
            if f.kind == "word" and v >= 1 << (f.width - 1):
                v -= 1 << f.width
            if f.kind in g.biased:
                v += 1
            lo, hi = self.field_range(f.kind)
            if not lo <= v <= hi:
                raise DecodeError(f"{self.hex(word)}: {d.mnemonic} {f.name}={v} is outside "
                                  f"{lo}..{hi} on '{self.arch.name}'")
            ops[f.name] = v
        return Instruction(d.mnemonic, ops)

    def hex(self, word: int) -> str:
        """A word in hex, as wide as the instruction word."""
        return f"0x{word:0{(self.instr_bits + 3) // 4}x}"

    # -- bytes --------------------------------------------------------------------------------
    def to_bytes(self, words: Iterable[int]) -> bytes:
        """Words -> bytes, ``instr_bytes`` little-endian bytes per instruction."""
        return b"".join(w.to_bytes(self.instr_bytes, "little") for w in words)

    def from_bytes(self, blob: bytes) -> list[int]:
        n = self.instr_bytes
        if len(blob) % n:
            raise DecodeError(f"text section of {len(blob)} bytes is not a whole number of "
                              f"{n}-byte instructions")
        return [int.from_bytes(blob[i:i + n], "little") for i in range(0, len(blob), n)]

    @property
    def imem_capacity(self) -> int:
        """Instructions the instruction memory holds (``imem_bytes*8 // instr_bits``)."""
        return self.arch.knobs.imem_bytes * 8 // self.instr_bits


def kind_words(kind: str) -> str:
    """A field kind in words for messages ("a length", "an offset")."""
    return {"uaddr": "a unified-memory address", "saddr": "a synapse-memory address",
            "srm": "a sparse-row-memory address", "dim": "a length", "count": "an offset",
            "pc": "a label or instruction index", "word": "a data word",
            "ctr": "a loop counter", "limit": "a loop limit", "act": "an activation",
            "batch": "a batch size", "vlen": "a region length", "agent": "an agent number",
            "group": "a group count", "hvdim": "a hypervector length"}.get(kind, "a value")


_ENC: dict[str, Encoding] = {}


def encoding_for(arch: Arch | str) -> Encoding:
    """The (cached) encoding of an architecture, given as Arch or name/path."""
    a = load_arch(arch) if isinstance(arch, str) else arch
    key = a.path or a.name
    if key not in _ENC:
        _ENC[key] = Encoding(a)
    return _ENC[key]
