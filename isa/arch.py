"""Architectures: one file of independent hardware knobs, one ``derive()`` into every width.

An architecture is a TOML file (``machines/<machine>/archs/NAME.toml``, or any path). Its ``[machine]`` table holds the
independent knobs (clock, lanes, number format, memory sizes in words, extension sizes); the
other tables (``[energy]``, ``[timing]``, ...) belong to the simulator and are passed through
untouched in :attr:`Arch.extra`. Every field width and depth of the instruction encoding is
derived from the knobs by :func:`derive` (VTA's way: nothing hard-codes a width a config can
change).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from rlaccel.util.files import read_toml

from rlaccel.util.errors import ArchError, did_you_mean
from rlaccel.isa.dtypes.pwl import PWL_DEFAULT_SEGMENTS
from rlaccel.isa.machine import machines
from rlaccel.isa.table import FAMILIES

__all__ = ["Arch", "Knobs", "Geometry", "derive", "load_arch", "arch_names", "arch_files",
           "arch_table", "check_keys"]


@dataclass(frozen=True)
class Knobs:
    """The independent knobs of the ``[machine]`` table (units in the comments)."""

    clock_mhz: float                 # core clock
    lanes: int                       # datapath lanes (tile width)
    dtype: str                       # data number format, e.g. "q6.18" (fixes the data word width)
    imem_bytes: int                  # instruction memory
    synapse_words: int               # synapse (weight) memory, its own address space
    neuron_words: int                # neuron registers (unified space, starts at 0)
    families: tuple[str, ...] = ("base",)  # ISA families implemented; "base" always
    buffer_words: int = 0            # data buffers (unified space, after the neuron memory)
    loop_counters: int = 4           # controller loop counters
    loop_limit_bits: int = 16        # width of a loop limit
    pwl_segments: int = PWL_DEFAULT_SEGMENTS  # segments of the piecewise-linear tables
    max_batch: int = 1               # ddpg: vectors in one batched FF/BP/WU
    agents: int = 1                  # agents, each a controller with its own memories
    cores: int = 1                   # cores (array cores, vector-unit cores) inside an agent
    max_groups: int = 1              # sparse: grouping-matrix groups
    sparse_row_words: int = 0        # sparse: sparse row memory (its own address space)
    hv_dim: int = 0                  # hdc: hypervector dimension
    accumulate: str = ""             # how matvec/dot accumulate ("" the format's default;
                                     # fp16: "float32" or "fp16", isa.dtypes)

    @classmethod
    def from_table(cls, table: Mapping[str, Any], origin: str) -> "Knobs":
        known = {f.name: f for f in fields(cls)}
        for key in table:
            if key not in known:
                extra = did_you_mean(key, known)
                raise ArchError(f"{origin}: [machine] has unknown key '{key}'{extra}; "
                                f"known keys: {', '.join(known)}")
        missing = [n for n, f in known.items() if n not in table and f.default is MISSING]
        if missing:
            raise ArchError(f"{origin}: [machine] is missing {', '.join(missing)}")
        values = dict(table)
        fams = values.get("families", ["base"])
        if not isinstance(fams, list) or not all(isinstance(f, str) for f in fams):
            raise ArchError(f"{origin}: [machine] families must be a list of family names "
                            f"such as [\"base\", \"ddpg\"], not {fams!r}")
        if len(set(fams)) != len(fams):
            raise ArchError(f"{origin}: [machine] families lists a family twice: {fams}")
        values["families"] = tuple(fams)
        for name, f in known.items():
            if name not in values:
                continue
            v = values[name]
            want = {"clock_mhz": (int, float), "dtype": str, "families": tuple,
                    "accumulate": str}.get(name, int)
            if isinstance(v, bool) or not isinstance(v, want):
                kind = ("a string" if want is str else "a list" if want is tuple else
                        "an integer" if want is int else "a number")
                raise ArchError(f"{origin}: [machine] {name} must be {kind}, not {v!r}")
        knobs = cls(**values)
        knobs._check(origin)
        return knobs

    def _check(self, origin: str) -> None:
        for name in ("lanes", "imem_bytes", "synapse_words", "neuron_words", "loop_counters",
                     "loop_limit_bits", "pwl_segments", "max_batch", "agents", "cores",
                     "max_groups"):
            if getattr(self, name) < 1:
                raise ArchError(f"{origin}: [machine] {name} must be at least 1, "
                                f"not {getattr(self, name)}")
        for name in ("buffer_words", "sparse_row_words", "hv_dim"):
            if getattr(self, name) < 0:
                raise ArchError(f"{origin}: [machine] {name} must not be negative")
        if not 0 < self.clock_mhz <= MAX_CLOCK_MHZ:
            raise ArchError(f"{origin}: [machine] clock_mhz must be a positive number of at "
                            f"most {MAX_CLOCK_MHZ}, not {self.clock_mhz!r}")
        for name, most in _LIMITS.items():
            if getattr(self, name) > most:
                raise ArchError(f"{origin}: [machine] {name} = {getattr(self, name)} exceeds "
                                f"the simulator's limit of {most}")
        for fam in self.families:
            if fam not in FAMILIES:
                raise ArchError(f"{origin}: [machine] families: unknown family '{fam}'; "
                                f"known: {', '.join(FAMILIES)}")
        if "base" not in self.families:
            raise ArchError(f"{origin}: [machine] families must include 'base'")
        if "sparse" in self.families and self.sparse_row_words < 1:
            raise ArchError(f"{origin}: family 'sparse' needs sparse_row_words >= 1")
        if "hdc" in self.families and self.hv_dim < 1:
            raise ArchError(f"{origin}: family 'hdc' needs hv_dim >= 1")


#: upper bounds of the knobs (memories are allocated as numpy arrays of 8-byte words)
MAX_CLOCK_MHZ = 100_000.0
_MEMORY_LIMIT = 1 << 27
_LIMITS = {"lanes": 1 << 16, "imem_bytes": 1 << 24, "synapse_words": _MEMORY_LIMIT,
           "neuron_words": _MEMORY_LIMIT, "buffer_words": _MEMORY_LIMIT,
           "sparse_row_words": _MEMORY_LIMIT, "loop_counters": 256, "loop_limit_bits": 32,
           "pwl_segments": 4096, "max_batch": 1 << 16, "agents": 64, "cores": 1024,
           "max_groups": 1024, "hv_dim": 1 << 20}


#: the largest magnitude of an integer in the simulator's tables (cycles, counts)
TABLE_INT_MAX = 1 << 40


def _check_values(value, origin: str, where: str) -> None:
    """The values of a simulator table, whatever its keys: numbers finite, integers of at
    most :data:`TABLE_INT_MAX` (each table's meaning is checked by the simulator part that
    reads it, e.g. ``tlm.hostlink``)."""
    import math
    if isinstance(value, dict):
        for k, v in value.items():
            _check_values(v, origin, f"{where} {k}" if where.endswith("]") else
                          f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_values(v, origin, f"{where}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise ArchError(f"{origin}: {where} must be a finite number, not {value!r}")
    elif (isinstance(value, int) and not isinstance(value, bool)
          and abs(value) > TABLE_INT_MAX):
        raise ArchError(f"{origin}: {where} = {value} is beyond the simulator's limit of "
                        f"{TABLE_INT_MAX:,}")


def _bits(n: int) -> int:
    """Bits needed to hold the values 0 .. n (at least 1)."""
    return max(int(n).bit_length(), 1)


@dataclass(frozen=True)
class Geometry:
    """Every width and depth derived from the knobs. Field kinds of the ISA table index it."""

    word_bits: int          # data word width (from the number format)
    unified_words: int      # neuron memory + buffers
    max_dim: int            # largest vector (rows, cols) an instruction may name
    widths: Mapping[str, int]   # field kind -> bits
    ranges: Mapping[str, tuple[int, int]]   # field kind -> (min, max) semantic value
    biased: frozenset       # field kinds stored as value - 1 (counts that are never zero)


def derive(k: Knobs) -> Geometry:
    """Derive every field width of the encoding from the architecture knobs.

    Rules (each the one place the width is defined):
      * unified space = neuron memory followed by the buffers; ``uaddr`` addresses it;
      * ``saddr`` addresses the synapse memory, ``srm`` the sparse row memory;
      * a vector must fit the neuron memory, so ``dim`` (rows, cols, lengths) ranges over
        1..neuron_words and is stored biased (value - 1); ``count`` (offsets) over 0..max_dim-1;
      * ``pc`` holds an instruction index; an instruction is at least one byte, so
        bits(imem_bytes - 1) always suffice;
      * ``word`` (load-immediate) is one data word of at most 32 bits (a float64 machine's
        immediate is a float32, :mod:`isa.immediate`); ``vlen`` (region lengths of Adam and soft
        update) ranges over 1..synapse_words, biased.
    """
    from rlaccel.isa.dtypes import get_dtype  # numpy-only sibling; imported lazily to keep arch light

    try:
        dt = get_dtype(k.dtype)
    except Exception as exc:  # DTypeError carries the list of valid names
        raise ArchError(f"[machine] dtype: {exc}") from None
    if k.accumulate:
        try:
            get_dtype(k.dtype, accumulate=k.accumulate)
        except Exception as exc:
            raise ArchError(f"[machine] accumulate: {exc}") from None
    unified = k.neuron_words + k.buffer_words
    imm_bits = min(dt.bits, 32)  # see isa.immediate: wider floats travel as float32
    max_dim = k.neuron_words
    ranges = {
        "uaddr": (0, unified - 1),
        "saddr": (0, k.synapse_words - 1),
        "srm": (0, max(k.sparse_row_words, 1) - 1),
        "dim": (1, max_dim),
        "count": (0, max_dim - 1),
        "pc": (0, k.imem_bytes - 1),
        "word": (-(1 << (imm_bits - 1)), (1 << (imm_bits - 1)) - 1),
        "ctr": (0, k.loop_counters - 1),
        "limit": (0, (1 << k.loop_limit_bits) - 1),
        "batch": (1, k.max_batch),
        "vlen": (1, k.synapse_words),
        "agent": (0, k.agents - 1),
        "group": (1, k.max_groups),
        "hvdim": (1, max(k.hv_dim, 1)),
    }
    biased = frozenset({"dim", "batch", "vlen", "group", "hvdim"})
    widths = {}
    for kind, (lo, hi) in ranges.items():
        span = hi - lo if kind in biased else hi
        widths[kind] = imm_bits if kind == "word" else _bits(span)
    return Geometry(word_bits=dt.bits, unified_words=unified, max_dim=max_dim,
                    widths=MappingProxyType(widths), ranges=MappingProxyType(ranges),
                    biased=biased)


@dataclass(frozen=True)
class Arch:
    """A loaded architecture: name, knobs, derived geometry, and the simulator's tables."""

    name: str
    description: str
    knobs: Knobs
    geometry: Geometry
    extra: Mapping[str, Any] = field(default_factory=dict)
    path: str = ""
    #: this architecture's name and those it inherits from, nearest first
    lineage: tuple[str, ...] = ()

    @property
    def origin(self) -> str:
        """How messages name the architecture: its file, or its name."""
        return self.path or self.name

    def derives_from(self, name: str) -> bool:
        """Whether this architecture is ``name`` or inherits from it."""
        return name in (self.lineage or (self.name,))

    @property
    def memories(self) -> dict[str, int]:
        """Word sizes of the addressable memories."""
        k = self.knobs
        return {"synapse": k.synapse_words, "unified": self.geometry.unified_words,
                "neuron": k.neuron_words, "buffer": k.buffer_words,
                "sparse_row": k.sparse_row_words}


