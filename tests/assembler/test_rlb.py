"""The ``.rlb`` container: round trips, reproducibility, and every way a file can be wrong.

Malformed files are built here by hand (``_raw``) from the layout in ``docs/rlb-format.md``,
independently of the writer, so these tests pin the format as well as the code.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlaccel.assembler import rlb
from rlaccel.assembler.rlb import (FORMAT_VERSION, KINDS, MAGIC, SPACES, Binary, Symbol,
                           UnknownSymbolError, check_arch, dumps, loads, read, write)
from rlaccel.util.errors import ArchError, BinaryFormatError, RlaccelError

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

# The worked example of docs/rlb-format.md.
GOLDEN = bytes.fromhex(
    "7f524c4201000000e10000004d455441770000007b2261726368223a226164686470222c2264617461"
    "5f776f72645f62697473223a32342c22656e636f64696e675f68617368223a22303132333435363738"
    "39616263646566222c2266616d696c696573223a5b2262617365225d2c22696e7374725f6269747322"
    "3a33362c22736f75726365223a7b7d7d544558540500000001020304054441544103000000ffff0f53"
    "594e500000000053594d532a0000000200000000000500000000000000000001000000737461727403"
    "020100feffffffffffffff000000004e91ec8825")


def _golden_binary(**changes) -> Binary:
    fields = dict(arch="adhdp", encoding_hash="0123456789abcdef", families=("base",),
                  instr_bits=36, data_word_bits=24, text=bytes.fromhex("0102030405"),
                  data=bytes.fromhex("ffff0f"), synapse=b"",
                  symbols=(Symbol("start", "text", 0, 1, "label"),
                           Symbol("N", "const", -2, 0, "equ")),
                  source={})
    fields.update(changes)
    return Binary(**fields)


def _program() -> Binary:
    """A fuller hand-built program: two families, 64-bit instructions, all sections used."""
    return Binary(
        arch="fixar", encoding_hash="fedcba9876543210", families=("ddpg", "base"),
        instr_bits=64, data_word_bits=16,
        text=b"".join(i.to_bytes(8, "little") for i in (0x1122334455667788, 0, 2**64 - 1)),
        data=bytes(range(20)), synapse=bytes(range(100, 108)),
        symbols=(Symbol("loop", "text", 1, 2, "label"), Symbol("obs_buf", "data", 0, 4, "data"),
                 Symbol("act_buf", "data", 4, 6, "data"),
                 Symbol("w1", "synapse", 0, 4, "data"), Symbol("NHC", "const", 24, 0, "equ")),
        source={"files": [{"path": "prog.s", "sha256": "ab" * 32}],
                "assembler": "rlaccel 0.1.0", "defines": {"lanes": 4, "lr": 0.5, "x": None}})


# -------------------------------------------------------------------- raw file builder

def _meta(**changes) -> bytes:
    meta = {"arch": "adhdp", "encoding_hash": "0123456789abcdef", "families": ["base"],
            "instr_bits": 32, "data_word_bits": 24, "source": {}}
    meta.update(changes)
    return json.dumps({k: v for k, v in meta.items() if v is not _DROP}).encode()


_DROP = object()


def _syms(*entries: tuple[int, int, bytes, int, int]) -> bytes:
    out = [struct.pack("<I", len(entries))]
    for space, kind, name, address, length in entries:
        out.append(struct.pack("<BBHqI", space, kind, len(name), address, length) + name)
    return b"".join(out)


def _sections(**payloads) -> list[tuple[bytes, bytes]]:
    base = {"META": _meta(), "TEXT": bytes(8), "DATA": bytes(6), "SYNP": b"",
            "SYMS": _syms((0, 0, b"start", 0, 2))}
    base.update(payloads)
    return [(tag.encode(), p) for tag, p in base.items() if p is not None]


def _raw(sections=None, *, version=FORMAT_VERSION, flags=0, total=None, crc=None,
         magic=MAGIC) -> bytes:
    """A file laid out as docs/rlb-format.md says, with a correct length and CRC unless told."""
    if sections is None:
        sections = _sections()
    body = b"".join(tag + struct.pack("<I", len(p)) + p for tag, p in sections)
    if total is None:
        total = 12 + len(body) + 4
    head = magic + struct.pack("<HHI", version, flags, total) + body
    return head + struct.pack("<I", zlib.crc32(head) if crc is None else crc)


# -------------------------------------------------------------------- round trips

def test_golden_bytes():
    """The worked example of the format document is exactly what dumps writes and loads reads."""
    assert dumps(_golden_binary()) == GOLDEN
    assert loads(GOLDEN) == _golden_binary()


def test_raw_builder_agrees_with_writer():
    """A file written by the independent test builder loads into the expected Binary."""
    b = loads(_raw())
    assert (b.arch, b.instr_bits, b.n_instructions, len(b.data)) == ("adhdp", 32, 2, 6)
    assert b.symbols == (Symbol("start", "text", 0, 2, "label"),)


@pytest.mark.parametrize("make", [_golden_binary, _program,
                                  lambda: _golden_binary(text=b"", data=b"", symbols=(),
                                                         families=())])
def test_round_trip_hand_built(make):
    """loads(dumps(b)) == b, and the result serialises to the same bytes again."""
    b = make()
    blob = dumps(b)
    again = loads(blob)
    assert again == b
    assert dumps(again) == blob


def test_read_write_round_trip(tmp_path):
    """write then read gives the same Binary, whose origin is the path."""
    path = tmp_path / "prog.rlb"
    write(path, _program())
    b = read(path)
    assert b == _program()
    assert b.origin == str(path)
    assert path.read_bytes() == dumps(_program())


def test_dumps_is_deterministic():
    """Equal binaries give identical bytes, whatever order families and symbols were given in."""
    a = _program()
    b = Binary(**{**{f: getattr(a, f) for f in ("arch", "encoding_hash", "instr_bits",
                                                "data_word_bits", "text", "data", "synapse")},
                  "families": ("base", "ddpg"), "symbols": tuple(reversed(a.symbols)),
                  "source": dict(reversed(a.source.items()))},
               origin="elsewhere.rlb")
    assert a == b and hash(a) == hash(b)
    assert dumps(a) == dumps(b) == dumps(a)


def test_canonical_order():
    """Families are sorted and symbols ordered by space, address, name."""
    b = _program()
    assert b.families == ("base", "ddpg")
    assert [s.name for s in b.symbols] == ["loop", "obs_buf", "act_buf", "w1", "NHC"]


_NAME = st.text(st.characters(categories=("L", "N", "P", "S")), min_size=1, max_size=10)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=8)


@st.composite
def _symbols(draw):
    space = draw(st.sampled_from(SPACES))
    if space == "const":
        return Symbol(draw(_NAME), space, draw(st.integers(-2**63, 2**63 - 1)), 0, "equ")
    return Symbol(draw(_NAME), space, draw(st.integers(0, 2**63 - 1)),
                  draw(st.integers(0, 2**32 - 1)), draw(st.sampled_from(("label", "data"))))


def _words(bits: int, max_words: int):
    width = -(-bits // 8)
    return st.lists(st.integers(0, 2**bits - 1), max_size=max_words).map(
        lambda ws: b"".join(w.to_bytes(width, "little") for w in ws))


@st.composite
def binaries(draw):
    instr_bits = draw(st.integers(1, 128))
    word_bits = draw(st.integers(1, 64))
    return Binary(
        arch=draw(_NAME), encoding_hash=draw(st.text("0123456789abcdef", min_size=16,
                                                     max_size=16)),
        families=tuple(draw(st.lists(_NAME, max_size=4, unique=True))),
        instr_bits=instr_bits, data_word_bits=word_bits, text=draw(_words(instr_bits, 6)),
        data=draw(_words(word_bits, 6)), synapse=draw(_words(word_bits, 6)),
        symbols=tuple(draw(st.lists(_symbols(), max_size=6, unique_by=lambda s: s.name))),
        source=draw(st.dictionaries(st.text(max_size=6), _JSON, max_size=4)))


@FUZZ
@given(binaries())
def test_round_trip_property(b):
    """Any valid Binary survives dumps/loads unchanged, and its bytes are a fixed point."""
    blob = dumps(b)
    again = loads(blob)
    assert again == b
    assert dumps(again) == blob


# -------------------------------------------------------------------- the Binary value

def test_convenience_accessors():
    """n_instructions, instruction(i), symbol(name), symbols_in(space) read the tables."""
    b = _program()
    assert (b.n_instructions, b.instr_bytes, b.word_bytes) == (3, 8, 2)
    assert [b.instruction(i) for i in range(3)] == [0x1122334455667788, 0, 2**64 - 1]
    assert b.symbol("obs_buf") == Symbol("obs_buf", "data", 0, 4, "data")
    assert [s.name for s in b.symbols_in("data")] == ["obs_buf", "act_buf"]
    assert b.symbols_in("const") == (Symbol("NHC", "const", 24, 0, "equ"),)
    with pytest.raises(IndexError, match=r"instruction 3 out of range \(it has 3\)"):
        b.instruction(3)
    with pytest.raises(ValueError, match="space must be one of text, data, synapse, const, "
                                         "not 'dat'"):
        b.symbols_in("dat")


def test_unknown_symbol_says_what_was_meant():
    """A missing symbol is an RlaccelError (and a KeyError) suggesting the closest names."""
    b = loads(dumps(_program()), origin="prog.rlb")
    with pytest.raises(UnknownSymbolError,
                       match=r"^prog.rlb has no symbol 'obs_bfu'; did you mean 'obs_buf'\?$"):
        b.symbol("obs_bfu")
    with pytest.raises(KeyError):
        b.symbol("zzzzzz")
    with pytest.raises(RlaccelError, match=r"^prog.rlb has no symbol 'zzzzzz'$"):
        b.symbol("zzzzzz")
    with pytest.raises(UnknownSymbolError, match=r"has no symbol 'x' \(it has no symbols\)"):
        _golden_binary(symbols=()).symbol("x")


@pytest.mark.parametrize("changes, message", [
    ({"arch": ""}, "arch must be a non-empty string, not ''"),
    ({"encoding_hash": "0123456789ABCDEF"}, "encoding_hash must be 16 lowercase hex digits"),
    ({"families": "base"}, "families must be a list of names, not str"),
    ({"families": ("base", "base")}, "families lists a family twice"),
    ({"instr_bits": 0}, "instr_bits must be an integer from 1 to 1024, not 0"),
    ({"data_word_bits": True}, "data_word_bits must be an integer from 1 to 1024, not True"),
    ({"text": "abc"}, "text must be bytes, not str"),
    ({"text": bytes(6)}, r"text is 6 bytes, not a multiple of the 5-byte instruction width "
                         r"\(36 bits\)"),
    ({"text": bytes(4) + b"\x10"}, "text instruction 0 has bits set above its 36-bit width"),
    ({"data": bytes(4)}, "data is 4 bytes, not a multiple of the 3-byte word width"),
    ({"symbols": (Symbol("a", "text", 0, 1, "label"), Symbol("a", "data", 0, 1, "data"))},
     "symbol 'a' is defined twice"),
    ({"symbols": ("start",)}, "symbols must hold Symbol objects, not str"),
    ({"source": {"files": ("a.s",)}}, "source must be plain JSON data"),
    ({"source": {1: "x"}}, "source must be plain JSON data"),
    ({"source": {"x": float("nan")}}, "source must be plain JSON data"),
    ({"source": []}, "source must be a dict, not list"),
])
def test_invalid_binary_is_refused(changes, message):
    """A Binary that could not be stored faithfully is refused when built, naming its origin."""
    with pytest.raises(BinaryFormatError, match="^<binary>: " + message):
        _golden_binary(**changes)


@pytest.mark.parametrize("args, message", [
    (("", "text", 0, 0, "label"), "name must be a non-empty string"),
    (("a b", "text", 0, 0, "label"), "name must not contain spaces or control characters"),
    (("a", "heap", 0, 0, "label"), "space must be one of text, data, synapse, const, not 'heap'"),
    (("a", "text", 0, 0, "const"), "kind must be one of label, data, equ, not 'const'"),
    (("a", "text", 0, 0, "equ"), "kind 'equ' goes with space 'const' and only with it"),
    (("a", "const", 1, 0, "label"), "kind 'equ' goes with space 'const' and only with it"),
    (("a", "data", -1, 1, "data"), r"address -1 is out of range \(0 to 2\*\*63-1\)"),
    (("a", "const", 2**63, 0, "equ"), "address 9223372036854775808 is out of range"),
    (("a", "data", 0, 2**32, "data"), "length must be an integer from 0 to 2\\*\\*32-1"),
    (("a", "const", 5, 1, "equ"), "a constant has length 0, not 1"),
])
def test_invalid_symbol_is_refused(args, message):
    """A symbol must have a clean name, a known space and kind, and an address that fits."""
    with pytest.raises(BinaryFormatError, match=message):
        Symbol(*args)


# -------------------------------------------------------------------- rejections

def _rejects(blob: bytes, message: str) -> None:
    with pytest.raises(BinaryFormatError, match="^prog.rlb: " + message):
        loads(blob, origin="prog.rlb")


def test_bad_magic():
    """A file that does not start with the magic is not an rlaccel binary."""
    _rejects(b"\x7fELF" + bytes(60),
             r"not an rlaccel binary \(bad magic b'\\x7fELF', expected b'\\x7fRLB'\)")
    _rejects(b"RLB", r"not an rlaccel binary \(bad magic b'RLB'")


def test_empty_file():
    """An empty file says so."""
    _rejects(b"", r"empty file \(0 bytes\), not an rlaccel binary")


def test_newer_version():
    """A newer format version is refused, saying which version this rlaccel reads."""
    _rejects(_raw(version=7), r"format version 7 is newer than this rlaccel supports \(1\)")


def test_version_zero():
    """Version 0 does not exist."""
    _rejects(_raw(version=0), r"format version 0 is not valid")


def test_unknown_flags():
    """Version 1 defines no header flags; a set one means a file this reader cannot trust."""
    _rejects(_raw(flags=4), r"unknown header flags 0x0004")


def test_impossible_total_length():
    """The declared total length must at least cover the header and the CRC."""
    _rejects(_raw()[:8] + struct.pack("<I", 10) + _raw()[12:],
             "header declares a total length of 10 bytes, less than the minimum 16")


def test_crc_mismatch():
    """A corrupted byte is caught by the CRC, both values shown in hex."""
    blob = bytearray(GOLDEN)
    blob[0x30] ^= 0x01
    _rejects(bytes(blob), r"CRC mismatch: stored 0x2588ec91, computed 0x[0-9a-f]{8} "
                          r"\(the file is corrupt\)$")
    _rejects(_raw(crc=0xDEADBEEF), "CRC mismatch: stored 0xdeadbeef, computed 0x")


def test_truncated_in_a_section():
    """A truncated file names the offset where it ends, the section and the bytes missing."""
    _rejects(GOLDEN[:0xa1], r"truncated at offset 161, in section 'DATA' \(payload at offsets "
                            r"160..163, 2 bytes of it missing\): the header declares 225 bytes, "
                            r"64 bytes missing$")


def test_truncated_in_a_section_header_or_the_crc():
    """Truncation inside a section header, the CRC or the file header is located too."""
    _rejects(GOLDEN[:0x9a], r"truncated at offset 154, in the header of section #2 at offset "
                            r"152: the header declares 225 bytes, 71 bytes missing")
    _rejects(GOLDEN[:223], r"truncated at offset 223, in the CRC at offset 221: .* 2 bytes "
                           r"missing")
    _rejects(GOLDEN[:7], r"truncated at offset 7, in the 12-byte file header: 5 bytes of it "
                         r"missing")
    _rejects(GOLDEN[:2], r"truncated at offset 2, in the 12-byte file header")


def test_truncation_at_every_length():
    """Every proper prefix of a valid file is reported as truncated (or empty)."""
    blob = dumps(_program())
    for n in range(len(blob)):
        with pytest.raises(BinaryFormatError, match="^prog.rlb: (truncated at offset|empty)"):
            loads(blob[:n], origin="prog.rlb")


def test_trailing_garbage():
    """Bytes after the declared end of the file are refused."""
    _rejects(GOLDEN + b"\0\0\0", r"3 bytes of trailing garbage after the end of the binary at "
                                 r"offset 225 \(the header declares 225 bytes\)")


def test_unknown_section():
    """A section tag outside the five of version 1 is refused, with its offset."""
    _rejects(_raw(_sections() + [(b"XTRA", b"123")]),
             r"unknown section 'XTRA' at offset \d+ \(known: META, TEXT, DATA, SYNP, SYMS\)")
    _rejects(_raw(_sections() + [(b"\0\1ab", b"")]), r"unknown section b'\\x00\\x01ab'")


def test_duplicate_section():
    """Each section appears once."""
    _rejects(_raw(_sections() + [(b"DATA", b"")]), r"duplicate section 'DATA' at offset \d+")


@pytest.mark.parametrize("tag", ["META", "TEXT", "DATA", "SYNP", "SYMS"])
def test_missing_section(tag):
    """All five sections are required."""
    _rejects(_raw(_sections(**{tag: None})), f"missing required section {tag}$")


def test_missing_sections_are_all_named():
    """When several sections are missing, the message lists them all."""
    _rejects(_raw(_sections(DATA=None, SYNP=None)), "missing required sections DATA, SYNP$")


def test_sections_are_accepted_in_any_order():
    """The writer's order is canonical, but a reader needs only each section once."""
    assert loads(_raw(list(reversed(_sections())))) == loads(_raw())


