"""The binary reader and the disassembler against mutated valid binaries: a binary is either
refused with a message that names it, or disassembles to text that reassembles to the same
sections (and, for the symbols the assembler can define, the same symbol table) -- never
anything else, and within a time budget."""

from __future__ import annotations

import time
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rlaccel.assembler.assemble import assemble, assemble_file
from rlaccel.assembler.disassemble import disassemble
from rlaccel.assembler.rlb import SPACES, Symbol, dumps, loads
from rlaccel.util.errors import BinaryFormatError, RlaccelError
from rlaccel.isa.machine import machine

ORIGIN = "fuzz.rlb"
#: CPU seconds one fuzzed input may take (CPU, so a loaded machine's waits are no hang)
BUDGET_S = 20.0
SEEDS = [assemble_file(machine("adhdp").programs / "cartpole.s").binary,
         assemble(".arch adhdp-f64\n.data\nX: .values 1.5, -0.0, 2.25\n.synapse\n"
                  "W: .values 0.125, 3.0\n.text\nL: sca.li X, 0.5\nff src=X, syn=W, dst=X, "
                  "rows=1, cols=2\ncc.jmp L\ncc.halt\n", "f64.s").binary]
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _same_sections(text: str, b) -> None:
    a = assemble(text, "dis.s").binary
    assert (a.text, a.data, a.synapse) == (b.text, b.data, b.synapse)


def _property(b) -> None:
    """Refused naming the binary, or reassembles to the same sections."""
    start = time.process_time()
    try:
        text = disassemble(b)
    except RlaccelError as exc:
        assert ORIGIN in str(exc), str(exc)
    else:
        _same_sections(text, b)
    assert time.process_time() - start < BUDGET_S


def _flip(blob: bytes, positions: list[int], values: list[int]) -> bytes:
    out = bytearray(blob)
    for p, v in zip(positions, values):
        if out:
            out[p % len(out)] = v
    return bytes(out)


names = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
                min_size=1, max_size=12).filter(lambda s: s.isprintable()
                                                and not any(c.isspace() for c in s))
symbols = st.builds(
    lambda name, space, address, length: Symbol(
        name, SPACES[space], address if SPACES[space] == "const" else abs(address),
        0 if SPACES[space] == "const" else length,
        "equ" if SPACES[space] == "const" else ("label" if SPACES[space] == "text" else "data")),
    names, st.integers(0, 3),
    st.one_of(st.integers(-5, 600), st.integers(-(1 << 63) + 1, (1 << 63) - 1)),
    st.one_of(st.integers(0, 40), st.integers(0, (1 << 32) - 1)))


@st.composite
def mutated(draw):
    """A seed binary with its sections' bytes, symbols, families, widths or architecture
    changed, as a well-formed container (every Binary field valid on its own)."""
    b = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(["text", "data", "synapse", "symbols", "families",
                                     "bits", "arch", "truncate"]))
        if what in ("text", "data", "synapse"):
            blob = getattr(b, what)
            n = draw(st.integers(1, 4))
            blob = _flip(blob, draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n)),
                         draw(st.lists(st.integers(0, 255), min_size=n, max_size=n)))
            width = b.instr_bytes if what == "text" else b.word_bytes
            bits = b.instr_bits if what == "text" else b.data_word_bits
            pad = 8 * width - bits
            if pad and blob:                 # keep the padding bits clear: a valid container
                blob = bytearray(blob)
                for k in range(width - 1, len(blob), width):
                    blob[k] &= 0xFF >> pad
                blob = bytes(blob)
            b = replace(b, **{what: blob})
        elif what == "symbols":
            new = draw(st.lists(symbols, max_size=4))
            keep = [s for s in b.symbols if draw(st.booleans())]
            seen, syms = set(), []
            for s in keep + new:
                if s.name not in seen:
                    seen.add(s.name)
                    syms.append(s)
            b = replace(b, symbols=tuple(syms))
        elif what == "families":
            b = replace(b, families=tuple(draw(st.sets(
                st.sampled_from(["base", "ddpg", "marl", "sparse", "hdc", "x"]), min_size=1))))
        elif what == "bits":                 # another width with the same bytes per word
            w = b.instr_bytes
            try:
                b = replace(b, instr_bits=draw(st.integers(8 * w - 7, 8 * w)))
            except BinaryFormatError:        # padding bits now set: not a valid container
                pass
        elif what == "arch":
            b = replace(b, arch=draw(st.sampled_from(["adhdp", "adhdp-f64", "fixar",
                                                      "/etc/passwd.toml", "nope"])))
        else:
            k = draw(st.integers(0, max(b.n_instructions - 1, 0)))
            b = replace(b, text=b.text[:k * b.instr_bytes])
    return replace(b, origin=ORIGIN)


@FUZZ
@given(mutated())
def test_mutated_binaries(b):
    _property(b)


@FUZZ
@given(st.sampled_from(SEEDS), st.lists(st.integers(0, 10**6), min_size=1, max_size=6),
       st.lists(st.integers(0, 255), min_size=6, max_size=6))
def test_mutated_bytes_with_a_valid_crc(seed, positions, values):
    """Bytes changed anywhere in the file and the CRC recomputed: the reader refuses the
    file naming it, or the binary meets the property."""
    blob = dumps(seed)
    body = _flip(blob[:-4], positions, values)
    blob = body + zlib.crc32(body).to_bytes(4, "little")
    try:
        b = loads(blob, ORIGIN)
    except BinaryFormatError as exc:
        assert str(exc).startswith(ORIGIN), str(exc)
        return
    _property(b)


@pytest.mark.parametrize("seed", SEEDS, ids=["cartpole", "f64"])
def test_seeds_round_trip(seed):
    text = disassemble(seed)
    a = assemble(text, "dis.s").binary
    assert (a.text, a.data, a.synapse, a.symbols) == \
        (seed.text, seed.data, seed.synapse, seed.symbols)
