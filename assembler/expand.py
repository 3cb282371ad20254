"""Pass 0: ``.include`` files and expand macros, leaving a flat list of statements."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from isa.errors import AsmError

from .ast import Arg, BinOp, Directive, Expr, InstrStmt, Label, Loc, Name, Stmt, Unary
from .parser import parse

__all__ = ["expand", "Macro", "MAX_DEPTH"]

MAX_DEPTH = 32


def err(loc: Loc, message: str) -> AsmError:
    """A located assembler error (the note says which macro expansion it came from)."""
    if loc.via:
        message += f" (in {loc.via})"
    return AsmError(message, loc.file, loc.line, loc.col, loc.text or None)


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...]
    body: tuple[Stmt, ...]
    loc: Loc


class _Expander:
    def __init__(self, read: Callable[[Path], str], include_paths: tuple[Path, ...]):
        self.read = read
        self.include_paths = include_paths
        self.macros: dict[str, Macro] = {}
        self.count = 0
        self.files: list[Path] = []

    # -- includes ---------------------------------------------------------------------------
    def file(self, path: Path, stack: tuple[Path, ...], text: str | None = None,
             name: str | None = None) -> list[Stmt]:
        if text is None:
            text = self.read(path)
            self.files.append(path)
        name = name or str(path)
        return self.statements(parse(text, name), path, stack, name)

    def _resolve(self, target: str, here: Path, loc: Loc) -> Path:
        for base in (here.parent, *self.include_paths):
            cand = (base / target)
            if cand.is_file():
                return cand.resolve()
        searched = ", ".join(str(p) for p in (here.parent, *self.include_paths))
        raise err(loc, f"cannot find include file \"{target}\" (searched {searched})")

    def statements(self, stmts: list[Stmt], path: Path, stack: tuple[Path, ...],
                   name: str = "") -> list[Stmt]:
        out: list[Stmt] = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if isinstance(s, Directive) and s.name == "include":
                if len(s.args) != 1 or not isinstance(s.args[0].value, str):
                    raise err(s.loc, ".include expects one file name in double quotes")
                target = self._resolve(s.args[0].value, path, s.loc)
                if target in stack:
                    chain = " -> ".join(p.name for p in (*stack, target))
                    raise err(s.loc, f".include cycle: {chain}")
                try:
                    text = self.read(target)
                except OSError as exc:
                    raise err(s.loc, f"cannot read include file {target}: {exc.strerror}")
                self.files.append(target)
                shown = str(target)
                if target == (path.parent / s.args[0].value).resolve():
                    shown = str(Path(name).parent / s.args[0].value)  # as the user would write it
                out.extend(self.file(target, (*stack, target), text, shown))
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
                self.macros[name] = Macro(name, params, tuple(body), head.loc)
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
        local = {s.name for s in m.body if isinstance(s, Label)}
        via = f"macro {m.name} expanded at {call.loc.file}:{call.loc.line}"
        if call.loc.via:
            via += f", {call.loc.via}"
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


def _substitute(s: Stmt, bind: dict[str, Expr], labels: dict[str, str], via: str) -> Stmt:
    def loc(l: Loc) -> Loc:
        return replace(l, via=via)

    def expr(e: Expr) -> Expr:
        if isinstance(e, Name):
            if e.id in bind:
                return bind[e.id]
            return Name(labels.get(e.id, e.id), loc(e.loc))
        if isinstance(e, BinOp):
            return BinOp(e.op, expr(e.left), expr(e.right), loc(e.loc))
        if isinstance(e, Unary):
            return Unary(e.op, expr(e.operand), loc(e.loc))
        return replace(e, loc=loc(e.loc))

    def arg(a: Arg) -> Arg:
        return Arg(a.name, a.value if isinstance(a.value, str) else expr(a.value), loc(a.loc))

    if isinstance(s, Label):
        return Label(labels.get(s.name, s.name), loc(s.loc))
    if isinstance(s, Directive):
        return Directive(s.name, tuple(arg(a) for a in s.args), loc(s.loc))
    return InstrStmt(s.mnemonic, tuple(arg(a) for a in s.args), loc(s.loc))


def expand(text: str, file: str = "<input>", include_paths: tuple = (),
           read: Callable[[Path], str] | None = None) -> tuple[list[Stmt], list[Path]]:
    """Parse ``text`` and return (flat statements, files read through .include)."""
    reader = read or (lambda p: Path(p).read_text())
    path = Path(file) if file != "<input>" else Path.cwd() / "<input>"
    ex = _Expander(reader, tuple(Path(p) for p in include_paths))
    stmts = ex.file(path, (path.resolve() if path.exists() else path,), text, file)
    return stmts, ex.files
