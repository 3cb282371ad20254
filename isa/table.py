"""The ISA table: every instruction of every family, declared once.

Everything else derives from this module: the encoder and decoder (:mod:`isa.encoding`), the
assembler's operand checks, the disassembler, the generated reference (``rlaccel isa
--markdown``) and, later, the MyHDL decoder and the simulator's dispatch.

* ``OPCODES``: major opcode numbers, fixed across architectures (the opcode field is as wide
  as the largest opcode of the families an architecture implements).
* ``FORMATS``: field sequences packed from the least significant bit, after the opcode.
  A field's *kind* names how wide it is on an architecture (:func:`isa.arch.derive`) or, for
  the kinds in ``FIXED_WIDTHS``, a constant width.
* ``TABLE``: one :class:`OpDef` per mnemonic, assembled from the families' files
  (:mod:`rlaccel.isa.family`): the base family every machine implements (``isa/base.toml``)
  and the family each machine defines (its folder's ``isa.toml``, found by
  :func:`rlaccel.isa.machine.machines`). A family numbers its major opcodes from its
  ``first_opcode``; no two families share a number.
  ``fixed`` fields (``funct``, ``mode``) select the
  mnemonic within its major opcode; ``operands`` are what a program writes; format fields that
  are neither are reserved and must be zero. ``reads``/``writes`` give each address operand's
  extent in words as an expression of the operands: the assembler checks the whole range lies
  inside its memory and the simulator uses the same ranges for hazard checks.
* ``SPACES``: the memory space each address kind points into.

The virtual-update (VU) state of a layer lives in synapse memory right after its weight matrix
``W`` (``rows*cols`` words at ``syn``): ``Lambda`` (1 word), ``o0`` (rows), ``E`` (rows) —
the ADHDP paper, section IV-B ("they can be stored conveniently in the synapse memory").
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Mapping

from rlaccel.isa.dtypes.activations import ACTIVATIONS
from rlaccel.util.errors import IsaError
from rlaccel.isa.expr import compile_expr, names_in
from pathlib import Path

from rlaccel.isa import family as family_file
from rlaccel.isa.machine import machines
from rlaccel.isa.rows import OpDef, op

__all__ = ["OPCODES", "OPCODE_FAMILY", "FORMATS", "FIXED_WIDTHS", "KIND_DOC", "ENUMS", "SPACES",
           "EXTENT_KNOBS",
           "OpDef", "TABLE", "FAMILIES", "FAMILY_FILES", "validate", "op"]


def _family_files() -> dict:
    """ISA family -> its file, read: the base family, then each machine's, in opcode order
    (the base family's named shapes serve every family)."""
    base = family_file.load(Path(__file__).with_name("base.toml"))
    fams = {"base": base}
    for m in machines().values():
        if m.family is None:
            continue
        if m.family in fams:
            raise IsaError(f"{m.path}: ISA family '{m.family}' is defined twice")
        fams[m.family] = family_file.load(m.isa, base.shapes)
    return dict(sorted(fams.items(), key=lambda kv: kv[1].first_opcode))


#: ISA family -> its file, read (:class:`rlaccel.isa.family.Family`)
FAMILY_FILES: Mapping = MappingProxyType(_family_files())
#: the ISA families, in opcode order
FAMILIES = tuple(FAMILY_FILES)


def _numbers() -> dict[str, int]:
    numbers: dict[str, int] = {}
    owner: dict[int, str] = {}
    for fam, fm in FAMILY_FILES.items():
        for i, major in enumerate(fm.majors):
            n = fm.first_opcode + i
            if major in numbers:
                raise IsaError(f"ISA table: major opcode {major} of family {fam} is defined "
                               f"twice")
            if n in owner:
                raise IsaError(f"ISA table: opcode {n} is {owner[n]} and {major} (family "
                               f"{fam}): give {fam} a first_opcode of {max(owner) + 1} or more")
            numbers[major], owner[n] = n, major
    return numbers


#: major opcode -> number (each family's majors from its first_opcode, in its order)
OPCODES: Mapping[str, int] = MappingProxyType(_numbers())
#: major opcode -> family
OPCODE_FAMILY: Mapping[str, str] = MappingProxyType(
    {m: fam for fam, fm in FAMILY_FILES.items() for m in fm.majors})

#: symbolic values of enumerated kinds (the index is the encoding); the activations are
#: the number formats' own list
ENUMS: Mapping[str, tuple[str, ...]] = MappingProxyType({"act": tuple(ACTIVATIONS)})

#: field kinds with a width that does not depend on the architecture (an enumerated kind is
#: as wide as its largest index)
FIXED_WIDTHS: Mapping[str, int] = MappingProxyType({
    "funct": 4, "mode": 2, "u4": 4, "u6": 6, "u8": 8, "u16": 16,
    **{kind: max(len(values) - 1, 1).bit_length() for kind, values in ENUMS.items()},
})

KIND_DOC: Mapping[str, str] = MappingProxyType({
    "op": "major opcode",
    "uaddr": "word address in the unified space (neuron memory, then buffers)",
    "saddr": "word address in synapse memory",
    "srm": "word address in the sparse row memory",
    "dim": "vector length / matrix rows or columns, 1..neuron_words (stored minus one)",
    "count": "offset, 0..neuron_words-1",
    "pc": "instruction index (a label)",
    "word": "one data word in the architecture's number format",
    "ctr": "loop counter number",
    "limit": "loop limit",
    "batch": "vectors in a batch, 1..max_batch (stored minus one)",
    "vlen": "region length in synapse words, 1..synapse_words (stored minus one)",
    "agent": "agent number on the ring",
    "group": "number of groups, 1..max_groups (stored minus one)",
    "hvdim": "hypervector length, 1..hv_dim (stored minus one)",
    "funct": "function within the major opcode",
    "act": f"activation: {', '.join(ACTIVATIONS)} (none bypasses the activate stage; bsig is "
           f"tanh(v/2))",
    "mode": "mode within the major opcode",
    "u4": "4-bit unsigned", "u6": "6-bit unsigned", "u8": "8-bit unsigned",
    "u16": "16-bit unsigned",
})

#: architecture knobs an extent may name besides the operands (for example the words an
#: all-gather writes: ``n*agents``)
EXTENT_KNOBS = ("agents", "cores", "lanes", "hv_dim", "max_groups", "max_batch")

#: address kind -> the memory space it points into (the architecture gives each space's size)
SPACES: Mapping[str, str] = MappingProxyType({
    "uaddr": "unified", "saddr": "synapse", "srm": "sparse_row"})

#: format name -> ((field, kind), ...), packed LSB-first after the opcode field
FORMATS: Mapping[str, tuple[tuple[str, str], ...]] = MappingProxyType(
    {name: fields for fm in FAMILY_FILES.values() for name, fields in fm.formats.items()})


def validate(entries: list[OpDef]) -> None:
    """Checks that need no architecture: names unique, selectors unique, operands exist.

    (Per-architecture checks -- fields inside the word, no overlapping bits -- are made by
    :class:`isa.encoding.Encoding` when it lays the formats out.)
    """
    seen: set[str] = set()
    dup = [e.mnemonic for e in entries if e.mnemonic in seen or seen.add(e.mnemonic)]
    if dup:
        raise IsaError(f"ISA table: duplicate mnemonic(s) {', '.join(dup)}")
    selectors: dict[tuple, str] = {}
    for e in entries:
        if e.major not in OPCODES:
            raise IsaError(f"ISA table: {e.mnemonic}: unknown major opcode {e.major}")
        if e.format not in FORMATS:
            raise IsaError(f"ISA table: {e.mnemonic}: unknown format {e.format}")
        fields = FORMATS[e.format]
        names = [n for n, _ in fields]
        if len(set(names)) != len(names):
            raise IsaError(f"ISA table: format {e.format} repeats a field")
        for name in (*e.operands, *e.fixed):
            if name not in names:
                raise IsaError(f"ISA table: {e.mnemonic}: '{name}' is not a field of "
                               f"format {e.format}")
        if set(e.operands) & set(e.fixed):
            raise IsaError(f"ISA table: {e.mnemonic}: a field is both operand and fixed")
        for space in (e.reads, e.writes):
            for name, extent in space.items():
                if name not in e.operands:
                    raise IsaError(f"ISA table: {e.mnemonic}: extent of non-operand '{name}'")
                unknown = names_in(extent) - set(e.operands) - set(EXTENT_KNOBS)
                if unknown:
                    raise IsaError(f"ISA table: {e.mnemonic}: extent '{extent}' names "
                                   f"{', '.join(sorted(unknown))}")
                compile_expr(extent)
        for name, value in e.fixed.items():
            width = FIXED_WIDTHS.get(dict(fields)[name])
            if width is None or not 0 <= value < (1 << width):
                raise IsaError(f"ISA table: {e.mnemonic}: fixed {name}={value} does not fit")
        key = (e.major, tuple(sorted(e.fixed.items())))
        if key in selectors:
            raise IsaError(f"ISA table: {e.mnemonic} and {selectors[key]} share opcode "
                           f"{e.major} with the same selectors {dict(e.fixed)}")
        selectors[key] = e.mnemonic
    by_major: dict[str, set] = {}
    for e in entries:
        by_major.setdefault(e.major, set()).add(tuple(sorted(e.fixed)))
    for major, keysets in by_major.items():
        if len(keysets) > 1:
            raise IsaError(f"ISA table: entries of {major} select on different fields {keysets}")


def _assemble() -> list[OpDef]:
    rows = []
    for fam, fm in FAMILY_FILES.items():
        for e in fm.entries:
            if OPCODE_FAMILY.get(e.major) != fam:
                raise IsaError(f"ISA table: {e.mnemonic} (family {fam}) uses major opcode "
                               f"{e.major}, which is not one of {fam}'s")
            rows.append(replace(e, family=fam, opcode=OPCODES[e.major], fields=FORMATS[e.format]))
    return rows


_ENTRIES = _assemble()
validate(_ENTRIES)
TABLE: Mapping[str, OpDef] = MappingProxyType({e.mnemonic: e for e in _ENTRIES})
