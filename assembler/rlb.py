"""The ``.rlb`` binary container: what the assembler writes and the simulator loads.

An ``.rlb`` file holds one assembled program: its instruction words, the initial images of
the unified memory and of the synapse memory, a symbol table (host drivers find their I/O
buffers by name, never by address) and metadata saying which architecture and instruction
encoding it was assembled for. The byte layout is specified in ``docs/rlb-format.md``.

The container is reproducible: equal :class:`Binary` values serialise to identical bytes
(families and symbols are kept in a canonical order, JSON keys are sorted, nothing records a
time). The loader trusts nothing: every way a file can be wrong (magic, version, CRC,
truncation, sections, metadata, symbol table) is a :class:`~rlaccel.util.errors.BinaryFormatError`
naming the file and what is wrong.

Example::

    >>> b = Binary(arch="adhdp", encoding_hash="0123456789abcdef", families=("base",),
    ...            instr_bits=64, data_word_bits=24, text=bytes(16), data=bytes(6),
    ...            synapse=b"", symbols=(Symbol("start", "text", 0, 2, "label"),),
    ...            source={"assembler": "rlaccel 0.1.0"})
    >>> loads(dumps(b)) == b, b.n_instructions, b.symbol("start").address
    (True, 2, 0)
"""

from __future__ import annotations

import difflib
import json
import os
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

from rlaccel.util.errors import ArchError, BinaryFormatError, RlaccelError
from rlaccel.util.files import atomic_write, read_bytes

__all__ = [
    "MAGIC",
    "FORMAT_VERSION",
    "SPACES",
    "KINDS",
    "Symbol",
    "Binary",
    "UnknownSymbolError",
    "dumps",
    "loads",
    "write",
    "read",
    "check_arch",
]

MAGIC = b"\x7fRLB"
FORMAT_VERSION = 1
SPACES = ("text", "data", "synapse", "const")
KINDS = ("label", "data", "equ")

_HEADER = struct.Struct("<4sHHI")        # magic, version, flags, total length
_SECTION = struct.Struct("<4sI")         # tag, payload length
_CRC = struct.Struct("<I")
_SYM_COUNT = struct.Struct("<I")
_SYM_ENTRY = struct.Struct("<BBHqI")     # space, kind, name length, address, length
_MIN_SIZE = _HEADER.size + _CRC.size
_MAX_FILE = 0xFFFFFFFF                   # the header's u32 total length
_MAX_BITS = 1024
_META_KEYS = ("arch", "data_word_bits", "encoding_hash", "families", "instr_bits", "source")
# Canonical order; the loader accepts any order but needs each exactly once.
_TAGS = {b"META": "meta", b"TEXT": "text", b"DATA": "data", b"SYNP": "synapse", b"SYMS": "syms"}


class UnknownSymbolError(RlaccelError, KeyError):
    """A symbol looked up by name is not in the binary (message says what was meant)."""

    def __str__(self) -> str:           # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _type_name(v: Any) -> str:
    return type(v).__name__


@dataclass(frozen=True)
class Symbol:
    """A named address (or constant) of an assembled program.

    ``address`` is an instruction index in ``text``, a word address in ``data`` and
    ``synapse``, and the value itself in ``const`` (which may be negative); ``length`` counts
    instructions or words, and is 0 for a constant. ``kind`` is ``equ`` exactly for ``const``.
    """

    name: str
    space: str
    address: int
    length: int
    kind: str

    def __post_init__(self) -> None:
        problem = _symbol_problem(self)
        if problem:
            raise BinaryFormatError(f"symbol {self.name!r}: {problem}")


def _symbol_problem(s: Symbol) -> str | None:
    if not isinstance(s.name, str) or not s.name:
        return f"name must be a non-empty string, not {s.name!r}"
    if not s.name.isprintable() or any(c.isspace() for c in s.name):
        return "name must not contain spaces or control characters"
    if len(s.name.encode("utf-8", "replace")) > 0xFFFF:
        return "name is longer than 65535 bytes"
    if s.space not in SPACES:
        return f"space must be one of {', '.join(SPACES)}, not {s.space!r}"
    if s.kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)}, not {s.kind!r}"
    if (s.kind == "equ") != (s.space == "const"):
        return f"kind 'equ' goes with space 'const' and only with it, not with {s.space!r}"
    if not _is_int(s.address):
        return f"address must be an integer, not {_type_name(s.address)}"
    low = -(1 << 63) if s.space == "const" else 0
    if not low <= s.address < 1 << 63:
        return f"address {s.address} is out of range ({low} to 2**63-1)"
    if not _is_int(s.length) or not 0 <= s.length < 1 << 32:
        return f"length must be an integer from 0 to 2**32-1, not {s.length!r}"
    if s.space == "const" and s.length != 0:
        return f"a constant has length 0, not {s.length}"
    return None


