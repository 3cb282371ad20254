"""``rlaccel asm`` on hostile sources: numbers and expressions, inputs, symbols used in the
wrong memory. Each case gives exactly its message (with the line and caret) or succeeds."""

import pytest

from tests.adversarial.conftest import Case

A = ".arch adhdp\n"
DATA = A + ".data\n"


def _asm(id, source, status, message, *extra, files=None):
    files = {"s.s": source, **(files or {})} if source is not None else dict(files or {})
    return Case(id, ("asm", "s.s", *extra), status, message, files)


def _ok(words_data=0, n=0, synapse=0):
    return (f"s.s -> s.rlb: {n} instructions x 51 bits = {(n * 51 + 7) // 8} of 240 "
            f"instruction-memory bytes ({n}/37 slots) on adhdp; data {words_data} words, "
            f"synapse {synapse} words")


E = "rlaccel asm: error: "
HUGE = "9" * 400
HEXF = "F" * 300

NUMBERS = [
    _asm("values-int-overflows-float", DATA + f".values {HUGE}\n", 1,
         E + f"s.s:3:9: number too large: integers in expressions are at most 128 bits\n"
             f"    .values {HUGE}\n            ^"),
    _asm("rand-bound-overflows-float", DATA + f".rand 4, 0, {HUGE}, 1\n", 1,
         E + f"s.s:3:13: number too large: integers in expressions are at most 128 bits\n"
             f"    .rand 4, 0, {HUGE}, 1\n                ^"),
    _asm("hex-times-float", A + f".equ A, 0x{HEXF} * 1.5\n.data\n.zero 1\n", 1,
         E + f"s.s:2:9: number too large: integers in expressions are at most 128 bits\n"
             f"    .equ A, 0x{HEXF} * 1.5\n            ^"),
    _asm("wide-int-times-float", A + ".equ A, (1 << 64) * (1 << 63) * 1.5\n.data\n.zero 1\n", 0,
         _ok(1)),
    _asm("float-literal-1e999", DATA + ".values 1e999\n", 1,
         E + "s.s:3:9: number too large: the value overflows a floating-point number\n"
             "    .values 1e999\n            ^"),
    _asm("float-product-overflows", DATA + ".values 1e308 * 10.0\n", 1,
         E + "s.s:3:9: number too large: the value overflows a floating-point number\n"
             "    .values 1e308 * 10.0\n            ^"),
    _asm("sum-of-500-terms", DATA + ".zero (" + "+".join(["1"] * 500) + ")/100\n", 0, _ok(5)),
    _asm("990-unary-minuses", DATA + ".zero " + "-" * 990 + "3\n", 0, _ok(3)),
    _asm("5000-nested-parentheses", DATA + ".zero " + "(" * 5000 + "2" + ")" * 5000 + "\n", 0,
         _ok(2)),
    _asm("equ-squared-until-too-wide",
         A + ".equ A0, 3\n" + "".join(f".equ A{i}, A{i - 1}*A{i - 1}\n" for i in range(1, 40)),
         1, E + "s.s:8:10: A6 = 3433683820292512484657849089281 does not fit a constant (a "
                "signed 64-bit integer, -9223372036854775808..9223372036854775807)\n"
                "    .equ A6, A5*A5\n             ^"),
    _asm("product-chain-beyond-128-bits", A + ".equ A, " + "*".join(["4096"] * 20) + "\n", 1,
         E + "s.s:2:9: number too large: integers in expressions are at most 128 bits\n"
             "    .equ A, " + "*".join(["4096"] * 20) + "\n            ^"),
    _asm("huge-shift", A + ".equ A, 1 << 100000\n", 1,
         E + "s.s:2:9: shift count 100000 is too large (at most 64)\n"
             "    .equ A, 1 << 100000\n            ^"),
    _asm("constant-2**63", A + ".equ A, 1 << 63\n", 1,
         E + "s.s:2:9: A = 9223372036854775808 does not fit a constant (a signed 64-bit "
             "integer, -9223372036854775808..9223372036854775807)\n"
             "    .equ A, 1 << 63\n            ^"),
    _asm("constant-minus-2**63", A + ".equ A, -(1 << 63)\n.data\n.zero 1\n", 0, _ok(1)),
    _asm("float-division-by-zero", A + ".equ A, 1.0 / 0\n", 1,
         E + "s.s:2:9: division by zero\n    .equ A, 1.0 / 0\n            ^"),
    _asm("modulo-zero", A + ".equ A, 5 % 0\n", 1,
         E + "s.s:2:9: division by zero\n    .equ A, 5 % 0\n            ^"),
    _asm("invert-a-float", A + ".equ A, ~1.5\n", 1,
         E + "s.s:2:9: '~' needs an integer\n    .equ A, ~1.5\n            ^"),
    _asm("zero-count-float", DATA + ".zero 1.5\n", 1,
         E + "s.s:3:7: expected an integer here, not 1.5\n    .zero 1.5\n          ^"),
    _asm("rand-range-overflows", DATA + ".rand 4, -1e308, 1e308, 1\n", 1,
         E + "s.s:3:10: .rand: the range -1e+308 to 1e+308 is too wide (high - low "
             "overflows a floating-point number)\n"
             "    .rand 4, -1e308, 1e308, 1\n             ^"),
    _asm("immediate-1e30", A + ".data\nX: .zero 1\n.text\nsca.li X, 1e30\n", 1,
         E + "s.s:5:11: sca.li: imm: value 1e+30 is out of range for q6.18 (range "
             "[-32.0, 31.999996185302734])\n    sca.li X, 1e30\n              ^"),
    _asm("long-zero-prefixed-hex", DATA + ".zero 0x" + "0" * 500 + "2\n", 0, _ok(2)),
    _asm("define-1e999", DATA + ".zero 1\n", 2,
         "rlaccel asm: error: argument -D/--define: X=1e999: the value must be a finite number",
         "-D", "X=1e999"),
    _asm("define-nan", DATA + ".zero 1\n", 2,
         "rlaccel asm: error: argument -D/--define: X=nan: the value must be a finite number",
         "-D", "X=nan"),
    _asm("define-beyond-64-bits", DATA + ".zero 1\n", 2,
         "rlaccel asm: error: argument -D/--define: SEED=99999999999999999999: an integer "
         "constant is a signed 64-bit integer (-9223372036854775808..9223372036854775807)",
         "-D", "SEED=99999999999999999999"),
    _asm("define-5000-digits", DATA + ".zero 1\n", 2,
         "rlaccel asm: error: argument -D/--define: X=" + "9" * 5000 + ": the value must be a "
         "finite number", "-D", "X=" + "9" * 5000),
]