def check_keys(table: Mapping, keys, where: str) -> None:
    """An ArchError if ``table`` (what ``where`` names, e.g. ``a.toml: [fixar]``) has a key
    outside ``keys``."""
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise ArchError(f"{where} has unknown key(s) {', '.join(unknown)}; known: "
                        f"{', '.join(keys)}")


def arch_table(arch: Arch, name: str, keys) -> dict:
    """The ``[name]`` table of ``arch`` (empty when it has none): an ArchError if it is not
    a table or has a key outside ``keys`` (the table a family or a unit reads)."""
    table = arch.extra.get(name, {})
    if not isinstance(table, dict):
        raise ArchError(f"{arch.origin}: [{name}] must be a table")
    check_keys(table, keys, f"{arch.origin}: [{name}]")
    return table


def arch_files() -> dict[str, Path]:
    """Every installed architecture file by name: the ``archs`` folder of every machine."""
    files: dict[str, Path] = {}
    for m in machines().values():
        for p in sorted(m.archs.glob("*.toml"), key=lambda p: p.stem):
            if p.stem in files:
                raise ArchError(f"{p}: architecture '{p.stem}' is already {files[p.stem]}")
            files[p.stem] = p
    return files


def arch_names() -> list[str]:
    """Names of the installed architectures (:func:`arch_files`)."""
    return sorted(arch_files())


