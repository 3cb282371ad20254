"""Passes 1 and 2: symbols and layout, then encoding through the ISA table.

``assemble(text)`` -> :class:`Assembly` (the :class:`~assembler.rlb.Binary`, the decoded
instructions and a listing). Every problem raises a located :class:`~rlaccel.util.errors.AsmError`.
"""

from __future__ import annotations

import gc
import hashlib
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path

import numpy as np

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import Encoding, Instruction, encoding_for, kind_words
from rlaccel.util.errors import ArchError, AsmError, DTypeError, EncodeError, did_you_mean
from rlaccel.isa.immediate import imm_from_value
from rlaccel.isa.table import ENUMS, TABLE
from rlaccel.util.files import read_text

from rlaccel.util.version import VERSION
from rlaccel.assembler.ast import Arg, BinOp, Directive, InstrStmt, Label, Loc, Name, Stmt, Unary, err, fold
from rlaccel.assembler.evaluate import (CONST_MAX, CONST_MIN, SECTION_SPACE, Evaluator, Sym, check_constant,
                       space_of_kind)
from rlaccel.assembler.expand import expand_with_texts
from rlaccel.assembler.rlb import Binary, Symbol

__all__ = ["assemble", "assemble_file", "Assembly", "DIRECTIVES"]

DIRECTIVES = ("arch", "equ", "default", "text", "data", "synapse", "org", "zero", "values", "rand",
              "include", "macro", "endm")
_SECTIONS = {"text": "text", "data": "data", "synapse": "synapse"}
_MEMORY = {"data": "unified", "synapse": "synapse"}


@dataclass
class _DataItem:
    space: str
    addr: int
    directive: Directive
    words: int


@dataclass
class Assembly:
    """What assembling produced: the binary, the instructions and a listing."""

    binary: Binary
    arch: Arch
    encoding: Encoding
    instructions: list[Instruction]
    locs: list[Loc]
    data_lines: list[tuple[str, int, int, Loc]] = field(default_factory=list)
    #: the files read, named as the user wrote them: the source (when it was a file) and
    #: every include, in reading order
    inputs: tuple[str, ...] = ()
    #: the source's ``.arch NAME`` and where it is (None without one)
    source_arch: tuple[str, Loc] | None = None

    def listing(self) -> str:
        """Address, hex word and source line of every instruction and data directive."""
        enc = self.encoding
        digits = (enc.instr_bits + 3) // 4
        out = [f"; rlaccel listing: arch {self.arch.name}, {enc.instr_bits}-bit instructions, "
               f"{len(self.instructions)} of {enc.imem_capacity} instruction slots"]
        words = enc.from_bytes(self.binary.text)
        for pc, (w, loc) in enumerate(zip(words, self.locs)):
            out.append(f"{pc:5d}  {w:0{digits}x}  {loc.file}:{loc.line}  {loc.text.strip()}")
        for space, addr, n, loc in self.data_lines:
            out.append(f"{space[:3]}:{addr:<5d} {n:4d}w  {loc.file}:{loc.line}  "
                       f"{loc.text.strip()}")
        return "\n".join(out) + "\n"


