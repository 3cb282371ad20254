"""Pass 0: ``.include`` files and expand macros, leaving a flat list of statements.

Expansion is bounded in depth (:data:`MAX_DEPTH` nested macro calls or include files; an
include cycle is an error) and in total: a program may expand to at most :data:`MAX_STATEMENTS` statements,
each ``.include`` and each macro call counting as one more. So an include or macro "bomb"
(each level using the one below twice, thirty levels deep) stops with a located error in
about a second instead of running forever. Each file is read and parsed once however often
it is included. The source file's own statements do not count: its size bounds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rlaccel.util.errors import AsmError
from rlaccel.util.files import read_text

from rlaccel.assembler.ast import (Arg, BinOp, Directive, Expr, InstrStmt, Label, Loc, Name, Num, Stmt, Unary, err,
                  fold)
from rlaccel.assembler.parser import parse

__all__ = ["expand", "Macro", "MAX_DEPTH", "MAX_STATEMENTS", "err"]

#: deepest nesting of macro calls, and of include files
MAX_DEPTH = 32
#: statements includes and macros may add to a program (each .include and each macro call
#: counts one more)
MAX_STATEMENTS = 500_000


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...]
    body: tuple[Stmt, ...]
    loc: Loc
    labels: frozenset[str] = frozenset()     # the labels the body defines (local to a call)


def _read_source(path: Path) -> str:
    return read_text(path, "include file", AsmError)


class _Expander:
    def __init__(self, read: Callable[[Path], str], include_paths: tuple[Path, ...]):
        self.read = read
        self.include_paths = include_paths
        self.macros: dict[str, Macro] = {}
        self.count = 0
        self.budget = MAX_STATEMENTS
        self.files: list[Path] = []
        self.shown: list[str] = []           # the same files, named as the user wrote them
        self.texts: dict[Path, str] = {}
        self.parsed: dict[tuple[Path, str], list[Stmt]] = {}
        self.resolved: dict[tuple[Path, str, str], tuple[Path, str]] = {}

    def spend(self, n: int, loc: Loc) -> None:
        self.budget -= n
        if self.budget < 0:
            raise err(loc, f".include and macros expand to more than {MAX_STATEMENTS:,} "
                           f"statements (a file or macro used over and over at every level?)")

    # -- includes ---------------------------------------------------------------------------
    def file(self, path: Path, stack: tuple[Path, ...], text: str, name: str,
             loc: Loc | None = None) -> list[Stmt]:
        key = (path, name)
        stmts = self.parsed.get(key)
        if stmts is None:
            stmts = self.parsed[key] = parse(text, name)
        if loc is not None:                  # an include: its statements count every time
            self.spend(len(stmts), loc)
        return self.statements(stmts, path, stack, name)

    def _resolve(self, target: str, here: Path, loc: Loc) -> Path:
        for base in (here.parent, *self.include_paths):
            try:
                cand = base / target
                if cand.is_file():
                    return cand.resolve()
                if target and cand.exists():
                    raise err(loc, f"include file \"{target}\" ({cand}) is not a regular file")
            except (OSError, ValueError):
                continue
        searched = ", ".join(str(p) for p in (here.parent, *self.include_paths))
        raise err(loc, f"cannot find include file \"{target}\" (searched {searched})")

    def _include(self, s: Directive, path: Path, stack: tuple[Path, ...], name: str) -> list:
        if len(s.args) != 1 or not isinstance(s.args[0].value, str):
            raise err(s.loc, ".include expects one file name in double quotes")
        self.spend(1, s.loc)
        if len(stack) > MAX_DEPTH:
            raise err(s.loc, f".include nested deeper than {MAX_DEPTH} files")
        key = (path, name, s.args[0].value)
        if key not in self.resolved:
            target = self._resolve(s.args[0].value, path, s.loc)
            shown = str(target)
            if target == (path.parent / s.args[0].value).resolve():
                shown = str(Path(name).parent / s.args[0].value)  # as the user would write it
            self.resolved[key] = target, shown
        target, shown = self.resolved[key]
        if target in stack:
            chain = " -> ".join(p.name for p in (*stack, target))
            raise err(s.loc, f".include cycle: {chain}")
        text = self.texts.get(target)
        if text is None:
            try:
                text = self.read(target)
            except OSError as exc:
                raise err(s.loc, f"cannot read include file {shown}: {exc.strerror}") from None
            except AsmError as exc:
                note = f" (included at {s.loc.file}:{s.loc.line})"
                shown_file = shown if exc.file == str(target) else exc.file
                raise AsmError(exc.message + note, shown_file, exc.line, exc.col,
                               exc.source_line) from None
            self.texts[target] = text
            self.files.append(target)
            self.shown.append(shown)
        return self.file(target, (*stack, target), text, shown, s.loc)

    def statements(self, stmts: list[Stmt], path: Path, stack: tuple[Path, ...],
                   name: str = "") -> list[Stmt]:
        out: list[Stmt] = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, Directive) and s.name == "include":
                out.extend(self._include(s, path, stack, name))
            elif isinstance(s, Directive) and s.name == "macro":
                i = self._define(stmts, i)
            elif isinstance(s, Directive) and s.name == "endm":
                raise err(s.loc, ".endm without a matching .macro")
            elif isinstance(s, InstrStmt) and s.mnemonic in self.macros:
                out.extend(self._expand(self.macros[s.mnemonic], s, 0))
            else:
                out.append(s)
            i += 1
        return out

    # -- macros -----------------------------------------------------------------------------
    def _define(self, stmts: list[Stmt], i: int) -> int:
        head = stmts[i]
        names = []
        for a in head.args:
            if a.name is not None or not isinstance(a.value, Name):
                raise err(a.loc, ".macro expects a name and then parameter names")
            names.append(a.value.id)
        if not names:
            raise err(head.loc, ".macro expects a name")
        name, params = names[0].lower(), tuple(names[1:])
        if len(set(params)) != len(params):
            raise err(head.loc, f"macro '{name}' repeats a parameter name")
        if name in self.macros:
            prev = self.macros[name].loc
            raise err(head.loc, f"macro '{name}' is already defined at {prev.file}:{prev.line}")
        body = []
        j = i + 1
        while j < len(stmts):
            s = stmts[j]
            if isinstance(s, Directive) and s.name == "endm":
                labels = frozenset(s.name for s in body if isinstance(s, Label))
                self.macros[name] = Macro(name, params, tuple(body), head.loc, labels)
                return j
            if isinstance(s, Directive) and s.name in ("macro", "include"):
                raise err(s.loc, f".{s.name} is not allowed inside macro '{name}'")
            body.append(s)
            j += 1
        raise err(head.loc, f"macro '{name}' has no .endm")

    def _expand(self, m: Macro, call: InstrStmt, depth: int) -> list[Stmt]:
        if depth >= MAX_DEPTH:
            raise err(call.loc, f"macro expansion deeper than {MAX_DEPTH} (recursive macro "
                                f"'{m.name}'?)")
        self.spend(1 + len(m.body), call.loc)
        bind: dict[str, Expr] = {}
        positional = [a for a in call.args if a.name is None]
        if len(positional) > len(m.params):
            raise err(call.loc, f"macro '{m.name}' takes {len(m.params)} argument(s) "
                                f"({', '.join(m.params) or 'none'}), got {len(positional)}")
        for p, a in zip(m.params, positional):
            bind[p] = self._arg_expr(a, m)
        for a in call.args:
            if a.name is None:
                continue
            if a.name not in m.params:
                raise err(a.loc, f"macro '{m.name}' has no parameter '{a.name}' "
                                 f"(parameters: {', '.join(m.params) or 'none'})")
            if a.name in bind:
                raise err(a.loc, f"macro '{m.name}': parameter '{a.name}' given twice")
            bind[a.name] = self._arg_expr(a, m)
        missing = [p for p in m.params if p not in bind]
        if missing:
            raise err(call.loc, f"macro '{m.name}' needs argument(s) {', '.join(missing)}")
        self.count += 1
        suffix = f"${self.count}"
        local = m.labels
        via = (f"macro {m.name} expanded at {call.loc.file}:{call.loc.line}", *call.loc.via)
        out: list[Stmt] = []
        for s in m.body:
            s = _substitute(s, bind, {n: n + suffix for n in local}, via)
            if isinstance(s, InstrStmt) and s.mnemonic in self.macros:
                out.extend(self._expand(self.macros[s.mnemonic], s, depth + 1))
            else:
                out.append(s)
        return out

    @staticmethod
    def _arg_expr(a: Arg, m: Macro) -> Expr:
        if isinstance(a.value, str):
            raise err(a.loc, f"macro '{m.name}' arguments are expressions, not strings")
        return a.value


def _substitute(s: Stmt, bind: dict[str, Expr], labels: dict[str, str],
                via: tuple[str, ...]) -> Stmt:
    def loc(l: Loc) -> Loc:
        return Loc(l.file, l.line, l.col, l.text, via)

    def leaf(e):
        if isinstance(e, Name):
            if e.id in bind:
                return bind[e.id]
            return Name(labels.get(e.id, e.id), loc(e.loc), e.quoted)
        return Num(e.value, loc(e.loc))

    def expr(e: Expr) -> Expr:
        return fold(e, leaf, lambda u, x: Unary(u.op, x, loc(u.loc)),
                    lambda b, x, y: BinOp(b.op, x, y, loc(b.loc)))

    def arg(a: Arg) -> Arg:
        return Arg(a.name, a.value if isinstance(a.value, str) else expr(a.value), loc(a.loc))

    if isinstance(s, Label):
        return Label(labels.get(s.name, s.name), loc(s.loc), s.quoted)
    if isinstance(s, Directive):
        return Directive(s.name, tuple(arg(a) for a in s.args), loc(s.loc))
    return InstrStmt(s.mnemonic, tuple(arg(a) for a in s.args), loc(s.loc))


def expand(text: str, file: str = "<input>", include_paths: tuple = (),
           read: Callable[[Path], str] | None = None) -> tuple[list[Stmt], list[Path]]:
    """Parse ``text`` and return (flat statements, files read through .include)."""
    stmts, included, _, _ = expand_with_texts(text, file, include_paths, read)
    return stmts, included


def expand_with_texts(text: str, file: str = "<input>", include_paths: tuple = (),
                      read: Callable[[Path], str] | None = None
                      ) -> tuple[list[Stmt], list[Path], dict[Path, str], list[str]]:
    """:func:`expand`, the text of every included file as it was read, and the included
    files' names as the user wrote them."""
    path = Path(file) if file != "<input>" else Path.cwd() / "<input>"
    ex = _Expander(read or _read_source, tuple(Path(p) for p in include_paths))
    try:
        here = path.resolve() if path.exists() else path
    except (OSError, ValueError):
        here = path
    stmts = ex.file(path, (here,), text, file)
    return stmts, ex.files, ex.texts, ex.shown