def _bomb(kind: str, levels: int = 30) -> dict:
    """Each level uses the one below twice: 2**30 expansions if nothing bounds the total."""
    if kind == "include":
        files = {"s.s": A + '.include "b0.inc"\n', f"b{levels}.inc": ".equ X, 1\n"}
        for i in range(levels):
            files[f"b{i}.inc"] = f'.include "b{i + 1}.inc"\n.include "b{i + 1}.inc"\n'
        return files
    lines = [A, ".macro m0\n.equ Y, 1\n.endm\n"]
    for i in range(1, levels + 1):
        lines.append(f".macro m{i}\nm{i - 1}\nm{i - 1}\n.endm\n")
    return {"s.s": "".join(lines) + f"m{levels}\n"}


INPUTS = [
    Case("dev-zero", ("asm", "/dev/zero", "-o", "z.rlb"), 1,
         E + "/dev/zero: is a character device, not a source file"),
    Case("empty-file-name", ("asm", ""), 2,
         "rlaccel asm: error: argument SRC: the file name is empty"),
    Case("a-directory", ("asm", "d", "-o", "d.rlb"), 1,
         E + "d: is a directory, not a source file", {"d/x": ""}),
    Case("missing", ("asm", "none.s"), 1, E + "none.s: no such source file"),
    _asm("empty-file", "", 1,
         E + "s.s: nothing to assemble: no instructions and no data (.zero, .values, .rand)"),
    _asm("comments-only", "; a comment\n# another\n\n", 1,
         E + "s.s: nothing to assemble: no instructions and no data (.zero, .values, .rand)"),
    _asm("arch-only", A, 1,
         E + "s.s: nothing to assemble: no instructions and no data (.zero, .values, .rand)"),
    _asm("no-arch-data-first", ".data\n.zero 1\n", 1,
         E + "s.s:2:1: no architecture: add '.arch NAME' before the first instruction or "
             "pass --arch NAME\n    .zero 1\n    ^"),
    _asm("source-latin1", (A + ".data\n.zero 1 ; caf\xe9\n").encode("latin-1"), 1,
         E + "s.s:3:14: not UTF-8 text (byte 0xe9); is this a text file?\n"
             "    .zero 1 ; caf\ufffd\n                 ^"),
    _asm("include-latin1", A + '.include "l1.inc"\n', 1,
         E + "l1.inc:2:7: not UTF-8 text (byte 0xe9); is this a text file? (included at "
             "s.s:2)\n    .equ B\ufffd, 2\n          ^", files={"l1.inc": "@latin1.inc"}),
    _asm("include-binary", A + '.include "bin.inc"\n', 1,
         E + "bin.inc:1:1: not UTF-8 text (byte 0x89); is this a text file? (included at "
             "s.s:2)\n    \ufffdPNG\r\n    ^", files={"bin.inc": b"\x89PNG\r\n\x1a\n\x00\x00"}),
    _asm("include-nul", A + '.include "nul.inc"\n', 1,
         E + "nul.inc:1:1: NUL character in source (is this a binary file?)",
         files={"nul.inc": ".equ X, 1\x00\n"}),
    _asm("include-dev-zero", A + '.include "/dev/zero"\n', 1,
         E + 's.s:2:1: include file "/dev/zero" (/dev/zero) is not a regular file\n'
             '    .include "/dev/zero"\n    ^'),
    _asm("include-a-directory", A + '.include "sub"\n', 1,
         E + 's.s:2:1: include file "sub" (sub) is not a regular file\n'
             '    .include "sub"\n    ^', files={"sub/x": ""}),
    _asm("include-itself", A + '.include "s.s"\n', 1,
         E + "s.s:2:1: .include cycle: s.s -> s.s\n    .include \"s.s\"\n    ^"),
    _asm("byte-order-mark", "\ufeff" + DATA + ".zero 1\n", 0, _ok(1)),
    _asm("cr-only-line-ends", ".arch adhdp\r.data\r.zero 1\r", 1,
         E + "s.s:1:12: unexpected character '\\r'; expected ',', '=' or end of line\n"
             "    .arch adhdp\ufffd.data\ufffd.zero 1\n               ^"),
    Case("include-bomb", ("asm", "s.s"), 1,
         E + "b29.inc:1:1: .include and macros expand to more than 500,000 statements (a "
             "file or macro used over and over at every level?)\n"
             '    .include "b30.inc"\n    ^', _bomb("include")),
    Case("macro-bomb", ("asm", "s.s"), 1,
         E + "s.s:6:1: .include and macros expand to more than 500,000 statements (a file or "
             "macro used over and over at every level?) (in macro m1 expanded at s.s:11, "
             "macro m2 expanded at s.s:14, ..., macro m30 expanded at s.s:125)\n    m0\n    ^",
         _bomb("macro")),
    Case("include-chain-40-deep", ("asm", "s.s"), 1,
         E + "i31.inc:1:1: .include nested deeper than 32 files\n"
             '    .include "i32.inc"\n    ^',
         {"s.s": A + '.include "i0.inc"\n',
          **{f"i{i}.inc": f'.include "i{i + 1}.inc"\n' for i in range(40)},
          "i40.inc": ".equ X, 1\n"}),
    _asm("include-dir-is-a-file", DATA + ".zero 1\n", 2,
         "rlaccel asm: error: argument -I/--include: s.s: not a directory", "-I", "s.s"),
]