def test_section_overrunning_the_crc():
    """A section whose declared length runs past the CRC is refused (the CRC being valid)."""
    blob = _raw([(b"META", _meta()), (b"TEXT", b""), (b"DATA", b""), (b"SYNP", b"")])
    blob = blob[:-4] + b"SYMS" + struct.pack("<I", 99) + _syms()
    blob = blob[:8] + struct.pack("<I", len(blob) + 4) + blob[12:]
    blob += struct.pack("<I", zlib.crc32(blob))
    _rejects(blob, r"section 'SYMS' at offset \d+ declares 99 bytes but only 4 remain before "
                   r"the CRC")


def test_stray_bytes_between_sections_and_crc():
    """Bytes after the last section too few to be a section header are refused."""
    blob = _raw()[:-4] + b"abc"
    blob = blob[:8] + struct.pack("<I", len(blob) + 4) + blob[12:]
    blob += struct.pack("<I", zlib.crc32(blob))
    _rejects(blob, r"3 stray bytes at offset \d+, too few for a 8-byte section header")


@pytest.mark.parametrize("payload, message", [
    (b"\xff{}", r"malformed metadata: not UTF-8 text \(byte 0 of section 'META'\)"),
    (b'{"arch": ', r"malformed metadata: not valid JSON \(Expecting value: line 1 column 10"),
    (b"[1, 2]", "malformed metadata: expected a JSON object, not list"),
    (_meta(arch=_DROP), "malformed metadata: missing key 'arch'"),
    (_meta(source=_DROP), "malformed metadata: missing key 'source'"),
    (_meta(date="2024-01-01"), "malformed metadata: unknown key 'date'"),
    (b'{"arch": "a", "arch": "b"}', r"malformed metadata: not valid JSON \(key 'arch' appears "
                                    r"twice\)"),
    (_meta().replace(b'"source": {}', b'"source": {"x": NaN}'),
     r"malformed metadata: not valid JSON \(NaN is not a JSON number\)"),
    (b"[" * 100000 + b"]" * 100000, "malformed metadata: "),
    (_meta(instr_bits="32"), "instr_bits must be an integer from 1 to 1024, not '32'"),
    (_meta(instr_bits=32.0), "instr_bits must be an integer from 1 to 1024, not 32.0"),
    (_meta(families="base"), "families must be a list of names, not str"),
    (_meta(families=[1]), "families must hold non-empty strings, not 1"),
    (_meta(encoding_hash=12), "encoding_hash must be 16 lowercase hex digits, not 12"),
    (_meta(arch=None), "arch must be a non-empty string, not None"),
    (_meta(source=[]), "source must be a dict, not list"),
])
def test_malformed_metadata(payload, message):
    """META must be UTF-8 JSON: an object with exactly the six keys, each of its type."""
    _rejects(_raw(_sections(META=payload)), message)


