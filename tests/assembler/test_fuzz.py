"""No input, however malformed, gets anything out of the assembler but its own AsmError."""

import random
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from rlaccel.assembler.assemble import assemble
from rlaccel.util.errors import RlaccelError
from rlaccel.isa.machine import machine
from rlaccel.isa.machine import machines

PROGRAMS = sorted(p for m in machines().values() for p in m.programs.glob("*.s"))
ROOT = machine("adhdp").programs
CORPUS = [(ROOT / "layout.inc").read_text(), (ROOT / "fig2.inc").read_text(),
          (ROOT / "fig7.inc").read_text()]
ALPHABET = st.sampled_from(list("abcdefxyz_.0123456789 ,=:+-*/()<>|&^~\"';#\n\t") +
                           ["ff ", "sca.td ", ".equ ", ".macro ", ".endm\n", ".data\n",
                            ".text\n", ".values ", ".zero ", ".rand ", ".org ", "rows=",
                            "act=bsig", "0x", "1e9", "999999999999", "-", "\\\n", "\x00",
                            ".include \"x\"\n", "cc.loop 0, ", "src=X", "é"])


#: CPU seconds any one fuzzed source may take (a hang or a blow-up fails the example; a bomb
#: that reaches the expansion budget takes 1-4 s); CPU, not wall time, so that waiting for a
#: core on a loaded machine is not taken for a hang
BUDGET_S = 20.0


def _assemble(text: str):
    start = time.process_time()
    try:
        assemble(text, "fuzz.s")
    except RlaccelError:
        pass  # the assembler's own, located error
    assert time.process_time() - start < BUDGET_S


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_text(text):
    _assemble(".arch adhdp\n" + text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_mutated_programs(seed, n_mutations):
    """Delete, duplicate, swap or corrupt characters and lines of the real programs."""
    rng = random.Random(seed)
    text = ".arch adhdp\n.equ NX, 4\n.equ NHA, 6\n.equ NHC, 6\n" + \
        CORPUS[0] + rng.choice(CORPUS[1:])
    for _ in range(n_mutations):
        lines = text.split("\n")
        op = rng.randrange(5)
        i = rng.randrange(len(lines))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2 and lines[i]:
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k] + rng.choice("=,:()+-*x9 .\"\\") + lines[i][k + 1:]
        elif op == 3 and lines[i]:
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k]
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        text = "\n".join(lines)
    _assemble(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_unicode(text):
    _assemble(text)


@st.composite
def bombs(draw):
    """Sources built to blow up: macros calling the previous one several times, .equ
    chains squaring or shifting, long unary and parenthesised expressions, huge counts."""
    fan, depth = draw(st.integers(1, 3)), draw(st.integers(1, 40))
    parts = [".arch adhdp", ".macro m0", "sca.nop", ".endm"]
    for i in range(1, depth + 1):
        parts += [f".macro m{i}"] + [f"m{i - 1}"] * fan + [".endm"]
    parts.append(f"m{depth}" if draw(st.booleans()) else "")
    op = draw(st.sampled_from(["*", "<<", "+", "**", "/"]))
    parts += [".equ E0, " + str(draw(st.integers(-(1 << 70), 1 << 70)))]
    parts += [f".equ E{i}, E{i - 1} {op} E{i - 1}" for i in range(1, draw(st.integers(1, 30)))]
    n = draw(st.integers(1, 3000))
    big = str(draw(st.integers(0, 1 << 80)))
    expr = draw(st.sampled_from(["-" * n + "1", "(" * n + "1" + ")" * n, "+".join(["1"] * n),
                                 big]))
    parts += [".data", ".zero " + expr]
    parts += [".text", "cc.halt"]
    return "\n".join(parts) + "\n"


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bombs())
def test_bombs_end_quickly(text):
    """Expansion and evaluation are bounded: each source ends in its own error or assembles
    within the budget."""
    _assemble(text)