S = A + ".data\nX: .zero 4\n.synapse\nW: .zero 4\n.text\n"
SYMBOLS = [
    _asm("text-label-as-data-address", S + "L: ff src=L, syn=W, dst=X, rows=1, cols=1\n", 1,
         E + "s.s:7:11: ff: src: 'L' is a text label, not a unified-memory address\n"
             "    L: ff src=L, syn=W, dst=X, rows=1, cols=1\n              ^"),
    _asm("synapse-symbol-as-unified-address", S + "ff src=X, syn=W, dst=W, rows=1, cols=1\n", 1,
         E + "s.s:7:22: ff: dst: 'W' is a synapse-memory symbol, not a unified-memory "
             "address\n    ff src=X, syn=W, dst=W, rows=1, cols=1\n                         ^"),
    _asm("unified-symbol-as-synapse-address", S + "ff src=X, syn=X+1, dst=X, rows=1, cols=1\n",
         1, E + "s.s:7:15: ff: syn: 'X' is a unified-memory symbol, not a synapse-memory "
                "address\n    ff src=X, syn=X+1, dst=X, rows=1, cols=1\n                  ^"),
    _asm("data-symbol-as-jump-target", S + "cc.jmp X\n", 1,
         E + "s.s:7:8: cc.jmp: target: 'X' is a unified-memory symbol, not a label or "
             "instruction index\n    cc.jmp X\n           ^"),
    _asm("synapse-symbol-in-a-loop", S + "L: cc.loop 0, 3, W\n", 1,
         E + "s.s:7:18: cc.loop: target: 'W' is a synapse-memory symbol, not a label or "
             "instruction index\n    L: cc.loop 0, 3, W\n                     ^"),
    _asm("address-as-a-length", S + "ff src=X, syn=W, dst=X, rows=X, cols=1\n", 1,
         E + "s.s:7:30: ff: rows: 'X' is a unified-memory symbol, not a number\n"
             "    ff src=X, syn=W, dst=X, rows=X, cols=1\n                                 ^"),
    _asm("label-as-a-data-value", S + "L: cc.halt\n.data\n.values L\n", 1,
         E + "s.s:9:9: .values: 'L' is a text label, not a constant\n    .values L\n"
             "            ^"),
    _asm("address-in-equ", S + "cc.halt\n.equ N, X+1\n", 1,
         E + "s.s:8:9: .equ: 'X' is a unified-memory symbol, not a constant\n"
             "    .equ N, X+1\n            ^"),
    _asm("label-as-org", S + "L: cc.halt\n.synapse\n.org L\n", 1,
         E + "s.s:9:6: .org: 'L' is a text label, not a synapse-memory address\n"
             "    .org L\n         ^"),
    _asm("org-past-memory-label", S + "cc.halt\n.data\n.org 5000\nFAR:\n", 1,
         E + "s.s:10:1: label 'FAR' at data word 5000 is past the end of unified memory "
             "(176 words on 'adhdp')\n    FAR:\n    ^"),
    _asm("the-right-memories", S + "L: ff src=X+1, syn=W, dst=X, rows=1, cols=2\n"
                                   "cc.loop 0, 3, L\ncc.halt\n.data\n.org X+2\nY: .zero 1\n",
         0, _ok(4, 3, 4)),
    _asm("mnemonic-as-a-symbol", S + "ff: cc.halt\n", 1,
         E + "s.s:7:1: 'ff' is an instruction mnemonic and cannot be a symbol (write `ff` to "
             "use it as one)\n    ff: cc.halt\n    ^"),
    _asm("quoted-names", S + "`ff`: cc.jmp `ff`\n.data\n`a;b`: .zero 1\n", 0, _ok(5, 1, 4)),
]


@pytest.mark.parametrize("case", [c.param() for c in NUMBERS])
def test_numbers_and_expressions(case, check):
    check(case)


@pytest.mark.parametrize("case", [c.param() for c in INPUTS])
def test_inputs(case, check):
    check(case)


@pytest.mark.parametrize("case", [c.param() for c in SYMBOLS])
def test_symbols_in_the_wrong_memory(case, check):
    check(case)