def check_define(name, value) -> None:
    """A define (``-D NAME=VALUE``) must be a finite number; an integer a signed 64-bit one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AsmError(f"define {name}={value!r}: the value must be a number",
                       "<defines>", 0, 0)
    if isinstance(value, float) and not math.isfinite(value):
        raise AsmError(f"define {name}={value!r}: the value must be a finite number",
                       "<defines>", 0, 0)
    if isinstance(value, int) and not CONST_MIN <= value <= CONST_MAX:
        raise AsmError(f"define {name}={value}: the value does not fit a constant (a "
                       f"signed 64-bit integer)", "<defines>", 0, 0)


class _Assembler:
    """``track``: record which defines each value depends on (:mod:`.variants`): ``deps``
    (symbol -> the defines its value reads, through constants), ``fixed`` (the defines the
    layout and the instructions read), ``equs`` (the constants in source order, with their
    expressions), ``item_deps`` (per data item, the defines its words read) and ``raws`` (the
    images' words before packing)."""

    def __init__(self, stmts: list[Stmt], arch_override: Arch | str | None,
                 defines: dict | None = None, track: bool = False):
        self.stmts = stmts
        self.arch_override = arch_override
        self.syms: dict[str, Sym] = {}
        self.track = track
        if track:
            self._ev = Evaluator(self.syms)
            self._ev.reads = set()
            self.value = self._tracked_value
            self.deps: dict[str, frozenset] = {}
            self.fixed: set[str] = set()
            self._sink = self.fixed
            self.equs: list[tuple[str, object, str]] = []
            self.item_deps: list[tuple[_DataItem, frozenset]] = []
            self.raws: dict[str, np.ndarray] = {}
        else:
            self.value = Evaluator(self.syms).value
        for name, value in (defines or {}).items():
            loc = Loc("<defines>", 0, 0)
            check_define(name, value)
            self.define(str(name), "const", value, loc)
            if track:
                self.deps[str(name)] = frozenset((str(name),))
        self.arch_name: tuple[str, Loc] | None = None

    @contextmanager
    def _reads(self):
        """The defines the values evaluated inside read go to the yielded set, not to the
        enclosing one (``fixed`` outside any)."""
        deps, outer = set(), self._sink
        self._sink = deps
        try:
            yield deps
        finally:
            self._sink = outer

    def _tracked_value(self, e, **kw):
        reads = self._ev.reads
        reads.clear()
        v = self._ev.value(e, **kw)
        for name in reads:
            self._sink.update(self.deps.get(name, ()))
        return v

    def define(self, name: str, space: str, value, loc: Loc, quoted: bool = False) -> Sym:
        if name in self.syms:
            prev = self.syms[name].loc
            raise err(loc, f"'{name}' is already defined at {prev.file}:{prev.line}")
        if name in TABLE and not quoted:
            raise err(loc, f"'{name}' is an instruction mnemonic and cannot be a symbol "
                           f"(write `{name}` to use it as one)")
        if not name or not name.isprintable() or any(c.isspace() for c in name) or \
                len(name.encode("utf-8", "surrogatepass")) > 0xFFFF:
            raise err(loc, f"symbol name {name!r} must be printable, without blanks, and at "
                           f"most 65535 bytes")
        s = Sym(name, space, value, loc)
        self.syms[name] = s
        return s

    # -- pass 1: symbols and layout ---------------------------------------------------------
    def pass1(self) -> None:
        section = "text"
        counters = {"text": 0, "data": 0, "synapse": 0}
        high = dict(counters)
        open_labels: list[_Sym] = []
        after_label = False
        self.instrs: list[InstrStmt] = []
        self.data: list[_DataItem] = []
        for s in self.stmts:
            if isinstance(s, Label):
                if not after_label:
                    open_labels = []
                sym = self.define(s.name, section, counters[section], s.loc, s.quoted)
                if section != "text":
                    open_labels.append(sym)
                after_label = True
                continue
            after_label = False
            if isinstance(s, InstrStmt):
                if section != "text":
                    raise err(s.loc, f"instruction '{s.mnemonic}' in the .{section} section; "
                                     f"instructions belong after .text")
                self.instrs.append(s)
                counters["text"] += 1
                continue
            d = s
            name = d.name
            if name in _SECTIONS:
                self._no_args(d)
                section = _SECTIONS[name]
                open_labels = []
            elif name == "arch":
                self._arch(d)
            elif name in ("equ", "default"):
                self._equ(d)
            elif name == "org":
                if section == "text":
                    raise err(d.loc, ".org is for the .data and .synapse sections")
                (a,) = self._args(d, 1, "an address")
                addr = self.value(a.value, forward=False, space=SECTION_SPACE[section],
                                  what=".org")
                if addr < 0:
                    raise err(a.loc, f".org address must not be negative, not {addr}")
                counters[section] = addr
                open_labels = []
            elif name in ("zero", "values", "rand"):
                if section == "text":
                    raise err(d.loc, f".{name} puts data in memory: use it after .data or "
                                     f".synapse, not in .text")
                n = self._data_words(d)
                self.data.append(_DataItem(section, counters[section], d, n))
                counters[section] += n
                high[section] = max(high[section], counters[section])
                for sym in open_labels:
                    sym.length += n
            else:
                extra = did_you_mean(name, DIRECTIVES, ".")
                raise err(d.loc, f"unknown directive '.{name}'{extra}; directives are "
                                 f"{', '.join('.' + x for x in DIRECTIVES)}")
        self.counters = high

    def _no_args(self, d: Directive) -> None:
        if d.args:
            raise err(d.args[0].loc, f".{d.name} takes no arguments")

    def _args(self, d: Directive, n: int, what: str) -> tuple[Arg, ...]:
        if len(d.args) != n:
            raise err(d.loc, f".{d.name} expects {what} ({n} argument{'s' if n > 1 else ''}), "
                             f"got {len(d.args)}")
        for a in d.args:
            if a.name is not None:
                raise err(a.loc, f".{d.name} takes no named arguments")
            if isinstance(a.value, str):
                raise err(a.loc, f".{d.name} expects {what}, not a string")
        return d.args

    def _arch(self, d: Directive) -> None:
        args = d.args
        if len(args) == 2 and isinstance(args[1].value, Unary) and args[1].value.op == "-":
            # ".arch adhdp-f64" can parse as a name followed by the argument "-f64"
            v = args[0].value
            args = (Arg(None, BinOp("-", v, args[1].value.operand, args[0].loc), args[0].loc),)
        if len(args) != 1 or args[0].name is not None:
            raise err(d.loc, ".arch expects one architecture name")
        v = args[0].value
        name = v if isinstance(v, str) else _dashed_name(v)
        if not name:
            raise err(d.args[0].loc, ".arch expects an architecture name")
        if self.arch_name and self.arch_name[0] != name:
            prev = self.arch_name[1]
            raise err(d.loc, f".arch {name} contradicts .arch {self.arch_name[0]} at "
                             f"{prev.file}:{prev.line}")
        if self.instrs or self.data:
            raise err(d.loc, ".arch must come before any instruction or data")
        self.arch_name = (name, d.loc)

    def _equ(self, d: Directive) -> None:
        quoted = False
        if len(d.args) == 1 and d.args[0].name is not None:
            name, expr, loc = d.args[0].name, d.args[0].value, d.args[0].loc
        elif len(d.args) == 2 and isinstance(d.args[0].value, Name) and d.args[0].name is None:
            name, expr, loc = d.args[0].value.id, d.args[1].value, d.args[0].loc
            quoted = d.args[0].value.quoted
        else:
            raise err(d.loc, f".{d.name} expects a name and a value: .{d.name} NAME, expression")
        if isinstance(expr, str):
            raise err(d.args[-1].loc, f".{d.name} values are numbers, not strings")
        if d.name == "default" and name in self.syms:
            return  # already given (by a -D define or earlier in the source)
        if self.track:
            with self._reads() as deps:
                v = self.value(expr, allow_float=True, forward=False, what=f".{d.name}")
            self.deps[name] = frozenset(deps)
            self.equs.append((name, expr, d.name))
        else:
            v = self.value(expr, allow_float=True, forward=False, what=f".{d.name}")
        self.define(name, "const", check_constant(v, expr.loc, name), loc, quoted)

    def _data_words(self, d: Directive) -> int:
        if d.name == "zero":
            (a,) = self._args(d, 1, "a word count")
            n = self.value(a.value, forward=False, what=".zero")
            if n < 0:
                raise err(a.loc, f".zero count must not be negative, not {n}")
            return n
        if d.name == "values":
            if not d.args:
                raise err(d.loc, ".values expects at least one value")
            for a in d.args:
                if a.name is not None or isinstance(a.value, str):
                    raise err(a.loc, ".values expects numbers")
            return len(d.args)
        a = self._args(d, 4, "count, low, high, seed")
        n = self.value(a[0].value, forward=False, what=".rand")
        if n < 0:
            raise err(a[0].loc, f".rand count must not be negative, not {n}")
        return n

    # -- pass 2: encode ---------------------------------------------------------------------
    def resolve_arch(self) -> Arch:
        if self.arch_override is not None:
            return (self.arch_override if isinstance(self.arch_override, Arch)
                    else load_arch(self.arch_override))
        if self.arch_name is None:
            loc = self.instrs[0].loc if self.instrs else self.data[0].directive.loc
            raise err(loc, "no architecture: add '.arch NAME' before the first instruction "
                           "or pass --arch NAME")
        name, loc = self.arch_name
        try:
            return load_arch(name)
        except ArchError as exc:
            raise err(loc, str(exc)) from None

    def pass2(self, arch: Arch) -> tuple[list[Instruction], list[int]]:
        enc = encoding_for(arch)
        self.enc = enc
        n = len(self.instrs)
        if n > enc.imem_capacity:
            loc = self.instrs[enc.imem_capacity].loc
            raise err(loc, f"program does not fit: {n} instructions of {enc.instr_bits} bits "
                           f"({(n * enc.instr_bits + 7) // 8} bytes); the instruction memory of "
                           f"'{arch.name}' ({arch.knobs.imem_bytes} bytes) holds "
                           f"{enc.imem_capacity}")
        dt = get_dtype(arch.knobs.dtype)
        out, words = [], []
        for s in self.instrs:
            ins = self._instruction(s, enc, dt, n)
            out.append(ins)
            words.append(enc.encode(ins))
        return out, words

    def _instruction(self, s: InstrStmt, enc: Encoding, dt, n_instr: int) -> Instruction:
        if s.mnemonic not in TABLE:
            hint = get_close_matches(s.mnemonic, list(enc.ops), n=1)
            extra = f"; did you mean '{hint[0]}'?" if hint else ""
            raise err(s.loc, f"unknown instruction '{s.mnemonic}'{extra}")
        try:
            d = enc.opdef(s.mnemonic)
        except EncodeError as exc:
            raise err(s.loc, str(exc)) from None
        given: dict[str, Arg] = {}
        positional = [a for a in s.args if a.name is None]
        if len(positional) > len(d.operands):
            a = positional[len(d.operands)]
            raise err(a.loc, f"{d.mnemonic} takes {len(d.operands)} operand(s) "
                             f"({', '.join(d.operands) or 'none'}), got {len(positional)}")
        for name, a in zip(d.operands, positional):
            given[name] = a
        for a in s.args:
            if a.name is None:
                continue
            if a.name not in d.operands:
                extra = did_you_mean(a.name, d.operands)
                raise err(a.loc, f"{d.mnemonic} has no operand '{a.name}'{extra}; operands: "
                                 f"{', '.join(d.operands) or 'none'}")
            if a.name in given:
                raise err(a.loc, f"{d.mnemonic}: operand '{a.name}' given twice")
            given[a.name] = a
        ops: dict[str, int] = {}
        for name in d.operands:
            if name not in given:
                if name in d.defaults:
                    continue
                raise err(s.loc, f"{d.mnemonic} needs operand '{name}'; operands: "
                                 f"{_operand_help(d)}")
            a = given[name]
            kind = d.kind(name)
            if isinstance(a.value, str):
                raise err(a.loc, f"{d.mnemonic}: {name} expects a value, not a string")
            if kind in ENUMS and isinstance(a.value, Name) and a.value.id in ENUMS[kind]:
                ops[name] = ENUMS[kind].index(a.value.id)
                continue
            if kind in ENUMS and isinstance(a.value, Name) and a.value.id not in self.syms:
                raise err(a.value.loc, f"{d.mnemonic}: {name} must be one of "
                                       f"{', '.join(ENUMS[kind])}, not '{a.value.id}'")
            v = self.value(a.value, allow_float=(kind == "word"), space=space_of_kind(kind),
                           what=f"{d.mnemonic}: {name}")
            if kind == "word":
                try:
                    v = imm_from_value(dt, v)
                except DTypeError as exc:
                    raise err(a.loc, f"{d.mnemonic}: {name}: {exc}") from None
            lo, hi = enc.field_range(kind)
            if kind == "pc":
                hi = min(hi, n_instr - 1)
            if not lo <= v <= hi:
                raise err(a.loc, self._range_message(d.mnemonic, name, kind, v, lo, hi, enc))
            ops[name] = v
        try:
            ins = enc.complete(Instruction(d.mnemonic, ops))
        except EncodeError as exc:
            raise err(s.loc, str(exc)) from None
        for name, rw, addr, words in enc.extents(ins):
            space = enc.space_of(d.mnemonic, name)
            size = arch_memory(enc.arch, space)
            if addr + words > size:
                where = given.get(name)
                loc = where.loc if where else s.loc
                raise err(loc, f"{d.mnemonic}: {name}={addr} spans {words} word(s) "
                               f"({addr}..{addr + words - 1}) but {space} memory has {size} "
                               f"words on '{enc.arch.name}'")
        return ins

    @staticmethod
    def _range_message(mn, name, kind, v, lo, hi, enc) -> str:
        if kind == "pc":
            return f"{mn}: {name}={v} is not an instruction of this program (0..{hi})"
        return (f"{mn}: {name}={v} does not fit: {kind_words(kind)} on '{enc.arch.name}' must "
                f"be {lo}..{hi} ({enc.field_width(kind)}-bit field)")

    def images(self, arch: Arch) -> tuple[bytes, bytes, list]:
        """The data and synapse images; a word initialised twice is an error (a ``.zero``
        counts as initialising its words for the directives after it)."""
        dt = get_dtype(arch.knobs.dtype)
        lines = []
        for item in self.data:
            d = item.directive
            size = arch_memory(arch, _MEMORY[item.space])
            if item.addr + item.words > size:
                raise err(d.loc, f".{d.name} of {item.words} word(s) at {item.addr} runs past the "
                                 f"end of {_MEMORY[item.space]} memory ({size} words on "
                                 f"'{arch.name}')")
        out = []
        for space in ("data", "synapse"):
            items = [i for i in self.data if i.space == space]
            length = max([self.counters[space]] + [i.addr + i.words for i in items])
            raw = np.zeros(length, dtype=dt.storage)
            done = np.zeros(length, dtype=bool)
            for item in items:
                d, a, n = item.directive, item.addr, item.words
                if d.name != "zero":
                    taken = np.flatnonzero(done[a:a + n])
                    if taken.size:
                        raise err(d.loc, f"{space} word {a + int(taken[0])} is initialised "
                                         f"twice (check .org)")
                    raw[a:a + n] = self._item_values(item, dt)
                done[a:a + n] = True
            if self.track:
                self.raws[space] = raw
            out.append(dt.to_bytes(raw))
        lines = [(i.space, i.addr, i.words, i.directive.loc) for i in self.data]
        return out[0], out[1], lines

    def check_labels(self, arch: Arch) -> None:
        """Every data and synapse label lies inside its memory (it may mark the end)."""
        for sym in self.syms.values():
            if sym.space in _MEMORY:
                size = arch_memory(arch, _MEMORY[sym.space])
                if sym.value + sym.length > size:
                    raise err(sym.loc, f"label '{sym.name}' at {sym.space} word {sym.value} "
                                       f"is past the end of {_MEMORY[sym.space]} memory "
                                       f"({size} words on '{arch.name}')")

    def _item_values(self, item: _DataItem, dt) -> list:
        if not self.track:
            return self._data_values(item, dt)
        with self._reads() as deps:
            try:
                return self._data_values(item, dt)
            finally:
                self.item_deps.append((item, frozenset(deps)))

    def _data_values(self, item: _DataItem, dt) -> list:
        d = item.directive
        if d.name == "zero":
            return []
        if d.name == "values":
            vals = []
            for a in d.args:
                v = self.value(a.value, allow_float=True, what=".values")
                try:
                    vals.append(dt.quantize(v, strict=True))
                except DTypeError as exc:
                    raise err(a.loc, f".values: {exc}") from None
            return vals
        a = d.args
        lo = self.value(a[1].value, allow_float=True, what=".rand")
        hi = self.value(a[2].value, allow_float=True, what=".rand")
        seed = self.value(a[3].value, what=".rand")
        if not lo < hi:
            raise err(a[1].loc, f".rand needs low < high, got {lo} and {hi}")
        if not math.isfinite(float(hi) - float(lo)):
            raise err(a[1].loc, f".rand: the range {lo} to {hi} is too wide (high - low "
                                f"overflows a floating-point number)")
        if seed < 0:
            raise err(a[3].loc, f".rand seed must not be negative, not {seed}")
        x = np.random.default_rng(seed).uniform(lo, hi, item.words)
        try:
            return list(dt.quantize(x, strict=True))
        except DTypeError as exc:
            raise err(d.loc, f".rand: {exc}") from None

    def symbols(self) -> tuple[Symbol, ...]:
        return symbol_table(filter(None, map(binary_symbol, self.syms.values())))


def binary_symbol(s: Sym) -> Symbol | None:
    """The binary's symbol of an assembler symbol (None for a float constant)."""
    if s.space == "const":
        if isinstance(s.value, float):
            return None  # float constants live only in the source
        return Symbol(s.name, "const", s.value, 0, "equ")
    if s.space == "text":
        return Symbol(s.name, "text", s.value, 0, "label")
    return Symbol(s.name, s.space, s.value, s.length, "data")


def symbol_table(symbols) -> tuple[Symbol, ...]:
    """Symbols in the binary's order."""
    return tuple(sorted(symbols, key=lambda y: (y.space, y.address, y.name)))


def _dashed_name(e) -> str | None:
    """``adhdp-f64`` parses as a subtraction; read it back as the name it spells."""
    def leaf(x):
        if isinstance(x, Name):
            return x.id
        return str(x.value) if isinstance(x.value, int) else None

    def binop(b: BinOp, left, right):
        return f"{left}-{right}" if b.op == "-" and left and right else None

    return fold(e, leaf, lambda u, x: None, binop)


def arch_memory(arch: Arch, space: str) -> int:
    """Words of the named memory of an architecture."""
    return arch.memories[space]


def _operand_help(d) -> str:
    parts = []
    for name in d.operands:
        parts.append(f"{name}={d.defaults[name]}" if name in d.defaults else name)
    return ", ".join(parts) or "none"


def assemble(text: str, file: str = "<input>", arch: Arch | str | None = None,
             include_paths: tuple = (), defines: dict | None = None,
             source_meta: dict | None = None) -> Assembly:
    """Assemble source text.

    ``arch`` overrides the program's ``.arch``; ``defines`` predefines constants (like
    ``-D``): a ``.default NAME, value`` in the source then keeps the defined value, while an
    ``.equ`` of the same name is an error.
    """
    with _no_cycle_collection():
        return _assemble(text, file, arch, include_paths, defines, source_meta)


@contextmanager
def _no_cycle_collection():
    """Assembling builds millions of small acyclic objects for a large program: Python's
    cycle collector, triggered every few hundred of them, would rescan all of them again and
    again (it more than doubled the time of a 500,000-statement expansion). Reference
    counting frees them all the same."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _assemble(text, file, arch, include_paths, defines, source_meta, tracked=None) -> Assembly:
    """``tracked``: a list that receives the assembler, tracking dependencies, and the
    source's metadata without the defines (:mod:`.variants`)."""
    stmts, included, texts, shown = expand_with_texts(text, file, include_paths)
    a = _Assembler(stmts, arch, defines, track=tracked is not None)
    a.pass1()
    if not a.instrs and not a.data:
        raise AsmError("nothing to assemble: no instructions and no data (.zero, .values, "
                       ".rand)", file, 0, 0)
    the_arch = a.resolve_arch()     # an --arch that cannot be loaded is not the source's error
    instrs, words = a.pass2(the_arch)
    data, synapse, lines = a.images(the_arch)
    a.check_labels(the_arch)
    enc = a.enc
    used = sorted({TABLE[i.mnemonic].family for i in instrs}) or ["base"]
    meta = source_meta if source_meta is not None else _source_meta(file, text, included,
                                                                     texts)
    if tracked is not None:
        tracked += [a, meta]
    if defines:
        meta = {**meta, "defines": {k: defines[k] for k in sorted(defines)}}
    binary = Binary(arch=the_arch.name, encoding_hash=enc.hash, families=tuple(used),
                    instr_bits=enc.instr_bits, data_word_bits=get_dtype(the_arch.knobs.dtype).bits,
                    text=enc.to_bytes(words), data=data, synapse=synapse,
                    symbols=a.symbols(), source=meta, origin=file)
    inputs = ((file,) if file != "<input>" else ()) + tuple(shown)
    return Assembly(binary, the_arch, enc, instrs, [s.loc for s in a.instrs], lines, inputs,
                    a.arch_name)


def _source_meta(file: str, text: str, included: list[Path], texts: dict) -> dict:
    files = [{"path": file, "sha256": hashlib.sha256(text.encode()).hexdigest()}]
    base = Path(file).parent
    for p in included:
        try:
            rel = str(Path(p).resolve().relative_to(base.resolve()))
        except (ValueError, OSError):
            rel = str(p)
        files.append({"path": rel, "sha256": hashlib.sha256(texts[p].encode()).hexdigest()})
    return {"files": files, "assembler": f"rlaccel {VERSION}"}


def assemble_file(path: str | Path, arch: Arch | str | None = None,
                  include_paths: tuple = (), defines: dict | None = None) -> Assembly:
    """Assemble a source file (its directory is searched first for ``.include``).

    The file must be a regular file of UTF-8 text (at most
    :data:`~rlaccel.util.files.MAX_TEXT_BYTES`); anything else is a located AsmError.
    """
    text = read_text(path, "source file", AsmError)
    return assemble(text, str(path), arch, include_paths, defines)
