"""The cost model of one architecture: its technology, its knobs, and the price of every
energy action its families count, derived (Accelergy's way) from primitive components.

Each family that counts energy actions prices them in an ``energy`` module beside its models
(``tlm/families/base/energy.py`` for the base family; a machine's family in
``machines/<m>/tlm/energy.py``), with a function ``prices(cost) -> {action: Price}`` that
composes the :class:`CostModel`'s components at the architecture's widths and sizes. The
per-cycle ``clock`` energy is the flip-flops' clock and the static power:

* an ASIC: the base family's ``clock(cost)`` (its registers, pipeline and leakage);
* an FPGA: every flip-flop of the design's resources (:mod:`.resources`) clocked each cycle,
  plus the device's measured idle power (the card's, or the chip's) spread over the agents'
  cycles.

An architecture may also state prices itself in ``[energy]`` (with their sources in
``[energy_sources]``): they override the derived ones, and any whose source says it was
fitted or calibrated is listed as such (:func:`fitted_keys`), which is how a calibrated
variant is told apart from the default.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from dataclasses import dataclass, field
from typing import Mapping

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import ArchError

from rlaccel.tlm.cost.primitives import Price
from rlaccel.tlm.cost.technology import Fpga, Technology, technology_of

__all__ = ["CostModel", "EnergyModel", "derive_energy", "energy_module", "fitted_keys",
           "FITTED", "CLOCK"]

#: what a source says when its figure was set to meet a result
FITTED = re.compile(r"\b(fitted|fit to|calibrat\w*|solved from|set so)\b", re.IGNORECASE)
#: the per-cycle action every machine has
CLOCK = "clock"


class CostModel:
    """Components at an architecture's technology, widths and sizes (what the families'
    ``prices`` functions compose)."""

    def __init__(self, arch, tech: Technology | None = None):
        self.arch = arch
        self.knobs = k = arch.knobs
        self.tech = tech or technology_of(arch)
        if self.tech is None:
            raise ArchError(f"{arch.origin}: no [technology] table to derive prices from")
        dt = get_dtype(k.dtype, segments=k.pwl_segments, accumulate=k.accumulate or None)
        self.dtype = dt
        self.word_bits = dt.bits
        self.is_float = bool(dt.is_float)
        t = arch.extra.get("technology", {})
        self.memories: Mapping[str, str] = dict(t.get("memories", {}))
        self.banks: Mapping[str, int] = dict(t.get("banks", {}))
        self.timing: Mapping = dict(arch.extra.get("timing", {}))
        self.clock_hz = k.clock_mhz * 1e6

    # ---- arithmetic on the datapath's number format ---------------------------------------
    def mul(self, a: int | None = None, b: int | None = None, on: str | None = None) -> Price:
        """A multiply of the data format (float: its multiplier; fixed: ``a`` x ``b``);
        ``on`` (``"dsp"`` or ``"fabric"``) names what builds it where a unit's multipliers
        differ from the architecture's ``[technology] multipliers`` (an FPGA's only)."""
        if self.is_float and a is None:
            return self.tech.fmul(self.word_bits, on)
        w = self.word_bits
        return self.tech.mul(a or w, b or a or w, on)

    def add(self, bits: int | None = None) -> Price:
        if self.is_float and bits is None:
            return self.tech.fadd(self.word_bits)
        return self.tech.add(bits or self.word_bits)

    def accumulate(self) -> Price:
        """The accumulator's add: a float format's adder (its accumulate format's), or a
        fixed-point adder of twice the word (the product's width)."""
        if self.is_float:
            acc = getattr(self.dtype, "accumulate", None)
            bits = 32 if acc in ("float32", "fp32") else self.word_bits
            return self.tech.fadd(bits)
        return self.tech.add(2 * self.word_bits)

    def mac(self, on: str | None = None) -> Price:
        m = self.mul(on=on)
        return (m + self.accumulate()).named(
            f"multiply ({m.how}) + accumulate ({self.accumulate().how})")

    def mux(self, ways: int, bits: int | None = None) -> Price:
        return self.tech.mux(bits or self.word_bits, ways)

    # ---- memories --------------------------------------------------------------------------
    def memory_kind(self, space: str, default: str) -> str:
        return self.memories.get(space, default)

    def memory(self, space: str, words: int, default: str, bits: int | None = None,
               banks: int | None = None) -> tuple[Price, Price]:
        """(read, write) of one word of memory ``space`` (``[technology] memories`` says what
        implements it; ``default`` otherwise), ``words`` words in ``banks`` banks."""
        kind = self.memory_kind(space, default)
        bits = bits or self.word_bits
        nb = banks or self.banks.get(space, 1)
        r, w = self.tech.memory(kind, max(1, -(-words // nb)), bits)
        tag = f"{space} memory ({kind}{f', {nb} banks' if nb > 1 else ''})"
        return r.named(f"{tag}: {r.how}"), w.named(f"{tag}: {w.how}")

    def flipflops(self, bits: float) -> Price:
        return self.tech.flipflops(bits)


@dataclass
class EnergyModel:
    """Every action's price (pJ), the clock per cycle (pJ), where each comes from, which
    were fitted, and the interconnect's energy per word (None: the architecture's)."""

    prices: dict
    clock: float
    sources: dict
    fitted: list = field(default_factory=list)
    technology: str = ""
    interconnect_pj_per_word: float | None = None
    parts: dict = field(default_factory=dict)


def energy_module(family):
    """The ``energy`` module beside a family's models (None when it has none)."""
    from rlaccel.tlm.families import models_ref
    mod = models_ref(family.name).partition(":")[0]
    for cand in (f"{mod}.energy", f"{mod.rpartition('.')[0]}.energy"):
        try:
            if importlib.util.find_spec(cand) is not None:
                return importlib.import_module(cand)
        except ModuleNotFoundError:
            continue
    return None


def fitted_keys(arch) -> list[str]:
    """``[energy]`` constants whose source says they were fitted or calibrated, or that have
    no source at all."""
    energy = arch.extra.get("energy", {})
    sources = arch.extra.get("energy_sources", {})
    return [k for k in energy if not isinstance(sources.get(k), str)
            or FITTED.search(sources[k])]


def derive_energy(arch, families, unit_of: Mapping[str, str],
                  names: Mapping[str, float] | None = None) -> EnergyModel:
    """The energy model of ``arch``: derived from its ``[technology]``, with any explicit
    ``[energy]`` constants on top (the whole model when it has no technology). ``names``:
    the count names of ``[resources]`` a caller knows beyond the architecture's (a run's
    task, a design search's choice), for the flip-flops the clock counts."""
    explicit = dict(arch.extra.get("energy", {}))
    stated = dict(arch.extra.get("energy_sources", {}))
    tech = technology_of(arch)
    prices: dict[str, float] = {}
    sources: dict[str, str] = {}
    parts: dict[str, float] = {}
    net = None
    if tech is not None:
        cost = CostModel(arch, tech)
        for fam in families:
            if not fam.actions:
                continue
            mod = energy_module(fam)
            fn = getattr(mod, "prices", None) if mod is not None else None
            if fn is None:
                raise ArchError(f"{arch.origin}: family '{fam.name}' counts energy actions "
                                f"({', '.join(fam.actions)}) but has no energy module with "
                                f"prices(cost) to derive them from [technology]")
            got = fn(cost)
            missing = [a for a in fam.actions if a not in got]
            extra = [a for a in got if a not in fam.actions]
            if missing or extra:
                raise ArchError(f"{mod.__name__}.prices: " + (f"no price for {', '.join(missing)}"
                                                               if missing else
                                                               f"prices unknown actions "
                                                               f"{', '.join(extra)}"))
            for a, p in got.items():
                prices[a] = float(p.pj)
                sources[a] = p.sentence()
        clock, parts = _clock(cost, families, names)
        prices[CLOCK] = clock.pj
        sources[CLOCK] = clock.sentence()
        if isinstance(tech, Fpga):
            link = cost.memory("link", 2, "ff")[1] * 2
            net = link.pj
            sources["interconnect"] = ("a word over a link: written into a link register and "
                                       "read at the far end, " + link.sentence())
    names = [*unit_of, CLOCK]
    for key, value in explicit.items():
        if key not in names:
            continue                  # EnergyTable.from_table names the unknown key
        prices[key] = value
        sources[key] = stated.get(key, "stated in the architecture file without a source")
    fitted = [k for k in explicit if k in names and (not isinstance(stated.get(k), str)
                                                     or FITTED.search(stated[k]))]
    return EnergyModel(prices=prices, clock=prices.get(CLOCK, 0.0), sources=sources,
                       fitted=fitted, technology=tech.name if tech else "stated",
                       interconnect_pj_per_word=net, parts=parts)


def _clock(cost: CostModel, families, names: Mapping[str, float] | None = None
           ) -> tuple[Price, dict]:
    """Per-cycle energy (see the module doc) and its parts in pJ: on an FPGA the flip-flops
    of every ``[resources]`` unit whose count the architecture's names (its knobs, its
    ``[timing]``, its ``[resources]`` count names) and ``names`` give."""
    tech = cost.tech
    if isinstance(tech, Fpga):
        from rlaccel.tlm.cost.resources import resources_of
        res = resources_of(cost.arch, tech, extra=names, partial=True)
        ff = res.total["ff"] if res is not None else 0
        # the price is charged per agent-cycle (every agent's cycles are summed), and the
        # design's flip-flops tick once a cycle whatever the agents: each agent carries its
        # share, as it does of the idle power
        per = max(1, cost.knobs.agents)
        share = f" / {per} agents" if per > 1 else ""
        clk = cost.flipflops(ff / per)
        if res is not None and res.skipped:
            clk = clk.named(f"{clk.how}; not counted: {', '.join(res.skipped)} (their number "
                            f"is the design search's)")
        watts, what, ref = tech.static_w()
        static = Price(watts / (cost.clock_hz * per) * 1e12,
                       f"{what}, {watts:g} W / {cost.knobs.clock_mhz:g} MHz{share}", (ref,))
        total = clk + static
        return total.named(f"clock of {ff:,} flip-flops{share} ({clk.how}) + {static.how}"), \
            {"flipflops": clk.pj, "static": static.pj}
    base = next((f for f in families if f.name == "base"), None)
    mod = energy_module(base) if base is not None else None
    fn = getattr(mod, "clock", None)
    if fn is None:
        raise ArchError(f"{cost.arch.origin}: no family prices the clock of an ASIC")
    return fn(cost)
