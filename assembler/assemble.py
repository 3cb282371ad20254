"""Passes 1 and 2: symbols and layout, then encoding through the ISA table.

``assemble(text)`` -> :class:`Assembly` (the :class:`~assembler.rlb.Binary`, the decoded
instructions and a listing). Every problem raises a located :class:`~isa.errors.AsmError`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path

import numpy as np

from isa.arch import Arch, load_arch
from isa.dtypes import get_dtype
from isa.encoding import Encoding, Instruction, encoding_for, kind_words
from isa.errors import ArchError, AsmError, DTypeError, EncodeError
from isa.immediate import imm_from_value
from isa.table import ENUMS, TABLE

from . import __version__
from .ast import Arg, BinOp, Directive, Expr, InstrStmt, Label, Loc, Name, Num, Stmt, Unary
from .expand import err, expand
from .rlb import Binary, Symbol

__all__ = ["assemble", "assemble_file", "Assembly", "DIRECTIVES"]

DIRECTIVES = ("arch", "equ", "default", "text", "data", "synapse", "org", "zero", "values", "rand",
              "include", "macro", "endm")
_SECTIONS = {"text": "text", "data": "data", "synapse": "synapse"}
_MEMORY = {"data": "unified", "synapse": "synapse"}


@dataclass
class _Sym:
    name: str
    space: str          # text | data | synapse | const
    value: int | float
    loc: Loc
    length: int = 0


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


class _Assembler:
    def __init__(self, stmts: list[Stmt], arch_override: Arch | str | None,
                 defines: dict | None = None):
        self.stmts = stmts
        self.arch_override = arch_override
        self.syms: dict[str, _Sym] = {}
        for name, value in (defines or {}).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise AsmError(f"define {name}={value!r}: the value must be a number",
                               "<defines>", 0, 0)
            self.define(name, "const", value, Loc("<defines>", 0, 0))
        self.arch_name: tuple[str, Loc] | None = None

    # -- expressions ------------------------------------------------------------------------
    def value(self, e: Expr, *, allow_float: bool = False, forward: bool = True) -> int | float:
        if isinstance(e, Num):
            v = e.value
        elif isinstance(e, Name):
            sym = self.syms.get(e.id)
            if sym is None:
                hint = get_close_matches(e.id, list(self.syms), n=1)
                extra = f" (did you mean '{hint[0]}'?)" if hint else ""
                what = "symbol" if forward else "constant (it must be defined before this line)"
                raise err(e.loc, f"undefined {what} '{e.id}'{extra}")
            v = sym.value
        elif isinstance(e, Unary):
            x = self.value(e.operand, allow_float=allow_float, forward=forward)
            if e.op == "~":
                if isinstance(x, float):
                    raise err(e.loc, "'~' needs an integer")
                v = ~x
            else:
                v = -x
        elif isinstance(e, BinOp):
            a = self.value(e.left, allow_float=allow_float, forward=forward)
            b = self.value(e.right, allow_float=allow_float, forward=forward)
            v = self._binop(e, a, b)
        else:  # pragma: no cover - the parser builds only these
            raise err(getattr(e, "loc", Loc("<input>", 0, 0)), f"bad expression {e!r}")
        if isinstance(v, float) and not allow_float:
            loc = e.loc
            raise err(loc, f"expected an integer here, not {v!r}")
        return v

    @staticmethod
    def _binop(e: BinOp, a, b):
        floaty = isinstance(a, float) or isinstance(b, float)
        if e.op in ("/", "%") and b == 0:
            raise err(e.loc, "division by zero")
        if floaty and e.op not in ("+", "-", "*", "/"):
            raise err(e.loc, f"'{e.op}' needs integers")
        if e.op in ("<<", ">>") and b < 0:
            raise err(e.loc, "negative shift count")
        if e.op == "<<" and b > 64:
            raise err(e.loc, f"shift count {b} is too large")
        if e.op == "/":
            return a / b if floaty else a // b
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "%": lambda: a % b,
               "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
               "|": lambda: a | b, "^": lambda: a ^ b}
        return ops[e.op]()

    def define(self, name: str, space: str, value, loc: Loc) -> _Sym:
        if name in self.syms:
            prev = self.syms[name].loc
            raise err(loc, f"'{name}' is already defined at {prev.file}:{prev.line}")
        if name in TABLE:
            raise err(loc, f"'{name}' is an instruction mnemonic and cannot be a symbol")
        s = _Sym(name, space, value, loc)
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
                sym = self.define(s.name, section, counters[section], s.loc)
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
                addr = self.value(a.value, forward=False)
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
                hint = get_close_matches(name, DIRECTIVES, n=1)
                extra = f" (did you mean '.{hint[0]}'?)" if hint else ""
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
        if len(d.args) == 1 and d.args[0].name is not None:
            name, expr, loc = d.args[0].name, d.args[0].value, d.args[0].loc
        elif len(d.args) == 2 and isinstance(d.args[0].value, Name) and d.args[0].name is None:
            name, expr, loc = d.args[0].value.id, d.args[1].value, d.args[0].loc
        else:
            raise err(d.loc, f".{d.name} expects a name and a value: .{d.name} NAME, expression")
        if isinstance(expr, str):
            raise err(d.args[-1].loc, f".{d.name} values are numbers, not strings")
        if d.name == "default" and name in self.syms:
            return  # already given (by a -D define or earlier in the source)
        self.define(name, "const", self.value(expr, allow_float=True, forward=False), loc)

    def _data_words(self, d: Directive) -> int:
        if d.name == "zero":
            (a,) = self._args(d, 1, "a word count")
            n = self.value(a.value, forward=False)
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
        n = self.value(a[0].value, forward=False)
        if n < 0:
            raise err(a[0].loc, f".rand count must not be negative, not {n}")
        return n

    # -- pass 2: encode ---------------------------------------------------------------------
    def resolve_arch(self) -> Arch:
        if self.arch_override is not None:
            return (self.arch_override if isinstance(self.arch_override, Arch)
                    else load_arch(self.arch_override))
        if self.arch_name is None:
            loc = self.instrs[0].loc if self.instrs else Loc("<input>", 1, 1)
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
                hint = get_close_matches(a.name, d.operands, n=1)
                extra = f" (did you mean '{hint[0]}'?)" if hint else ""
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
            v = self.value(a.value, allow_float=(kind == "word"))
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
        dt = get_dtype(arch.knobs.dtype)
        images = {"data": {}, "synapse": {}}
        lines = []
        for item in self.data:
            d = item.directive
            size = arch_memory(arch, _MEMORY[item.space])
            if item.addr + item.words > size:
                raise err(d.loc, f".{d.name} of {item.words} word(s) at {item.addr} runs past the "
                                 f"end of {_MEMORY[item.space]} memory ({size} words on "
                                 f"'{arch.name}')")
            values = self._data_values(item, dt)
            img = images[item.space]
            for k, raw in enumerate(values):
                a = item.addr + k
                if a in img:
                    raise err(d.loc, f"{item.space} word {a} is initialised twice (check .org)")
                img[a] = raw
            if item.words and d.name == "zero":
                for k in range(item.words):
                    img.setdefault(item.addr + k, None)
            lines.append((item.space, item.addr, item.words, d.loc))
        out = []
        for space in ("data", "synapse"):
            img = images[space]
            length = max(self.counters[space], max(img, default=-1) + 1)
            raw = np.zeros(length, dtype=dt.storage)
            for a, v in img.items():
                if v is not None:
                    raw[a] = v
            out.append(dt.to_bytes(raw))
        return out[0], out[1], lines

    def _data_values(self, item: _DataItem, dt) -> list:
        d = item.directive
        if d.name == "zero":
            return []
        if d.name == "values":
            vals = []
            for a in d.args:
                v = self.value(a.value, allow_float=True)
                try:
                    vals.append(dt.quantize(v, strict=True))
                except DTypeError as exc:
                    raise err(a.loc, f".values: {exc}") from None
            return vals
        a = d.args
        lo = self.value(a[1].value, allow_float=True)
        hi = self.value(a[2].value, allow_float=True)
        seed = self.value(a[3].value)
        if not lo < hi:
            raise err(a[1].loc, f".rand needs low < high, got {lo} and {hi}")
        if seed < 0:
            raise err(a[3].loc, f".rand seed must not be negative, not {seed}")
        x = np.random.default_rng(seed).uniform(lo, hi, item.words)
        try:
            return list(dt.quantize(x, strict=True))
        except DTypeError as exc:
            raise err(d.loc, f".rand: {exc}") from None

    def symbols(self) -> tuple[Symbol, ...]:
        out = []
        for s in self.syms.values():
            if s.space == "const":
                if isinstance(s.value, float):
                    continue  # float constants live only in the source
                out.append(Symbol(s.name, "const", s.value, 0, "equ"))
            elif s.space == "text":
                out.append(Symbol(s.name, "text", s.value, 0, "label"))
            else:
                out.append(Symbol(s.name, s.space, s.value, s.length, "data"))
        return tuple(sorted(out, key=lambda y: (y.space, y.address, y.name)))


def _dashed_name(e) -> str | None:
    """``adhdp-f64`` parses as a subtraction; read it back as the name it spells."""
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Num) and isinstance(e.value, int):
        return str(e.value)
    if isinstance(e, BinOp) and e.op == "-":
        left, right = _dashed_name(e.left), _dashed_name(e.right)
        return f"{left}-{right}" if left and right else None
    return None


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
    stmts, included = expand(text, file, include_paths)
    a = _Assembler(stmts, arch, defines)
    a.pass1()
    try:
        the_arch = a.resolve_arch()
    except ArchError as exc:
        raise AsmError(str(exc), file, 0, 0) from None
    instrs, words = a.pass2(the_arch)
    data, synapse, lines = a.images(the_arch)
    enc = a.enc
    used = sorted({TABLE[i.mnemonic].family for i in instrs}) or ["base"]
    meta = source_meta if source_meta is not None else _source_meta(file, text, included)
    if defines:
        meta = {**meta, "defines": {k: defines[k] for k in sorted(defines)}}
    binary = Binary(arch=the_arch.name, encoding_hash=enc.hash, families=tuple(used),
                    instr_bits=enc.instr_bits, data_word_bits=get_dtype(the_arch.knobs.dtype).bits,
                    text=enc.to_bytes(words), data=data, synapse=synapse,
                    symbols=a.symbols(), source=meta, origin=file)
    return Assembly(binary, the_arch, enc, instrs, [s.loc for s in a.instrs], lines)


def _source_meta(file: str, text: str, included: list[Path]) -> dict:
    files = [{"path": file, "sha256": hashlib.sha256(text.encode()).hexdigest()}]
    base = Path(file).parent
    for p in included:
        try:
            rel = str(Path(p).resolve().relative_to(base.resolve()))
        except ValueError:
            rel = str(p)
        files.append({"path": rel, "sha256": hashlib.sha256(Path(p).read_bytes()).hexdigest()})
    return {"files": files, "assembler": f"rlaccel {__version__}"}


def assemble_file(path: str | Path, arch: Arch | str | None = None,
                  include_paths: tuple = (), defines: dict | None = None) -> Assembly:
    """Assemble a source file (its directory is searched first for ``.include``)."""
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise AsmError("no such source file", str(p), 0, 0) from None
    except UnicodeDecodeError as exc:
        raise AsmError(f"not a text file ({exc.reason} at byte {exc.start})", str(p), 0, 0) from None
    except OSError as exc:
        raise AsmError(f"cannot read: {exc.strerror}", str(p), 0, 0) from None
    return assemble(text, str(p), arch, include_paths, defines)
