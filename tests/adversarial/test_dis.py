"""``rlaccel dis`` on hostile binaries: containers that are fine but mean nothing on their
architecture, architectures named by path, files that are not binaries, and legal symbol
names that must survive a disassembly and reassembly. Every message names the binary."""

import zlib
from dataclasses import replace

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.assembler.rlb import Symbol, dumps, read
from rlaccel.isa.arch import arch_names
from rlaccel.isa.encoding import Instruction, encoding_for

from tests.adversarial.conftest import Case

PROGRAM = """.arch adhdp
.data
X: .zero 4
.synapse
W: .values 0.5, -0.25
.text
top: ff src=X, syn=W, dst=X, rows=1, cols=2
     cc.jmp top
     cc.halt
"""
BASE = assemble(PROGRAM, "p.s").binary
ENC = encoding_for("adhdp")
E = "rlaccel dis: error: b.rlb: "


def _bin(**changes) -> bytes:
    """The program's binary with some fields changed: a well-formed container (valid CRC)
    whose contents are wrong."""
    return dumps(replace(BASE, **changes))


def _text(*instructions: Instruction, enc=ENC) -> bytes:
    return enc.to_bytes(enc.encode(i) for i in instructions)


def _dis(id, blob, status, message, *extra):
    return Case(id, ("dis", "b.rlb", *extra), status, message, {"b.rlb": blob})


F64 = assemble(".arch adhdp-f64\n.data\nX: .zero 1\n.text\ncc.halt\n", "f.s").binary
ENC64 = encoding_for("adhdp-f64")
NAN_F32 = int(np.array(np.nan, dtype=np.float32).view(np.int32))
CORRUPT = dumps(BASE)[:-1] + bytes([dumps(BASE)[-1] ^ 1])
INSTALLED = ", ".join(arch_names())

CASES = [
    Case("dev-zero", ("dis", "/dev/zero"), 1,
         "rlaccel dis: error: /dev/zero: is a character device, not a binary file"),
    Case("a-directory", ("dis", "d"), 1,
         "rlaccel dis: error: d: is a directory, not a binary file", {"d/x": ""}),
    Case("missing", ("dis", "none.rlb"), 1, "rlaccel dis: error: none.rlb: no such binary file"),
    _dis("empty", b"", 1, E + "empty file (0 bytes), not an rlaccel binary"),
    _dis("garbage", b"hello world\n", 1,
         E + "not an rlaccel binary (bad magic b'hell', expected b'\\x7fRLB')"),
    _dis("a-source-file", PROGRAM.encode(), 1,
         E + "not an rlaccel binary (bad magic b'.arc', expected b'\\x7fRLB')"),
    _dis("crc", CORRUPT, 1,
         E + f"CRC mismatch: stored 0x{int.from_bytes(CORRUPT[-4:], 'little'):08x}, computed "
             f"0x{zlib.crc32(CORRUPT[:-4]):08x} (the file is corrupt)"),
    _dis("instruction-width", _bin(instr_bits=52), 1,
         E + "instructions are 52 bits, but 'adhdp' has 51-bit instructions"),
    _dis("data-width", _bin(data_word_bits=23, data=bytes(12), synapse=b""), 1,
         E + "data words are 23 bits, but 'adhdp' has 24-bit q6.18 words"),
    _dis("unknown-family", _bin(families=("base", "quantum")), 1,
         E + "unknown ISA family 'quantum' (families: base, ddpg, marl, sparse, hdc)"),
    _dis("family-not-on-the-arch", _bin(families=("base", "hdc")), 1,
         E + "ISA family 'hdc' is not implemented by 'adhdp' (it has base)"),
    _dis("symbol-at-2**60", _bin(symbols=BASE.symbols + (Symbol("FAR", "data", 2**60, 1,
                                                               "data"),)), 1,
         E + "symbol 'FAR' (data 1152921504606846976..1152921504606846977) lies outside "
             "unified memory (176 words)"),
    _dis("synapse-symbol-past-memory", _bin(symbols=BASE.symbols + (
        Symbol("W2", "synapse", 510, 5, "data"),)), 1,
         E + "symbol 'W2' (synapse 510..515) lies outside synapse memory (512 words)"),
    _dis("label-past-the-program", _bin(symbols=BASE.symbols + (Symbol("END", "text", 50, 0,
                                                                        "label"),)), 1,
         E + "symbol 'END' (text 50..50) lies outside the program (3 instructions)"),
    _dis("14000-instructions", _bin(text=_text(Instruction("cc.halt")) * 14000), 1,
         E + "14000 instructions of 51 bits do not fit the 240-byte instruction memory of "
             "'adhdp' (37 instructions)"),
    _dis("data-image-too-large", _bin(data=bytes(3 * 200)), 1,
         E + "the data image has 200 words, but unified memory has 176 on 'adhdp'"),
    _dis("arch-named-by-path", _bin(arch="/tmp/evil.toml"), 1,
         E + "the binary names architecture '/tmp/evil.toml', which is not installed "
             f"(installed: {INSTALLED}); pass --arch "
             "NAME or --arch FILE.toml to read it against another architecture"),
    _dis("arch-named-by-relative-path", _bin(arch="../../isa/archs/adhdp"), 1,
         E + "the binary names architecture '../../isa/archs/adhdp', which is not installed "
             f"(installed: {INSTALLED}); pass --arch "
             "NAME or --arch FILE.toml to read it against another architecture"),
    _dis("other-encoding", _bin(encoding_hash="0" * 16), 1,
         "rlaccel dis: error: b.rlb was assembled for 'adhdp' (encoding 0000000000000000), "
         f"not for 'adhdp' (encoding {ENC.hash}): the instruction encoding of 'adhdp' has "
         "changed since; reassemble it with --arch adhdp"),
    _dis("other-arch-given", dumps(BASE), 1,
         "rlaccel dis: error: b.rlb was assembled for 'adhdp' (encoding "
         f"{ENC.hash}), not for 'fixar' (encoding {encoding_for('fixar').hash}): reassemble "
         "it with --arch fixar", "--arch", "fixar"),
    _dis("illegal-word", _bin(text=ENC.to_bytes([7])), 1,
         E + "instruction 0: 0x0000000000007: opcode 7 is not an instruction of 'adhdp'"),
    _dis("jump-outside-the-program",
         _bin(text=_text(Instruction("cc.jmp", {"target": 30}), Instruction("cc.halt"))), 1,
         E + "instruction 0 (cc.jmp) jumps to 30, outside the program (2 instructions)"),
    _dis("range-outside-memory",
         _bin(text=_text(Instruction("ff", {"src": 0, "syn": 500, "dst": 0, "rows": 4,
                                            "cols": 4}))), 1,
         E + "instruction 0 (ff) syn=500 spans 16 word(s), past the end of synapse memory "
             "(512 words)"),
    _dis("nan-data-word", dumps(replace(F64, data=np.array([np.nan]).tobytes())), 1,
         E + "data word 0 is nan, not a finite number"),
    _dis("nan-immediate", dumps(replace(F64, text=_text(
        Instruction("sca.li", {"dst": 0, "imm": NAN_F32}), enc=ENC64))), 1,
         E + "instruction 0 (sca.li) has the immediate nan, not a finite number"),
    _dis("output-is-the-binary", dumps(BASE), 1,
         E + "-o would overwrite the binary; choose another file", "-o", "b.rlb"),
    _dis("dis-arch-empty", dumps(BASE), 2,
         "rlaccel dis: error: argument --arch: the file name is empty", "--arch", ""),
]


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_binaries(case, check):
    check(case)