_CACHE: dict[str, Arch] = {}


def _find(key: str) -> Path:
    """An architecture file by name (``adhdp``) or path."""
    path = Path(key)
    if path.suffix != ".toml":
        files = arch_files()
        path = files.get(key)
        if path is None:
            names = sorted(files)
            extra = did_you_mean(key, names)
            raise ArchError(f"unknown architecture '{key}'{extra}; "
                            f"known: {', '.join(names)}, or give a path to a .toml file")
    return path


def _merge(base: dict, over: dict) -> dict:
    """``over`` on top of ``base``: tables merge key by key, everything else is replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _read(path: Path, chain: tuple[str, ...] = (), names: list | None = None) -> dict:
    """An architecture table with its ``inherit`` chain resolved (name and description are
    never inherited); ``names`` receives the name of every file of the chain, nearest
    first."""
    origin = str(path)
    table = read_toml(path, ArchError, "architecture file")
    if names is not None:
        own = table.get("name", path.stem)
        names.append(own if isinstance(own, str) else path.stem)
    parent = table.pop("inherit", None)
    if parent is None:
        return table
    if not isinstance(parent, str) or not parent:
        raise ArchError(f"{origin}: inherit must name an architecture (a name such as "
                        f"'adhdp' or a path to a .toml file), not {parent!r}")
    ppath = _find(parent) if not parent.endswith(".toml") else path.parent / parent
    if str(ppath.resolve()) in chain + (str(path.resolve()),):
        raise ArchError(f"{origin}: inherit '{parent}' makes a cycle "
                        f"({' -> '.join(Path(c).stem for c in chain + (str(path),))} -> "
                        f"{ppath.stem})")
    base = _read(ppath, chain + (str(path.resolve()),), names)
    base.pop("name", None)
    base.pop("description", None)
    return _merge(base, table)


def load_arch(name_or_path: str | Path) -> Arch:
    """Load an architecture by name (``adhdp``) or by path to a TOML file; a file may
    ``inherit = "NAME"`` another and change only what differs (tables merge key by key)."""
    path = _find(str(name_or_path))
    origin = str(path)
    try:
        st = path.stat()
        key = f"{path.resolve()}:{st.st_mtime_ns}:{st.st_size}"   # an edited file reloads
    except OSError:
        key = origin
    if key in _CACHE:
        return _CACHE[key]
    names: list[str] = []
    table = _read(path, names=names)
    for key_ in table:
        if key_ not in ("name", "description", "machine") and not isinstance(table[key_], dict):
            raise ArchError(f"{origin}: top-level key '{key_}' = {table[key_]!r} is not a "
                            f"table; only name, description and inherit are top-level values, "
                            f"everything else is a table such as [machine] or [energy]")
    for key_ in ("name", "description"):
        if key_ in table and not isinstance(table[key_], str):
            raise ArchError(f"{origin}: {key_} must be a string, not {table[key_]!r}")
    if "machine" not in table:
        raise ArchError(f"{origin}: missing the [machine] table")
    if not isinstance(table["machine"], dict):
        raise ArchError(f"{origin}: machine must be a table ([machine] with the knobs), not "
                        f"{table['machine']!r}")
    knobs = Knobs.from_table(table["machine"], origin)
    try:
        geometry = derive(knobs)
    except ArchError as exc:
        raise ArchError(f"{origin}: {exc}") from None
    extra = {k: v for k, v in table.items() if k not in ("name", "description", "machine")}
    for key_, value in extra.items():
        _check_values(value, origin, f"[{key_}]")
    arch = Arch(name=table.get("name", path.stem), description=table.get("description", ""),
                knobs=knobs, geometry=geometry, extra=MappingProxyType(extra), path=origin,
                lineage=tuple(names))
    _CACHE[key] = arch
    return arch