def test_text_not_a_whole_number_of_instructions():
    """TEXT holds whole instruction words of ceil(instr_bits/8) bytes."""
    _rejects(_raw(_sections(TEXT=bytes(7))),
             r"text is 7 bytes, not a multiple of the 4-byte instruction width \(32 bits\)")


def test_padding_bits_must_be_zero():
    """Bits above the word width are zero, so each word has exactly one stored form."""
    _rejects(_raw(_sections(META=_meta(instr_bits=30), TEXT=b"\0\0\0\x40")),
             "text instruction 0 has bits set above its 30-bit width")
    _rejects(_raw(_sections(META=_meta(data_word_bits=20), DATA=b"\0\0\0\0\0\x10")),
             "data word 1 has bits set above its 20-bit width")


def test_data_not_a_whole_number_of_words():
    """DATA and SYNP hold whole words of ceil(data_word_bits/8) bytes."""
    _rejects(_raw(_sections(SYNP=bytes(4))),
             r"synapse is 4 bytes, not a multiple of the 3-byte word width \(24 bits\)")


@pytest.mark.parametrize("payload, message", [
    (_syms((4, 0, b"x", 0, 0)), r"symbol table entry 0 \('x'\) has unknown space code 4 "
                                r"\(known: 0=text, 1=data, 2=synapse, 3=const\)"),
    (_syms((0, 0, b"a", 0, 0), (1, 9, b"y", 0, 0)),
     r"symbol table entry 1 \('y'\) has unknown kind code 9 \(known: 0=label, 1=data, 2=equ\)"),
    (_syms((0, 2, b"x", 0, 0)), "symbol table entry 0: symbol 'x': kind 'equ' goes with space "
                                "'const' and only with it, not with 'text'"),
    (_syms((1, 1, b"x", -5, 2)), r"symbol table entry 0: symbol 'x': address -5 is out of "
                                 r"range"),
    (_syms((0, 0, b"\xff\xfe", 0, 0)), r"symbol table entry 0: name b'\\xff\\xfe' is not UTF-8"),
    (_syms((0, 0, b"a", 0, 0), (0, 0, b"a", 1, 0)), "symbol 'a' is defined twice"),
    (b"\1\0", "symbol table is 2 bytes, too short for its 4-byte entry count"),
    (struct.pack("<I", 2) + _syms((0, 0, b"a", 0, 0))[4:],
     r"symbol table entry 1 is cut short at byte 21 of section 'SYMS' \(2 entries declared\)"),
    (_syms((0, 0, b"abc", 0, 0))[:-1], "symbol table entry 0: name of 3 bytes is cut short"),
    (_syms((0, 0, b"a", 0, 0)) + b"zz", r"2 stray bytes after the last symbol table entry"),
])
def test_malformed_symbol_table(payload, message):
    """SYMS entries must be complete, with known space and kind codes and valid symbols."""
    _rejects(_raw(_sections(SYMS=payload)), message)


