"""One program assembled under many sets of defines, each derived from one tracked assembly.

    variants = Variants()
    asm = variants(path, arch=arch, defines={"SEED": 7, ...})   # as assemble_file(...)

The first assembly of a source (per architecture and set of define *names*) runs the whole
assembler with dependency tracking (:class:`~.assemble._Assembler` with ``track``): every
value it evaluates records the defines it reads, through the constants (``.equ``,
``.default``) that read them. A later call whose defines differ only in values that neither
the layout (``.org``, the word counts of ``.zero``/``.values``/``.rand``) nor an instruction
operand reads -- a batch's or a sweep's seeds, which only reach the ``.rand`` seeds of the
initial weights -- is derived from it: the constants that read a changed define are
evaluated again, in source order, the data items that read one are generated again by the
assembler's own :meth:`~.assemble._Assembler._data_values` (the same generator, the same
quantizing), and the images, symbol table and source metadata are rebuilt; everything else
is the first assembly's. Any other call, and any derivation that meets an error, is a full
assembly (:func:`~.assemble.assemble_file`), so a derived binary is always the one a full
assembly gives, bit for bit (``tests/assembler/test_variants.py``). The sources are read
once, by the first assembly: a Variants serves one batch or sweep, not files edited meanwhile.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import AsmError
from rlaccel.util.files import read_text

from rlaccel.assembler.assemble import (Assembly, _assemble, _no_cycle_collection, assemble_file, binary_symbol,
                       check_define, symbol_table)
from rlaccel.assembler.evaluate import Evaluator, Sym, check_constant

__all__ = ["Variants"]


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


class _Template:
    """A tracked assembly and what deriving from it needs."""

    def __init__(self, asm: Assembly, a, meta: dict, defines: dict, arch):
        self.asm, self.a, self.meta, self.defines = asm, a, meta, dict(defines)
        self.arch = arch                     # held, so that the key's id(arch) stays its own

    def derive(self, defines: dict) -> Assembly | None:
        """The assembly under ``defines`` (same names as the template's), or None when a
        changed define reaches the layout or the code."""
        base, a = self.defines, self.a
        changed = {k for k in defines if not _same(defines[k], base[k])}
        if not changed:
            return self._copy(self.asm.binary)
        if changed & a.fixed:
            return None
        for k in changed:
            check_define(k, defines[k])
        syms = dict(a.syms)
        for k in changed:
            syms[k] = Sym(k, "const", defines[k], syms[k].loc)
        ev = Evaluator(syms)
        renamed = set(changed)
        for name, expr, directive in a.equs:
            if a.deps[name] & changed:
                renamed.add(name)
                v = ev.value(expr, allow_float=True, forward=False, what=f".{directive}")
                old = syms[name]
                syms[name] = Sym(name, "const", check_constant(v, expr.loc, name), old.loc,
                                 old.length)
        x = copy.copy(a)
        x.track, x.syms, x.value = False, syms, ev.value
        arch = self.asm.arch
        dt = get_dtype(arch.knobs.dtype)
        raws = {space: raw.copy() for space, raw in a.raws.items()}
        for item, deps in a.item_deps:
            if deps & changed:
                raws[item.space][item.addr:item.addr + item.words] = x._data_values(item, dt)
        kept = [y for y in self.asm.binary.symbols if y.name not in renamed]
        symbols = symbol_table(kept + [y for y in map(binary_symbol, (syms[k] for k in renamed))
                                       if y is not None])
        meta = {**self.meta, "defines": {k: defines[k] for k in sorted(defines)}} \
            if defines else self.meta
        binary = dataclasses.replace(self.asm.binary, data=dt.to_bytes(raws["data"]),
                                     synapse=dt.to_bytes(raws["synapse"]),
                                     symbols=symbols, source=meta)
        return self._copy(binary)

    def _copy(self, binary) -> Assembly:
        """The template's assembly with ``binary``, its lists its own."""
        return dataclasses.replace(self.asm, binary=binary,
                                   instructions=list(self.asm.instructions),
                                   locs=list(self.asm.locs),
                                   data_lines=list(self.asm.data_lines))


class Variants:
    """:func:`~.assemble.assemble_file` for many defines of the same sources (module
    docstring). ``derived`` and ``full`` count the assemblies of each kind."""

    def __init__(self):
        self._templates: dict[tuple, _Template] = {}
        self.derived = 0
        self.full = 0

    def __call__(self, path: str | Path, arch: Arch | str | None = None,
                 include_paths: tuple = (), defines: dict | None = None) -> Assembly:
        defines = dict(defines or {})
        the_arch = load_arch(arch) if isinstance(arch, str) else arch
        key = (str(path), id(the_arch), tuple(map(str, include_paths)),
               tuple(sorted(defines)))
        t = self._templates.get(key)
        if t is not None:
            try:
                with _no_cycle_collection():
                    asm = t.derive(defines)
            except AsmError:
                asm = None                   # a full assembly says what is wrong, and where
            if asm is not None:
                self.derived += 1
                return asm
        self.full += 1
        if t is not None:
            return assemble_file(path, the_arch, include_paths, defines)
        text = read_text(path, "source file", AsmError)
        tracked: list = []
        with _no_cycle_collection():
            asm = _assemble(text, str(path), the_arch, include_paths, defines, None, tracked)
        self._templates[key] = _Template(asm, tracked[0], tracked[1], defines, the_arch)
        return asm