NAMES = ["ff", "a;b", "a`b", "back\\slash", "1x", "caf\u00e9", "x.y", "bsig", "halt$1",
         "wu.vu", "#hash", "a=b", "q:"]


@pytest.mark.parametrize("name", NAMES)
def test_legal_symbol_names_reassemble(name, cli, tmp_path):
    """A name the binary format allows, in every kind of symbol, disassembles to text that
    reassembles to the same sections and the same symbol table."""
    syms = (Symbol(name, "data", 0, 4, "data"), Symbol(name + "_w", "synapse", 0, 2, "data"),
            Symbol(name + "_t", "text", 1, 0, "label"), Symbol(name + "_c", "const", -3, 0,
                                                               "equ"))
    (tmp_path / "b.rlb").write_bytes(_bin(symbols=syms))
    assert cli(["dis", "b.rlb", "-o", "d.s"])[0] == 0
    status, out, err = cli(["asm", "d.s", "-o", "d.rlb"])
    assert (status, err) == (0, "")
    a, b = read(tmp_path / "b.rlb"), read(tmp_path / "d.rlb")
    assert (a.text, a.data, a.synapse, a.symbols) == (b.text, b.data, b.synapse, b.symbols)


def test_a_custom_architecture_is_read_only_when_named(cli, tmp_path):
    """A binary for an architecture that is not installed needs --arch FILE.toml."""
    files = {"my.toml": 'inherit = "adhdp"\nname = "myarch"\n',
             "p.s": PROGRAM.replace(".arch adhdp\n", "")}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert cli(["asm", "p.s", "--arch", "my.toml", "-o", "b.rlb"])[0] == 0
    status, out, err = cli(["dis", "b.rlb"])
    assert (status, err) == (1, "rlaccel dis: error: b.rlb: the binary names architecture "
                                f"'myarch', which is not installed (installed: {INSTALLED}); "
                                "pass --arch NAME or --arch FILE.toml to read it against "
                                "another architecture\n")
    status, out, err = cli(["dis", "b.rlb", "--arch", "my.toml"])
    assert status == 0 and ".arch   myarch" in out and "ff " in out