# -------------------------------------------------------------------- fuzzing

_FUZZ_BLOB = dumps(_program())


def _loads_or_format_error(blob: bytes) -> Binary | None:
    try:
        return loads(blob, origin="fuzz.rlb")
    except BinaryFormatError as e:
        assert str(e).startswith("fuzz.rlb: ")
        return None


@FUZZ
@given(st.integers(0, 8 * len(_FUZZ_BLOB) - 1))
def test_any_single_bit_flip_is_rejected(bit):
    """Flipping any one bit makes the file invalid: CRC-32 catches every single-bit error."""
    blob = bytearray(_FUZZ_BLOB)
    blob[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(BinaryFormatError):
        loads(bytes(blob))


@FUZZ
@given(st.lists(st.integers(0, 8 * len(_FUZZ_BLOB) - 1), min_size=2, max_size=20))
def test_bit_flips_never_crash(bits):
    """With any number of flipped bits, loads succeeds or raises BinaryFormatError, nothing else."""
    blob = bytearray(_FUZZ_BLOB)
    for bit in bits:
        blob[bit // 8] ^= 1 << (bit % 8)
    _loads_or_format_error(bytes(blob))


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(blob):
    """Arbitrary bytes are rejected with BinaryFormatError."""
    _loads_or_format_error(blob)
    _loads_or_format_error(MAGIC + blob)
    _loads_or_format_error(_FUZZ_BLOB[:12] + blob)


@FUZZ
@given(st.integers(0, len(_FUZZ_BLOB)), st.binary(min_size=1, max_size=16))
def test_inserted_bytes_never_crash(at, extra):
    """Bytes inserted anywhere make loads raise BinaryFormatError."""
    with pytest.raises(BinaryFormatError):
        loads(_FUZZ_BLOB[:at] + extra + _FUZZ_BLOB[at:])


@FUZZ
@given(st.data())
def test_corrupt_but_crc_valid_files_never_crash(data):
    """Even a corrupted file with a recomputed, valid CRC and length only raises
    BinaryFormatError: the structure checks after the CRC do not trust the content."""
    body = bytearray(_FUZZ_BLOB[12:-4])
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(body) - 1))
        body[i] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(0, len(body)))
        body = body[:cut]
    head = MAGIC + struct.pack("<HHI", 1, 0, 12 + len(body) + 4) + bytes(body)
    _loads_or_format_error(head + struct.pack("<I", zlib.crc32(head)))


