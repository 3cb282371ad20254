"""Syntax errors are located and say what was expected, in words."""

import pytest

from rlaccel.assembler.ast import BinOp, Directive, InstrStmt, Label, Name, Num
from rlaccel.assembler.parser import parse
from rlaccel.util.errors import AsmError


def test_statements_and_locations():
    stmts = parse("start: ff src=X, 3 ; comment\n.equ N, 0x10 + 0b11\n", "a.s")
    assert isinstance(stmts[0], Label) and stmts[0].name == "start"
    ins = stmts[1]
    assert isinstance(ins, InstrStmt) and ins.mnemonic == "ff" and ins.loc.col == 8
    assert ins.args[0].name == "src" and isinstance(ins.args[0].value, Name)
    assert ins.args[1].name is None and ins.args[1].value == Num(3, ins.args[1].value.loc)
    d = stmts[2]
    assert isinstance(d, Directive) and d.name == "equ" and d.loc.line == 2
    assert isinstance(d.args[1].value, BinOp)


def test_precedence():
    (d,) = parse(".equ X, 1 + 2 * 3 << 1\n")
    e = d.args[1].value
    assert e.op == "<<" and e.left.op == "+" and e.left.right.op == "*"


def _err(text):
    with pytest.raises(AsmError) as info:
        parse(text, "b.s")
    return str(info.value)


def test_missing_operand_value():
    assert _err("ff src=,\n") == ("b.s:1:8: unexpected ','; expected '(', '+', '-', '~', "
                                  "a name or a number\n    ff src=,\n           ^")


def test_missing_comma():
    assert _err("ff a b\n") == ("b.s:1:6: unexpected 'b'; expected ',', '=' or end of line\n"
                                "    ff a b\n         ^")


def test_unclosed_paren():
    assert _err("ff (1+2\n").startswith("b.s:1:8: unexpected end of line; expected ')'")


def test_bad_character():
    msg = _err("ff a, `b\n")
    assert msg.startswith("b.s:1:7: unexpected character '`'")
    assert msg.endswith("    ff a, `b\n          ^")


def test_nul_byte():
    assert _err("ff\n\x00\n") == "b.s:2:1: NUL character in source (is this a binary file?)"


def test_line_continuation_and_comments():
    stmts = parse("ff a, \\\n   b   # two lines\n; only a comment\n")
    assert len(stmts) == 1 and len(stmts[0].args) == 2
