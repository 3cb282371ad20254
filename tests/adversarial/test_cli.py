"""Hostile command-line arguments for asm, dis, isa, cosim and rtl: a value out of bounds is a
usage error (exit 2, argparse's usage line and what the value must be); a well-formed value
that names something wrong is a user error (exit 1) with one paragraph."""

import pytest

from rlaccel.isa.arch import arch_names

from rlaccel.assembler.rlb import dumps

from tests.adversarial.conftest import Case
from tests.adversarial.test_dis import BASE

SEED_RANGE = "must be an integer from 0 to 9,223,372,036,854,775,807"
N_RANGE = "must be an integer from 1 to 1,000,000"
PROGRAM = ".arch adhdp\n.data\n.zero 1\n"
UNKNOWN = (f"unknown architecture 'nope'; known: {', '.join(arch_names())}, or give a path to "
           f"a .toml file")


def _usage(verb: str, message: str) -> str:
    return f"rlaccel {verb}: error: {message}"


CASES = [
    Case("report-darl-learning-a-device", ("report", "darl", "-o", "r", "--learning",
                                           "/dev/zero"), 1,
         "rlaccel report: error: /dev/zero: is a character device, not a learning file"),
    Case("report-lg-learning-a-device", ("report", "learninggroup", "-o", "r", "--learning",
                                         "/dev/zero"), 1,
         "rlaccel report: error: /dev/zero: is a character device, not a learning file"),
    Case("report-fixar-train-steps-negative", ("report", "fixar", "--train-steps", "-1"), 2,
         "rlaccel report fixar: error: argument --train-steps: must be an integer from 1 to "
         "1,000,000, not '-1'"),
    Case("report-fixar-batch-0", ("report", "fixar", "--batches", "64", "0"), 2,
         "rlaccel report fixar: error: argument --batches: must be an integer from 1 to 512, "
         "not '0'"),
    Case("cosim-n-0", ("cosim", "lane", "--n", "0"), 2,
         _usage("cosim", f"argument --n: {N_RANGE}, not '0'")),
    Case("cosim-n-negative", ("cosim", "lane", "--n", "-5"), 2,
         _usage("cosim", f"argument --n: {N_RANGE}, not '-5'")),
    Case("cosim-n-above-the-bound", ("cosim", "lane", "--n", "1000001"), 2,
         _usage("cosim", f"argument --n: {N_RANGE}, not '1000001'")),
    Case("cosim-n-10**30", ("cosim", "datapath", "--n", "1" + "0" * 30), 2,
         _usage("cosim", f"argument --n: {N_RANGE}, not '1{'0' * 30}'")),
    Case("cosim-n-not-a-number", ("cosim", "lane", "--n", "1e3"), 2,
         _usage("cosim", f"argument --n: {N_RANGE}, not '1e3'")),
    Case("cosim-seed-negative", ("cosim", "lane", "--n", "3", "--seed", "-1"), 2,
         _usage("cosim", f"argument --seed: {SEED_RANGE}, not '-1'")),
    Case("cosim-seed-2**63", ("cosim", "lane", "--n", "3", "--seed", str(2**63)), 2,
         _usage("cosim", f"argument --seed: {SEED_RANGE}, not '{2**63}'")),
    Case("cosim-seed-beyond-any-word", ("cosim", "lane", "--seed", "9" * 50), 2,
         _usage("cosim", f"argument --seed: {SEED_RANGE}, not '{'9' * 50}'")),
    Case("cosim-vcd-empty", ("cosim", "lane", "--vcd", ""), 2,
         _usage("cosim", "argument --vcd: the file name is empty")),
    Case("cosim-vcd-missing-directory", ("cosim", "lane", "--n", "3", "--vcd", "no/w.vcd"), 1,
         "rlaccel cosim: error: no/w.vcd: --vcd: directory no does not exist"),
    Case("cosim-vcd-a-directory", ("cosim", "lane", "--n", "3", "--vcd", "d"), 1,
         "rlaccel cosim: error: d: --vcd is a directory, not a regular file", {"d/x": ""}),
    Case("cosim-unknown-arch", ("cosim", "lane", "--n", "3", "--arch", "nope"), 1,
         "rlaccel cosim: error: " + UNKNOWN),
    Case("cosim-largest-seed-runs", ("cosim", "lane", "--n", "3", "--seed", str(2**63 - 1)),
         0, f"lane (myhdl, seed {2**63 - 1}): 3 transactions checked, 0 mismatches, "),
    Case("rtl-speed-instructions-0", ("rtl", "speed", "--instructions", "0"), 2,
         _usage("rtl speed", f"argument --instructions: {N_RANGE}, not '0'")),
    Case("rtl-verilog-into-a-file", ("rtl", "verilog", "lane", "-o", "f"), 1,
         "rlaccel rtl: error: f: -o must be a directory", {"f": "x"}),
    Case("rtl-verilog-empty-dir", ("rtl", "verilog", "lane", "-o", ""), 2,
         _usage("rtl verilog", "argument -o/--output: the file name is empty")),
    Case("rtl-speed-json-over-the-manifest",
         ("rtl", "speed", "--manifest", "m.toml", "--json", "m.toml"), 1,
         "rlaccel rtl: error: m.toml: --json would overwrite the manifest; choose another file",
         {"m.toml": "x = 1\n"}),
    Case("isa-unknown-arch", ("isa", "--arch", "nope"), 1,
         "rlaccel isa: error: " + UNKNOWN),
    Case("isa-arch-empty", ("isa", "--arch", ""), 2,
         _usage("isa", "argument --arch: the file name is empty")),
    Case("isa-arch-dev-zero", ("isa", "--arch", "/dev/zero.toml"), 1,
         "rlaccel isa: error: /dev/zero.toml: no such architecture file"),
    Case("dis-unknown-arch", ("dis", "b.rlb", "--arch", "nope"), 1,
         "rlaccel dis: error: " + UNKNOWN, {"b.rlb": dumps(BASE)}),
    Case("asm-nul-in-a-name", ("asm", "a\x00b"), 2,
         _usage("asm", "argument SRC: a file name cannot contain a NUL character")),
    Case("asm-define-without-value", ("asm", "s.s", "-D", "X"), 2,
         _usage("asm", "argument -D/--define: expected NAME=VALUE, not 'X'"), {"s.s": PROGRAM}),
    Case("asm-define-without-name", ("asm", "s.s", "-D", "=3"), 2,
         _usage("asm", "argument -D/--define: expected NAME=VALUE, not '=3'"), {"s.s": PROGRAM}),
    Case("asm-define-bad-name", ("asm", "s.s", "-D", "a b=3"), 2,
         _usage("asm", "argument -D/--define: 'a b' is not a constant name (letters, digits, "
                       "_, $ and @, not starting with a digit, and not an instruction "
                       "mnemonic)"), {"s.s": PROGRAM}),
    Case("asm-define-a-mnemonic", ("asm", "s.s", "-D", "ff=3"), 2,
         _usage("asm", "argument -D/--define: 'ff' is not a constant name (letters, digits, "
                       "_, $ and @, not starting with a digit, and not an instruction "
                       "mnemonic)"), {"s.s": PROGRAM}),
    Case("asm-define-twice", ("asm", "s.s", "-D", "X=1", "-D", "X=2"), 2,
         _usage("asm", "argument -D/--define: X is defined twice"), {"s.s": PROGRAM}),
    Case("asm-define-not-a-number", ("asm", "s.s", "-D", "X=abc"), 2,
         _usage("asm", "argument -D/--define: X: the value must be a number, not 'abc'"),
         {"s.s": PROGRAM}),
    Case("asm-define-used", ("asm", "s.s", "-D", "N=0x10"), 0,
         "s.s -> s.rlb: 0 instructions x 51 bits = 0 of 240 instruction-memory bytes "
         "(0/37 slots) on adhdp; data 16 words, synapse 0 words",
         {"s.s": ".arch adhdp\n.default N, 1\n.data\n.zero N\n"}),
    Case("asm-arch-missing-file", ("asm", "s.s", "--arch", "nowhere.toml"), 1,
         "rlaccel asm: error: nowhere.toml: no such architecture file", {"s.s": PROGRAM}),
]


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_arguments(case, check):
    check(case)
