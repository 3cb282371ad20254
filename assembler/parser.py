"""Source text -> list of statements (Lark LALR, building the AST of :mod:`.ast` as it parses).

Every Lark error becomes an :class:`~rlaccel.util.errors.AsmError` located at ``file:line:col`` with
the source line, a caret and what was expected, in words.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from rlaccel.util.errors import AsmError

from rlaccel.assembler.ast import Arg, BinOp, Directive, InstrStmt, Label, Loc, Name, Num, Stmt, Unary, err
from rlaccel.assembler.evaluate import MAX_INT_BITS, check_float

__all__ = ["parse", "is_plain_name"]

_GRAMMAR = Path(__file__).with_name("grammar.lark")

#: terminal names -> words for error messages
_WORDS = {
    "NAME": "a name", "INT": "a number", "HEX": "a number", "BIN": "a number",
    "FLOAT": "a number", "LABEL": "a label", "STRING": "a string", "DIRECTIVE": "a directive",
    "_NL": "end of line", "$END": "end of file", "MACRO": "a directive", "COMMA": "','", "COLON": "':'",
    "EQUAL": "'='", "LPAR": "'('", "RPAR": "')'", "PLUS": "'+'", "MINUS": "'-'",
    "STAR": "'*'", "SLASH": "'/'", "PERCENT": "'%'", "VBAR": "'|'", "AMPERSAND": "'&'",
    "CIRCUMFLEX": "'^'", "TILDE": "'~'", "LSHIFT": "'<<'", "RSHIFT": "'>>'",
    "NEG": "'-'", "INV": "'~'",
    "__ANON_0": "'<<'", "__ANON_1": "'>>'",
}


@lru_cache(maxsize=1)
def _parser() -> tuple[Lark, "_ToAst"]:
    builder = _ToAst()
    return Lark(_GRAMMAR.read_text(), parser="lalr", start="program", transformer=builder,
                maybe_placeholders=False), builder


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


def is_plain_name(text: str) -> bool:
    """Whether ``text`` is a name as written without backquotes (the grammar's NAME)."""
    return not text.startswith("`") and _name_pattern().fullmatch(text) is not None


@lru_cache(maxsize=1)
def _name_pattern() -> re.Pattern:
    return re.compile(_parser()[0].get_terminal("NAME").pattern.to_regexp())


def _unquote(text: str) -> tuple[str, bool]:
    """A NAME or LABEL token's name, and whether it was written in backquotes."""
    if text.startswith("`"):
        return _UNESCAPE.sub(r"\1", text[1:-1]), True
    return text, False


_UNESCAPE = re.compile(r"\\([`\\])")


class _ToAst(Transformer):
    """Builds the AST while the LALR parser reduces (Lark's tree-less mode: no parse tree is
    built and nothing recurses, however deep an expression is). Locations come from the
    tokens; any rule not handled here is a bug and raises."""

    def __init__(self):
        super().__init__()
        self.file = "<input>"
        self.lines: list[str] = []

    def _loc(self, tok: Token) -> Loc:
        line = getattr(tok, "line", 0) or 0
        col = getattr(tok, "column", 0) or 0
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Loc(self.file, line, col, text)

    def __default__(self, data, children, meta):
        if data.startswith("_"):          # an inlined rule: its parent takes the children
            return Tree(data, children)
        raise NotImplementedError(f"assembler grammar rule '{data}' has no transformer")

    def program(self, items):
        out: list[Stmt] = []
        for item in items:
            if isinstance(item, list):
                out.extend(item)
            else:
                out.append(item)
        return out

    def label(self, children):
        name, quoted = _unquote(str(children[0]).rstrip(" \t:"))
        return Label(name, self._loc(children[0]), quoted)

    def directive(self, children):
        tok = children[0]
        args = children[1] if len(children) > 1 else ()
        return Directive(str(tok)[1:].lower(), tuple(args), self._loc(tok))

    def directive_head(self, children):
        tok, name, args = children
        text, quoted = _unquote(str(name))
        head = Arg(None, Name(text, self._loc(name), quoted), self._loc(name))
        return Directive(str(tok)[1:].lower(), (head, *args), self._loc(tok))

    def instruction(self, children):
        tok = children[0]
        args = children[1] if len(children) > 1 else ()
        return InstrStmt(str(tok).lower(), tuple(args), self._loc(tok))

    def args(self, children):
        return tuple(children)

    def named(self, children):
        tok, value = children
        return Arg(_unquote(str(tok))[0], value, self._loc(tok))

    def positional(self, children):
        return Arg(None, children[0], children[0].loc)

    def string(self, children):
        return Arg(None, str(children[0])[1:-1], self._loc(children[0]))

    def _int(self, tok: Token, base: int, prefix: int) -> Num:
        digits = str(tok)[prefix:].replace("_", "").lstrip("0")
        if len(digits) > _MAX_DIGITS[base]:
            raise self._too_large(tok)
        value = int(digits or "0", base)
        if value.bit_length() > MAX_INT_BITS:
            raise self._too_large(tok)
        return Num(value, self._loc(tok))

    def _too_large(self, tok: Token) -> AsmError:
        return err(self._loc(tok), f"number too large: integers in expressions are at most "
                                   f"{MAX_INT_BITS} bits")

    def int(self, children):
        return self._int(children[0], 10, 0)

    def hex(self, children):
        return self._int(children[0], 16, 2)

    def bin(self, children):
        return self._int(children[0], 2, 2)

    def float(self, children):
        tok = children[0]
        return Num(check_float(float(str(tok)), self._loc(tok)), self._loc(tok))

    def name(self, children):
        text, quoted = _unquote(str(children[0]))
        return Name(text, self._loc(children[0]), quoted)

    def _bin(op):  # noqa: N805 - a factory used in the class body
        def rule(self, children):
            left, right = children
            return BinOp(op, left, right, left.loc)
        return rule

    bor, bxor, band = _bin("|"), _bin("^"), _bin("&")
    shl, shr = _bin("<<"), _bin(">>")
    add, sub, mul, div, mod = _bin("+"), _bin("-"), _bin("*"), _bin("/"), _bin("%")

    def neg(self, children):
        return Unary("-", children[1], self._loc(children[0]))

    def inv(self, children):
        return Unary("~", children[1], self._loc(children[0]))

    del _bin


#: most significant digits of a literal of MAX_INT_BITS bits, per base
_MAX_DIGITS = {2: MAX_INT_BITS, 10: len(str(1 << MAX_INT_BITS)), 16: MAX_INT_BITS // 4}
_LOCK = threading.Lock()
_SHOWN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


#: parsed sources by (text, file name): the statements are immutable, so a program assembled
#: again (every seed of a batch or a sweep, whose ``.rand`` words differ) is parsed once
_PARSED: dict[tuple[str, str], tuple[Stmt, ...]] = {}
_PARSED_MAX = 64


def parse(text: str, file: str = "<input>") -> list[Stmt]:
    """Parse assembly source into statements; syntax errors raise a located AsmError. The
    same text under the same name is parsed once per process."""
    key = (text, file)
    hit = _PARSED.get(key)
    if hit is None:
        hit = tuple(_parse(text, file))
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.pop(next(iter(_PARSED)), None)
        _PARSED[key] = hit
    return list(hit)


def _parse(text: str, file: str) -> list[Stmt]:
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise AsmError("NUL character in source (is this a binary file?)", file, line, 1)
    # the lines as the lexer counts them, shown with control characters as U+FFFD
    lines = [_SHOWN.sub("\ufffd", line.rstrip("\r")) for line in text.split("\n")]
    if lines[-1] == "":
        lines.pop()
    if not text.endswith("\n"):
        text += "\n"
    parser, builder = _parser()
    with _LOCK:                      # the builder holds the file being parsed
        builder.file, builder.lines = file, lines
        try:
            return parser.parse(text)
        except UnexpectedInput as exc:
            raise _syntax_error(exc, file, lines) from None
        except NotImplementedError as exc:   # a rule without a transformer: a bug, located
            raise AsmError(f"internal assembler error: {exc}", file, 0, 0) from None
        finally:
            builder.lines = []


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
