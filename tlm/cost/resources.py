"""FPGA resources of an architecture: LUTs, flip-flops, DSP slices and block RAMs per unit,
summed per machine and per SLR, against the device's budgets.

The units are the architecture's ``[resources.NAME]`` rows: one instance's cost and how many
instances the design has, as an expression of the knobs::

    [resources.pe]
    count = "cores * pe_rows * pe_cols"   # [machine] knobs, [timing] keys, names a caller adds
    lut = 493                              # one instance
    ff = 185
    dsp = 4
    slr = "spread"                         # instances spread evenly over the SLRs, or an index
    source = "rlaccel rtl synth fixar_pe --target xilinx (...)"

A count may also use a name the ``[resources]`` table states itself (``actions = 4``: a size
of the design that the knobs do not give, with its source in ``[sources]`` as
``"resources.actions"``); a caller's ``extra`` names (a run's task) take its place.

Each row's figures come from Yosys synthesis of the project's own RTL block where one exists
(the command that made them in ``source``; synthesis is never run here) or from a cited figure.
The memories an architecture maps to block RAM or UltraRAM (``[technology] memories``) add
the blocks their words need (:meth:`~.technology.Fpga.blocks`), spread over the SLRs.

The budgets are each SLR's share of the device, at most UG949's utilisation guidelines
(LUTs 70 %, flip-flops 50 %, DSPs, block RAMs and UltraRAMs 80 %), unless ``[device]`` names
per-SLR budgets (a shell taking part of an SLR).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Mapping

from rlaccel.util.errors import ArchError

from rlaccel.tlm.cost.primitives import table
from rlaccel.tlm.cost.technology import Fpga, technology_of

__all__ = ["Resources", "resources_of", "evaluate", "beside", "count_names", "KINDS",
           "ROW_KEYS"]

#: the resources counted
KINDS = ("lut", "ff", "dsp", "bram", "uram")
#: the keys of a ``[resources.NAME]`` row
ROW_KEYS = ("count", "lut", "ff", "dsp", "bram", "uram", "slr", "source")

_FUNCS = {"ceil": math.ceil, "floor": math.floor, "max": max, "min": min, "log2": math.log2}
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub)


def evaluate(expr, names: Mapping[str, float], where: str) -> float:
    """An arithmetic expression over ``names`` (numbers, + - * / // % **, comparisons giving 0
    or 1, ceil floor max min log2)."""
    if isinstance(expr, (int, float)) and not isinstance(expr, bool):
        return expr
    if not isinstance(expr, str):
        raise ArchError(f"{where} must be a number or an expression string, not {expr!r}")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ArchError(f"{where}: '{expr}' is not an arithmetic expression") from None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) \
                and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in names:
                raise ArchError(f"{where}: '{n.id}' is not a knob ({', '.join(sorted(names))})")
            return names[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp) and isinstance(n.op, _OPS):
            a, b = ev(n.left), ev(n.right)
            return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b,
                    ast.Div: a / b if b else math.inf, ast.FloorDiv: a // b if b else math.inf,
                    ast.Mod: a % b if b else math.nan, ast.Pow: a ** b}[type(n.op)]
        if isinstance(n, ast.Compare) and len(n.ops) == 1:
            a, b = ev(n.left), ev(n.comparators[0])
            op = type(n.ops[0])
            table_ = {ast.Gt: a > b, ast.GtE: a >= b, ast.Lt: a < b, ast.LtE: a <= b,
                      ast.Eq: a == b, ast.NotEq: a != b}
            if op in table_:
                return int(table_[op])
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS \
                and not n.keywords:
            return _FUNCS[n.func.id](*(ev(a) for a in n.args))
        raise ArchError(f"{where}: '{expr}' uses something other than numbers, knobs, "
                        f"arithmetic and {', '.join(_FUNCS)}")
    return ev(tree)


@dataclass
class Resources:
    """Per unit, per SLR and in total, with the budgets and the device."""

    device: str
    units: dict = field(default_factory=dict)       # name -> {count, lut, ..., source}
    slr: list = field(default_factory=list)         # [{name, lut, ..., budget: {...}}]
    total: dict = field(default_factory=dict)
    capacity: dict = field(default_factory=dict)    # the whole device's
    skipped: list = field(default_factory=list)     # units whose count needs a name not given

    def as_dict(self) -> dict:
        over = [f"{s['name']} {k}" for s in self.slr for k in KINDS
                if s[k] > s["budget"].get(k, math.inf)]
        return {**{k: self.total[k] for k in KINDS}, "device": self.device,
                "percent": {k: 100.0 * self.total[k] / self.capacity[k]
                            for k in KINDS if self.capacity.get(k)},
                "slr": self.slr, "units": self.units, "over_budget": over}


def _names(arch, extra: Mapping | None, stated: Mapping | None = None) -> dict:
    from dataclasses import fields
    k = arch.knobs
    names = {f.name: getattr(k, f.name) for f in fields(k)
             if isinstance(getattr(k, f.name), (int, float))}
    for key, v in arch.extra.get("timing", {}).items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            names[key] = v
    net = arch.extra.get("interconnect", {})
    if isinstance(net.get("words_per_cycle"), (int, float)):
        names["link_words"] = net["words_per_cycle"]
    names["word_bits"] = arch.geometry.word_bits
    for key, v in (stated or {}).items():
        if key in names:
            raise ArchError(f"{arch.origin}: [resources] {key} = {v!r} names a count that "
                            f"the architecture already gives ({names[key]!r})")
        names[key] = v
    names.update(extra or {})
    return names


def count_names(arch) -> dict:
    """The count names an architecture's ``[resources]`` table states (``NAME = number``)."""
    rows = arch.extra.get("resources", {})
    if not isinstance(rows, dict):
        return {}
    out = {}
    for name, v in rows.items():
        if isinstance(v, dict):
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1e9:
            raise ArchError(f"{arch.origin}: [resources] {name} must be a unit (a table of "
                            f"{', '.join(ROW_KEYS)}) or a count name's number from 0 up, not "
                            f"{v!r}")
        out[name] = v
    return out