# -------------------------------------------------------------------- files

def test_write_is_atomic_when_serialisation_fails(tmp_path, monkeypatch):
    """If serialising fails, the existing file is untouched and no temporary file is left."""
    path = tmp_path / "prog.rlb"
    write(path, _golden_binary())

    def broken(b):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(rlb, "dumps", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        write(path, _program())
    assert path.read_bytes() == GOLDEN
    assert os.listdir(tmp_path) == ["prog.rlb"]


def test_write_is_atomic_when_the_disk_fails(tmp_path, monkeypatch):
    """If writing the temporary file fails midway, the old file is intact, the temporary file
    is removed, and the error is a BinaryFormatError naming the path."""
    path = tmp_path / "prog.rlb"
    write(path, _golden_binary())

    def no_space(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rlb.os, "fsync", no_space)
    with pytest.raises(BinaryFormatError,
                       match=f"^{path}: cannot write: No space left on device$"):
        write(path, _program())
    assert path.read_bytes() == GOLDEN
    assert os.listdir(tmp_path) == ["prog.rlb"]


def test_write_into_a_missing_directory(tmp_path):
    """Writing where no directory exists is a BinaryFormatError naming the path."""
    path = tmp_path / "nowhere" / "prog.rlb"
    with pytest.raises(BinaryFormatError, match=f"^{path}: cannot write: "):
        write(path, _golden_binary())


def test_written_file_has_ordinary_permissions(tmp_path):
    """The file is created with the umask's permissions, not a temporary file's 0600."""
    old = os.umask(0o022)
    try:
        write(tmp_path / "prog.rlb", _golden_binary())
    finally:
        os.umask(old)
    assert (tmp_path / "prog.rlb").stat().st_mode & 0o777 == 0o644


def test_read_missing_file(tmp_path):
    """Reading a file that does not exist names the path."""
    path = tmp_path / "missing.rlb"
    with pytest.raises(BinaryFormatError, match=f"^{path}: no such binary file$"):
        read(path)


def test_read_directory(tmp_path):
    """Reading a directory names the path."""
    with pytest.raises(BinaryFormatError, match=f"^{tmp_path}: is a directory"):
        read(tmp_path)


def test_read_names_the_path_in_format_errors(tmp_path):
    """A malformed file read from disk is reported under its path."""
    path = tmp_path / "bad.rlb"
    path.write_bytes(b"\x7fELF")
    with pytest.raises(BinaryFormatError, match=f"^{path}: not an rlaccel binary"):
        read(path)


# -------------------------------------------------------------------- architecture

def test_check_arch_accepts_the_same_architecture():
    """A binary assembled for this architecture and encoding passes."""
    check_arch(_golden_binary(), "adhdp", "0123456789abcdef")


def test_check_arch_message():
    """A binary for another architecture says what it was built for and how to fix it."""
    b = loads(GOLDEN, origin="program.rlb")
    with pytest.raises(ArchError, match=(
            r"^program.rlb was assembled for 'adhdp' \(encoding 0123456789abcdef\), not for "
            r"'fixar' \(encoding 1111222233334444\): reassemble it with --arch fixar$")):
        check_arch(b, "fixar", "1111222233334444")


def test_check_arch_same_name_other_encoding():
    """The same architecture name with another encoding hash is also a mismatch."""
    with pytest.raises(ArchError, match=(
            r"not for 'adhdp' \(encoding ffffffffffffffff\): the instruction encoding of "
            r"'adhdp' has changed since; reassemble it with --arch adhdp$")):
        check_arch(_golden_binary(), "adhdp", "ffffffffffffffff")


def test_public_surface():
    """The module exports exactly its documented API."""
    assert set(rlb.__all__) == {"MAGIC", "FORMAT_VERSION", "SPACES", "KINDS", "Symbol",
                                "Binary", "UnknownSymbolError", "dumps", "loads", "write",
                                "read", "check_arch"}
    assert (MAGIC, FORMAT_VERSION, KINDS) == (b"\x7fRLB", 1, ("label", "data", "equ"))


def test_docs_list_the_public_api():
    """Every exported name has a row in the API table of docs/rlb-format.md."""
    doc = (Path(__file__).parents[2] / "docs" / "rlb-format.md").read_text()
    table = doc.split("## Python API", 1)[1].split("\n## ", 1)[0]
    for name in rlb.__all__:
        assert f"`{name}" in table, name