def _sort_key(s: Symbol) -> tuple[int, int, str]:
    return (SPACES.index(s.space), s.address, s.name)


@dataclass(frozen=True)
class Binary:
    """One assembled program, as stored in an ``.rlb`` file.

    Construction validates every field and raises :class:`BinaryFormatError` naming
    ``origin``. ``families`` and ``symbols`` are stored in canonical order (families sorted,
    symbols by space, address, name) so that equal programs compare equal and serialise to
    the same bytes. ``source`` must be plain JSON data (it is copied); keep timestamps out of
    it. ``origin`` (a file path, or ``<binary>``) names the binary in messages; it is not
    part of the value and is not stored.
    """

    arch: str
    encoding_hash: str
    families: tuple[str, ...]
    instr_bits: int
    data_word_bits: int
    text: bytes
    data: bytes
    synapse: bytes
    symbols: tuple[Symbol, ...]
    source: dict
    origin: str = field(default="<binary>", compare=False, repr=False)

    def __post_init__(self) -> None:
        try:
            self._normalise()
        except _Invalid as e:
            raise BinaryFormatError(f"{self.origin}: {e}") from None

    def _normalise(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        if not isinstance(self.arch, str) or not self.arch:
            raise _Invalid(f"arch must be a non-empty string, not {self.arch!r}")
        h = self.encoding_hash
        if not (isinstance(h, str) and len(h) == 16 and all(c in "0123456789abcdef" for c in h)):
            raise _Invalid(f"encoding_hash must be 16 lowercase hex digits, not {h!r}")
        if isinstance(self.families, str) or not isinstance(self.families, (tuple, list)):
            raise _Invalid(f"families must be a list of names, not {_type_name(self.families)}")
        for f in self.families:
            if not isinstance(f, str) or not f:
                raise _Invalid(f"families must hold non-empty strings, not {f!r}")
        if len(set(self.families)) != len(self.families):
            raise _Invalid(f"families lists a family twice: {list(self.families)}")
        put("families", tuple(sorted(self.families)))
        for name in ("instr_bits", "data_word_bits"):
            v = getattr(self, name)
            if not _is_int(v) or not 1 <= v <= _MAX_BITS:
                raise _Invalid(f"{name} must be an integer from 1 to {_MAX_BITS}, not {v!r}")
        for name in ("text", "data", "synapse"):
            v = getattr(self, name)
            if not isinstance(v, (bytes, bytearray, memoryview)):
                raise _Invalid(f"{name} must be bytes, not {_type_name(v)}")
            put(name, bytes(v))
        _check_words(self.text, self.instr_bits, "text", "instruction")
        _check_words(self.data, self.data_word_bits, "data", "word")
        _check_words(self.synapse, self.data_word_bits, "synapse", "word")
        if not isinstance(self.symbols, (tuple, list)):
            raise _Invalid(f"symbols must be a tuple of Symbol, not {_type_name(self.symbols)}")
        seen: set[str] = set()
        for s in self.symbols:
            if not isinstance(s, Symbol):
                raise _Invalid(f"symbols must hold Symbol objects, not {_type_name(s)}")
            if s.name in seen:
                raise _Invalid(f"symbol {s.name!r} is defined twice")
            seen.add(s.name)
        put("symbols", tuple(sorted(self.symbols, key=_sort_key)))
        if not isinstance(self.source, dict):
            raise _Invalid(f"source must be a dict, not {_type_name(self.source)}")
        try:
            copy = json.loads(_json(self.source))
        except (TypeError, ValueError, RecursionError):
            copy = None
        if copy != self.source:
            raise _Invalid("source must be plain JSON data (dicts with string keys, lists, "
                           "str, int, finite float, bool, None)")
        put("source", copy)

    def __hash__(self) -> int:
        return hash((self.arch, self.encoding_hash, self.families, self.instr_bits,
                     self.data_word_bits, self.text, self.data, self.synapse, self.symbols,
                     _json(self.source)))

    @property
    def instr_bytes(self) -> int:
        """Bytes per stored instruction word: ``ceil(instr_bits / 8)``."""
        return -(-self.instr_bits // 8)

    @property
    def word_bytes(self) -> int:
        """Bytes per stored data or synapse word: ``ceil(data_word_bits / 8)``."""
        return -(-self.data_word_bits // 8)

    @property
    def n_instructions(self) -> int:
        """Number of instruction words in ``text``."""
        return len(self.text) // self.instr_bytes

    def instruction(self, i: int) -> int:
        """Instruction word ``i`` (0-based) as an unsigned integer."""
        if not 0 <= i < self.n_instructions:
            raise IndexError(f"{self.origin}: instruction {i} out of range "
                             f"(it has {self.n_instructions})")
        w = self.instr_bytes
        return int.from_bytes(self.text[i * w:(i + 1) * w], "little")

    def symbol(self, name: str) -> Symbol:
        """The symbol called ``name``; :class:`UnknownSymbolError` says what was meant."""
        for s in self.symbols:
            if s.name == name:
                return s
        names = [s.name for s in self.symbols]
        close = difflib.get_close_matches(str(name), names, n=3)
        if close:
            hint = "; did you mean " + " or ".join(repr(c) for c in close) + "?"
        elif not names:
            hint = " (it has no symbols)"
        else:
            hint = ""
        raise UnknownSymbolError(f"{self.origin} has no symbol {name!r}{hint}")

    def symbols_in(self, space: str) -> tuple[Symbol, ...]:
        """The symbols of one address space, by address then name."""
        if space not in SPACES:
            raise ValueError(f"space must be one of {', '.join(SPACES)}, not {space!r}")
        return tuple(s for s in self.symbols if s.space == space)


class _Invalid(Exception):
    """A problem found while validating, before the origin is put in front of it."""


def _json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)


def _check_words(blob: bytes, bits: int, name: str, what: str) -> None:
    """Each word is ceil(bits/8) bytes, little-endian, with the padding bits above ``bits``
    zero (so a word has exactly one stored form)."""
    width = -(-bits // 8)
    if len(blob) % width:
        raise _Invalid(f"{name} is {len(blob)} bytes, not a multiple of the {width}-byte "
                       f"{what} width ({bits} bits)")
    pad = 8 * width - bits
    if pad:
        tops = blob[width - 1::width]
        for i, top in enumerate(tops):
            if top >> (8 - pad):
                raise _Invalid(f"{name} {what} {i} has bits set above its {bits}-bit width")


# ---------------------------------------------------------------------------- writing

def dumps(b: Binary) -> bytes:
    """Serialise ``b``; equal binaries give identical bytes."""
    if not isinstance(b, Binary):
        raise TypeError(f"dumps() needs a Binary, not {_type_name(b)}")
    meta = {"arch": b.arch, "encoding_hash": b.encoding_hash, "families": list(b.families),
            "instr_bits": b.instr_bits, "data_word_bits": b.data_word_bits,
            "source": b.source}
    syms = [_SYM_COUNT.pack(len(b.symbols))]
    for s in b.symbols:
        name = s.name.encode("utf-8")
        syms.append(_SYM_ENTRY.pack(SPACES.index(s.space), KINDS.index(s.kind), len(name),
                                    s.address, s.length))
        syms.append(name)
    payloads = {b"META": _json(meta).encode("ascii"), b"TEXT": b.text, b"DATA": b.data,
                b"SYNP": b.synapse, b"SYMS": b"".join(syms)}
    body = []
    for tag in _TAGS:
        p = payloads[tag]
        if len(p) > 0xFFFFFFFF:
            raise BinaryFormatError(f"{b.origin}: section {tag.decode()} is too large "
                                    f"({len(p)} bytes, at most 2**32-1)")
        body += [_SECTION.pack(tag, len(p)), p]
    total = _HEADER.size + sum(map(len, body)) + _CRC.size
    if total > 0xFFFFFFFF:
        raise BinaryFormatError(f"{b.origin}: binary is too large ({total} bytes)")
    head = b"".join([_HEADER.pack(MAGIC, FORMAT_VERSION, 0, total), *body])
    return head + _CRC.pack(zlib.crc32(head))


def write(path: str | os.PathLike, b: Binary) -> None:
    """Write ``b`` to ``path`` atomically (see :func:`atomic_write`)."""
    atomic_write(path, dumps(b), BinaryFormatError)


# ---------------------------------------------------------------------------- reading

def read(path: str | os.PathLike) -> Binary:
    """Load the binary at ``path``; any problem is a :class:`BinaryFormatError` naming it
    (a directory, a device or a FIFO is refused without being read)."""
    name = os.fspath(path)
    return loads(read_bytes(name, BinaryFormatError, "binary file", _MAX_FILE), origin=name)


def loads(blob: bytes, origin: str = "<bytes>") -> Binary:
    """Parse an ``.rlb`` image; ``origin`` (usually the path) names it in every message."""
    def fail(msg: str) -> BinaryFormatError:
        return BinaryFormatError(f"{origin}: {msg}")

    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise TypeError(f"loads() needs bytes, not {_type_name(blob)}")
    blob = bytes(blob)
    n = len(blob)
    if n == 0:
        raise fail("empty file (0 bytes), not an rlaccel binary")
    if blob[:4] != MAGIC[:min(n, 4)]:
        raise fail(f"not an rlaccel binary (bad magic {blob[:4]!r}, expected {MAGIC!r})")
    if n < _HEADER.size:
        raise fail(f"truncated at offset {n}, in the {_HEADER.size}-byte file header: "
                   f"{_HEADER.size - n} bytes of it missing")
    _, version, flags, total = _HEADER.unpack_from(blob)
    if version > FORMAT_VERSION:
        raise fail(f"format version {version} is newer than this rlaccel supports "
                   f"({FORMAT_VERSION}); upgrade rlaccel or reassemble the program")
    if version < 1:
        raise fail(f"format version {version} is not valid (versions start at 1)")
    if flags:
        raise fail(f"unknown header flags 0x{flags:04x} (format version {version} has none)")
    if total < _MIN_SIZE:
        raise fail(f"header declares a total length of {total} bytes, less than the "
                   f"minimum {_MIN_SIZE}")
    if n < total:
        raise fail(f"truncated at offset {n}, {_where(blob, total)}: the header declares "
                   f"{total} bytes, {total - n} bytes missing")
    if n > total:
        raise fail(f"{n - total} bytes of trailing garbage after the end of the binary at "
                   f"offset {total} (the header declares {total} bytes)")
    (stored,) = _CRC.unpack_from(blob, total - _CRC.size)
    computed = zlib.crc32(blob[:total - _CRC.size])
    if stored != computed:
        raise fail(f"CRC mismatch: stored 0x{stored:08x}, computed 0x{computed:08x} "
                   "(the file is corrupt)")

    sections: dict[str, bytes] = {}
    offset, end = _HEADER.size, total - _CRC.size
    while offset < end:
        if end - offset < _SECTION.size:
            raise fail(f"{end - offset} stray bytes at offset {offset}, too few for a "
                       f"{_SECTION.size}-byte section header")
        tag, length = _SECTION.unpack_from(blob, offset)
        if tag not in _TAGS:
            known = ", ".join(t.decode() for t in _TAGS)
            raise fail(f"unknown section {_show_tag(tag)} at offset {offset} (known: {known})")
        if _TAGS[tag] in sections:
            raise fail(f"duplicate section {_show_tag(tag)} at offset {offset}")
        start = offset + _SECTION.size
        if length > end - start:
            raise fail(f"section {_show_tag(tag)} at offset {offset} declares {length} bytes "
                       f"but only {end - start} remain before the CRC")
        sections[_TAGS[tag]] = blob[start:start + length]
        offset = start + length
    missing = [t.decode() for t, key in _TAGS.items() if key not in sections]
    if missing:
        raise fail(f"missing required section{'s' if len(missing) > 1 else ''} "
                   f"{', '.join(missing)}")

    meta = _parse_meta(sections["meta"], fail)
    symbols = _parse_symbols(sections["syms"], fail)
    return Binary(arch=meta["arch"], encoding_hash=meta["encoding_hash"],
                  families=meta["families"], instr_bits=meta["instr_bits"],
                  data_word_bits=meta["data_word_bits"], text=sections["text"],
                  data=sections["data"], synapse=sections["synapse"], symbols=symbols,
                  source=meta["source"], origin=origin)


def _show_tag(tag: bytes) -> str:
    if all(0x20 < c < 0x7F for c in tag):
        return repr(tag.decode("ascii"))
    return repr(tag)


def _where(blob: bytes, total: int) -> str:
    """Say in which part of the layout a truncated file ends (best effort: the part of the
    file that is there may itself be corrupt)."""
    n, offset, i = len(blob), _HEADER.size, 0
    while offset < total - _CRC.size:
        if offset + _SECTION.size > n:
            return f"in the header of section #{i} at offset {offset}"
        tag, length = _SECTION.unpack_from(blob, offset)
        start = offset + _SECTION.size
        if start + length > n:
            return (f"in section {_show_tag(tag)} (payload at offsets {start}.."
                    f"{start + length}, {start + length - n} bytes of it missing)")
        offset, i = start + length, i + 1
    return f"in the CRC at offset {total - _CRC.size}"


def _parse_meta(payload: bytes, fail) -> dict:
    def reject_constant(name: str) -> None:
        raise ValueError(f"{name} is not a JSON number")

    def unique_keys(pairs: list) -> dict:
        keys = [k for k, _ in pairs]
        dup = next((k for k in keys if keys.count(k) > 1), None)
        if dup is not None:
            raise ValueError(f"key {dup!r} appears twice")
        return dict(pairs)

    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as e:
        raise fail(f"malformed metadata: not UTF-8 text (byte {e.start} of section "
                   "'META')") from None
    try:
        meta = json.loads(text, parse_constant=reject_constant,
                          object_pairs_hook=unique_keys)
    except RecursionError:
        raise fail("malformed metadata: JSON nested too deeply") from None
    except ValueError as e:
        raise fail(f"malformed metadata: not valid JSON ({e})") from None
    if not isinstance(meta, dict):
        raise fail(f"malformed metadata: expected a JSON object, not {_type_name(meta)}")
    for key in _META_KEYS:
        if key not in meta:
            raise fail(f"malformed metadata: missing key {key!r}")
    extra = sorted(set(meta) - set(_META_KEYS))
    if extra:
        raise fail(f"malformed metadata: unknown key {extra[0]!r}")
    return meta


def _parse_symbols(payload: bytes, fail) -> tuple[Symbol, ...]:
    if len(payload) < _SYM_COUNT.size:
        raise fail(f"symbol table is {len(payload)} bytes, too short for its "
                   f"{_SYM_COUNT.size}-byte entry count")
    (count,) = _SYM_COUNT.unpack_from(payload)
    offset, symbols = _SYM_COUNT.size, []
    for i in range(count):
        if len(payload) - offset < _SYM_ENTRY.size:
            raise fail(f"symbol table entry {i} is cut short at byte {offset} of section "
                       f"'SYMS' ({count} entries declared)")
        space, kind, name_len, address, length = _SYM_ENTRY.unpack_from(payload, offset)
        offset += _SYM_ENTRY.size
        raw = payload[offset:offset + name_len]
        if len(raw) < name_len:
            raise fail(f"symbol table entry {i}: name of {name_len} bytes is cut short at "
                       f"byte {len(payload)} of section 'SYMS'")
        offset += name_len
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise fail(f"symbol table entry {i}: name {raw!r} is not UTF-8") from None
        if space >= len(SPACES):
            codes = ", ".join(f"{j}={s}" for j, s in enumerate(SPACES))
            raise fail(f"symbol table entry {i} ({name!r}) has unknown space code {space} "
                       f"(known: {codes})")
        if kind >= len(KINDS):
            codes = ", ".join(f"{j}={k}" for j, k in enumerate(KINDS))
            raise fail(f"symbol table entry {i} ({name!r}) has unknown kind code {kind} "
                       f"(known: {codes})")
        try:
            symbols.append(Symbol(name, SPACES[space], address, length, KINDS[kind]))
        except BinaryFormatError as e:
            raise fail(f"symbol table entry {i}: {e}") from None
    if offset != len(payload):
        raise fail(f"{len(payload) - offset} stray bytes after the last symbol table entry "
                   f"(section 'SYMS' holds {count} entries)")
    return tuple(symbols)


# ---------------------------------------------------------------------------- checks

def check_arch(b: Binary, arch: str, encoding_hash: str) -> None:
    """Raise :class:`ArchError` unless ``b`` was assembled for this architecture and this
    exact instruction encoding."""
    if b.arch == arch and b.encoding_hash == encoding_hash:
        return
    why = ""
    if b.arch == arch:
        why = f"the instruction encoding of {arch!r} has changed since; "
    raise ArchError(f"{b.origin} was assembled for {b.arch!r} (encoding {b.encoding_hash}), "
                    f"not for {arch!r} (encoding {encoding_hash}): {why}reassemble it with "
                    f"--arch {arch}")
