"""Energy: the price of every action the architecture's families count, and the prices of
action counts.

Each family declares its energy actions and the energy unit each belongs to
(:attr:`rlaccel.tlm.model.Family.actions`); every action has a price (picojoules per action,
per word for memories) and so has ``clock`` (flip-flops' clock and static power, per cycle,
charged to the ``control`` unit). An architecture with a ``[technology]`` table has them
derived by the cost model (:mod:`rlaccel.tlm.cost`); constants stated in its ``[energy]``
table override the derived ones (and are the whole table of an architecture without a
technology). Interconnects price their own words (``[interconnect] energy_pj_per_word``, or
the cost model's link word).
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Mapping

from rlaccel.util.errors import ArchError

__all__ = ["EnergyTable", "CLOCK_UNIT"]

#: the energy unit the clock (per cycle) is charged to
CLOCK_UNIT = "control"


class EnergyTable:
    """Picojoules per action and per clock cycle, and the energy unit of every action."""

    def __init__(self, prices: Mapping[str, float], unit_of: Mapping[str, str], units: tuple,
                 clock: float, model=None):
        self.prices = dict(prices)
        self.unit_of = dict(unit_of)
        self.units = units
        self.clock = clock
        #: the cost model's derivation (:class:`rlaccel.tlm.cost.EnergyModel`), or None
        self.model = model

    @classmethod
    def from_arch(cls, arch, families, unit_of: Mapping[str, str]) -> "EnergyTable":
        """The prices of ``arch``: derived from its ``[technology]`` by the cost model, with
        its ``[energy]`` constants on top, all checked as :meth:`from_table` checks them."""
        from rlaccel.tlm.cost import derive_energy
        if "technology" not in arch.extra and "energy" not in arch.extra:
            raise ArchError(f"{arch.origin}: the simulator needs a [technology] table (the "
                            f"cost model derives the prices) or an [energy] table (stated "
                            f"prices)")
        explicit = arch.extra.get("energy", {})
        if not isinstance(explicit, Mapping):
            raise ArchError(f"{arch.origin}: [energy] must be a table")
        if "technology" in arch.extra:
            _check_entries(explicit, [*unit_of, "clock"], arch.origin)
        model = derive_energy(arch, families, unit_of)
        table = cls.from_table(model.prices if "technology" in arch.extra else explicit,
                               unit_of, arch.origin)
        table.model = model
        return table

    def describe(self) -> dict:
        """What a run reports as ``energy_model``: the constants fitted to a result (empty for
        a derived model), every price's source, and the technology."""
        m = self.model
        if m is None:
            return {"fitted": [], "sources": {}, "technology": "stated"}
        return {"fitted": list(m.fitted), "technology": m.technology,
                "sources": dict(m.sources),
                "prices_pj": {**{k: v for k, v in self.prices.items()}, "clock": self.clock},
                "clock_parts_pj": dict(m.parts)}

    @classmethod
    def from_table(cls, table: Mapping, unit_of: Mapping[str, str], origin: str
                   ) -> "EnergyTable":
        """Validate ``table`` (the ``[energy]`` table of ``origin``) against the actions
        ``unit_of`` declares (action -> energy unit)."""
        names = [*unit_of, "clock"]
        _check_entries(table, names, origin)
        missing = [n for n in names if n not in table]
        if missing:
            raise ArchError(f"{origin}: [energy] is missing {', '.join(missing)}")
        units = tuple(dict.fromkeys([*unit_of.values(), CLOCK_UNIT]))
        return cls({k: float(table[k]) for k in unit_of}, unit_of, units, float(table["clock"]))

    def price(self, counts: Mapping[str, int]) -> float:
        p = self.prices
        return sum(p[a] * n for a, n in counts.items())

    def by_unit(self, counts: Mapping[str, int]) -> dict[str, float]:
        out = dict.fromkeys(self.units, 0.0)
        p, u = self.prices, self.unit_of
        for a, n in counts.items():
            out[u[a]] += p[a] * n
        return out


def _check_entries(table: Mapping, names, origin: str) -> None:
    """Every key of an ``[energy]`` table is a counted action (or ``clock``) and every value a
    finite non-negative number of picojoules."""
    for key, value in table.items():
        if key not in names:
            hint = get_close_matches(key, names, n=1)
            extra = f" (did you mean '{hint[0]}'?)" if hint else ""
            raise ArchError(f"{origin}: [energy] has unknown key '{key}'{extra}; the "
                            f"families of this architecture count: {', '.join(names)}")
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not value >= 0 or value == float("inf")):
            raise ArchError(f"{origin}: [energy] {key} must be a finite non-negative "
                            f"number (pJ), not {value!r}")
