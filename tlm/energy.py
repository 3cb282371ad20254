"""Energy: the architecture's ``[energy]`` table, validated against the actions its families
count, and the prices of action counts.

Each family declares its energy actions and the energy unit each belongs to
(:attr:`rlaccel.tlm.model.Family.actions`); the ``[energy]`` table must price exactly those
actions (picojoules per action, per word for memories) plus ``clock`` (clock tree and leakage,
per cycle, charged to the ``control`` unit). Interconnects price their own words
(``[interconnect] energy_pj_per_word``).
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
                 clock: float):
        self.prices = dict(prices)
        self.unit_of = dict(unit_of)
        self.units = units
        self.clock = clock

    @classmethod
    def from_table(cls, table: Mapping, unit_of: Mapping[str, str], origin: str
                   ) -> "EnergyTable":
        """Validate ``table`` (the ``[energy]`` table of ``origin``) against the actions
        ``unit_of`` declares (action -> energy unit)."""
        names = [*unit_of, "clock"]
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
