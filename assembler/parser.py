"""Source text -> list of statements (Lark LALR tree, then a transformer to :mod:`.ast`).

Every Lark error becomes an :class:`~isa.errors.AsmError` located at ``file:line:col`` with
the source line, a caret and what was expected, in words.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from isa.errors import AsmError

from .ast import Arg, BinOp, Directive, InstrStmt, Label, Loc, Name, Num, Stmt, Unary

__all__ = ["parse"]

_GRAMMAR = Path(__file__).with_name("grammar.lark")

#: terminal names -> words for error messages
_WORDS = {
    "NAME": "a name", "INT": "a number", "HEX": "a number", "BIN": "a number",
    "FLOAT": "a number", "LABEL": "a label", "STRING": "a string", "DIRECTIVE": "a directive",
    "_NL": "end of line", "$END": "end of file", "COMMA": "','", "COLON": "':'",
    "EQUAL": "'='", "LPAR": "'('", "RPAR": "')'", "PLUS": "'+'", "MINUS": "'-'",
    "STAR": "'*'", "SLASH": "'/'", "PERCENT": "'%'", "VBAR": "'|'", "AMPERSAND": "'&'",
    "CIRCUMFLEX": "'^'", "TILDE": "'~'", "LSHIFT": "'<<'", "RSHIFT": "'>>'",
    "__ANON_0": "'<<'", "__ANON_1": "'>>'",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(_GRAMMAR.read_text(), parser="lalr", start="program",
                propagate_positions=True, maybe_placeholders=False)


def _describe(tok: Token | None) -> str:
    if tok is None or tok.type == "$END":
        return "end of file"
    if tok.type == "_NL":
        return "end of line"
    return f"'{tok}'"


def _expected_words(expected) -> str:
    words = sorted({_WORDS.get(t, f"'{t}'") for t in expected if not t.startswith("__ANON")}
                   | {_WORDS[t] for t in expected if t in _WORDS})
    operators = {"'%'", "'&'", "'*'", "'+'", "'-'", "'/'", "'<<'", "'>>'", "'^'", "'|'", "'~'"}
    if set(words) - operators - {"'('", "a name", "a number", "a string"} and \
            set(words) & {"','", "end of line", "')'"}:
        words = [w for w in words if w not in operators]
    if not words:
        return ""
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


class _ToAst(Transformer):
    """Lark tree -> AST nodes. Any rule not handled here is a bug and raises."""

    def __init__(self, file: str, lines: list[str]):
        super().__init__()
        self.file = file
        self.lines = lines

    def _loc(self, meta_or_tok) -> Loc:
        line = getattr(meta_or_tok, "line", 0) or 0
        col = getattr(meta_or_tok, "column", 0) or 0
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Loc(self.file, line, col, text)

    def __default__(self, data, children, meta):
        raise NotImplementedError(f"assembler grammar rule '{data}' has no transformer")

    @v_args(meta=True)
    def program(self, meta, items):
        out: list[Stmt] = []
        for item in items:
            out.extend(item if isinstance(item, list) else [item])
        return out

    @v_args(meta=True)
    def label(self, meta, children):
        return Label(str(children[0]).rstrip(" \t:"), self._loc(children[0]))

    @v_args(meta=True)
    def directive(self, meta, children):
        tok = children[0]
        args = children[1] if len(children) > 1 else ()
        return Directive(str(tok)[1:].lower(), tuple(args), self._loc(tok))

    @v_args(meta=True)
    def directive_head(self, meta, children):
        tok, name, args = children
        head = Arg(None, Name(str(name), self._loc(name)), self._loc(name))
        return Directive(str(tok)[1:].lower(), (head, *args), self._loc(tok))

    @v_args(meta=True)
    def instruction(self, meta, children):
        tok = children[0]
        args = children[1] if len(children) > 1 else ()
        return InstrStmt(str(tok).lower(), tuple(args), self._loc(tok))

    @v_args(meta=True)
    def args(self, meta, children):
        return tuple(children)

    @v_args(meta=True)
    def named(self, meta, children):
        tok, value = children
        return Arg(str(tok), value, self._loc(tok))

    @v_args(meta=True)
    def positional(self, meta, children):
        return Arg(None, children[0], self._loc(meta))

    @v_args(meta=True)
    def string(self, meta, children):
        return Arg(None, str(children[0])[1:-1], self._loc(children[0]))

    def _num(self, tok, value):
        return Num(value, self._loc(tok))

    def int(self, children):
        return self._num(children[0], int(str(children[0]).replace("_", "")))

    def hex(self, children):
        return self._num(children[0], int(str(children[0]).replace("_", ""), 16))

    def bin(self, children):
        return self._num(children[0], int(str(children[0]).replace("_", ""), 2))

    def float(self, children):
        return self._num(children[0], float(str(children[0])))

    def name(self, children):
        return Name(str(children[0]), self._loc(children[0]))

    def _bin(op):  # noqa: N805 - a factory used in the class body
        @v_args(meta=True)
        def rule(self, meta, children):
            left, right = children
            return BinOp(op, left, right, self._loc(meta))
        return rule

    bor, bxor, band = _bin("|"), _bin("^"), _bin("&")
    shl, shr = _bin("<<"), _bin(">>")
    add, sub, mul, div, mod = _bin("+"), _bin("-"), _bin("*"), _bin("/"), _bin("%")

    @v_args(meta=True)
    def neg(self, meta, children):
        return Unary("-", children[0], self._loc(meta))

    @v_args(meta=True)
    def inv(self, meta, children):
        return Unary("~", children[0], self._loc(meta))

    del _bin


def parse(text: str, file: str = "<input>") -> list[Stmt]:
    """Parse assembly source into statements; syntax errors raise a located AsmError."""
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise AsmError("NUL character in source (is this a binary file?)", file, line, 1)
    lines = text.splitlines()
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, file, lines) from None
    try:
        return _ToAst(file, lines).transform(tree)
    except VisitError as exc:  # a transformer bug or an unhandled rule: say so, located
        raise AsmError(f"internal assembler error: {exc.orig_exc}", file, 0, 0) from None


def _syntax_error(exc: UnexpectedInput, file: str, lines: list[str]) -> AsmError:
    line = getattr(exc, "line", 0) or 0
    col = getattr(exc, "column", 0) or 0
    if isinstance(exc, UnexpectedCharacters):
        ch = exc.char
        shown = repr(ch) if not ch.isprintable() or ch in " '" else f"'{ch}'"
        msg = f"unexpected character {shown}"
        exp = _expected_words(exc.allowed or ())
    elif isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END" or line <= 0:
            line, col = len(lines), len(lines[-1]) + 1 if lines else 1
        msg = f"unexpected {_describe(tok)}"
        exp = _expected_words(exc.expected or ())
    elif isinstance(exc, UnexpectedEOF):
        line, col = len(lines), (len(lines[-1]) + 1 if lines else 1)
        msg = "unexpected end of file"
        exp = _expected_words(exc.expected or ())
    else:  # pragma: no cover - Lark has no other UnexpectedInput kinds
        msg, exp = "syntax error", ""
    if line > len(lines):
        line = max(len(lines), 1)
        col = (len(lines[-1]) + 1) if lines else 1
    if exp:
        msg += f"; expected {exp}"
    text = lines[line - 1] if 0 < line <= len(lines) else None
    return AsmError(msg, file, line, col, text)