def _budgets(arch, dev: Mapping) -> list[dict]:
    """Each SLR's name and budget: the device's share at UG949's guideline, or ``[device]``'s
    own per-SLR figures (which are what a shell leaves), at the guideline too."""
    guide = table("fpga.utilisation")
    n = int(dev["slrs"])
    table_ = arch.extra.get("device", {})
    slrs = table_.get("slr") if isinstance(table_, dict) else None
    out = []
    for i in range(n):
        own = slrs[i] if isinstance(slrs, list) and i < len(slrs) else {}
        out.append({"name": own.get("name", f"SLR{i}"),
                    "budget": {k: guide[k] * own.get(k, dev[k] / n) for k in KINDS}})
    return out


def resources_of(arch, tech=None, extra: Mapping | None = None,
                 partial: bool = False) -> Resources | None:
    """The resources of an FPGA architecture (None for an ASIC); ``extra`` adds names the
    count expressions may use (a machine's design search: the number of elements it chose).
    ``partial``: a unit whose count needs a name not given is left out (and listed in
    ``skipped``) instead of an error."""
    tech = tech or technology_of(arch)
    if not isinstance(tech, Fpga):
        return None
    rows = arch.extra.get("resources", {})
    if not isinstance(rows, dict):
        raise ArchError(f"{arch.origin}: [resources] must be a table of units")
    stated = count_names(arch)
    rows = {n: r for n, r in rows.items() if n not in stated}
    names = _names(arch, extra, stated)
    dev = tech.dev
    slrs = _budgets(arch, dev)
    n = len(slrs)
    for s in slrs:
        s.update(dict.fromkeys(KINDS, 0.0))
    units = {}
    skipped: list[str] = []

    def place(name, per: dict, count: float, where) -> None:
        if where == "spread":
            share = [count / n] * n
        else:
            idx = where if isinstance(where, int) and not isinstance(where, bool) else -1
            if not 0 <= idx < n:
                raise ArchError(f"{arch.origin}: [resources.{name}] slr = {where!r} is not an SLR "
                                f"of the {tech.device} (0..{n - 1}, or \"spread\")")
            share = [count if i == idx else 0 for i in range(n)]
        for s, c in zip(slrs, share):
            for k in KINDS:
                s[k] += c * per.get(k, 0)

    for name, row in rows.items():         # every row's form and source, before any count
        where = f"{arch.origin}: [resources.{name}]"
        if not isinstance(row, dict):
            raise ArchError(f"{where} must be a table ({', '.join(ROW_KEYS)})")
        unknown = sorted(set(row) - set(ROW_KEYS))
        if unknown:
            raise ArchError(f"{where} has unknown key(s) {', '.join(unknown)}; a unit has "
                            f"{', '.join(ROW_KEYS)}")
        if not isinstance(row.get("source"), str) or len(row["source"].split()) < 3:
            raise ArchError(f"{where} needs a source (the synthesis command, or the cited "
                            f"figure, its per-instance counts come from)")
        for kind in KINDS:
            v = row.get(kind, 0)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1e9:
                raise ArchError(f"{where} {kind} = {v!r}: a unit's {kind} per instance is a "
                                f"number from 0 up")
    for name, row in rows.items():
        where = f"{arch.origin}: [resources.{name}]"
        try:
            count = evaluate(row.get("count", 1), names, f"{where} count")
        except ArchError:
            if not partial:
                raise
            skipped.append(name)
            continue
        per = {k: float(row.get(k, 0)) for k in KINDS}
        place(name, per, count, row.get("slr", "spread"))
        units[name] = {"count": count, **{k: per[k] * count for k in KINDS},
                       "source": row["source"]}
    k = arch.knobs
    spaces = {"synapse": k.synapse_words, "neuron": k.neuron_words, "buffer": k.buffer_words,
              "sparse_row": k.sparse_row_words}
    mems = arch.extra.get("technology", {}).get("memories", {})
    banks = arch.extra.get("technology", {}).get("banks", {})
    per_agent = max(1, k.agents)
    for space, kind in mems.items():
        if kind not in ("bram", "uram") or not spaces.get(space) \
                or f"{space}_memory" in rows:
            continue
        blocks = tech.blocks(kind, spaces[space], arch.geometry.word_bits,
                             int(banks.get(space, 1))) * per_agent
        per = dict.fromkeys(KINDS, 0.0)
        per[kind] = 1.0
        place(f"{space}_memory", per, blocks, "spread")
        units[f"{space}_memory"] = {"count": blocks, **{x: (blocks if x == kind else 0)
                                                       for x in KINDS},
                                    "source": f"{spaces[space]:,} words of "
                                              f"{arch.geometry.word_bits} bits"
                                              f"{' per agent' if per_agent > 1 else ''} in "
                                              f"{kind.upper()} blocks "
                                              f"({int(banks.get(space, 1))} banks; UG573)"}
    total = {key: sum(s[key] for s in slrs) for key in KINDS}
    for s in slrs:
        for key in KINDS:
            s[key] = round(s[key], 3)
    return Resources(device=tech.device, units=units, slr=slrs,
                     total={key: round(v, 3) for key, v in total.items()},
                     capacity={key: dev[key] for key in KINDS}, skipped=skipped)


def beside(resources: dict, paper: Mapping | None, where: str = "") -> dict:
    """``resources`` (:meth:`Resources.as_dict`) with a paper's figures for the same design
    beside them (``paper``: kind -> count, and ``where`` they are from) and each relative
    error; unchanged without figures."""
    if not paper:
        return resources
    err = {k: (resources[k] - v) / v for k, v in paper.items() if k in KINDS and v}
    return {**resources, "paper": {**{k: v for k, v in paper.items() if k in KINDS},
                                  "where": where}, "error": err}
