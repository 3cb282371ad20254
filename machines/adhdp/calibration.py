"""The per-cycle energy of the ADHDP chips against the paper's power, and how much the VU
gains depend on it.

The cost model (``tlm/cost``) derives every energy of ``machines/adhdp/archs/adhdp.toml``,
the per-cycle ``clock`` (the registers' clock and the leakage) included; none is fitted. The
paper gives one power figure, 25 mW at 175 MHz (Table II), which is what the result is
compared with. A run's energy is ``E = E_dyn + clock * cycles`` (``E_dyn``: the priced
actions), so its power is ``E_dyn / T + clock * f``: :func:`clock_for_power` gives the
per-cycle energy that would make the mean power of several runs a given figure (how far the
derived one is from what the paper's 25 mW would need), and because energy is linear in
``clock`` the VU gains at any other value follow from the same runs (:func:`energy_at`),
which is how the report publishes their sensitivity to it.
"""

from __future__ import annotations

from typing import Iterable

from rlaccel.util.errors import RlaccelError

__all__ = ["PAPER_POWER_MW", "clock_for_power", "dynamic_energy", "energy_at"]

#: the ADHDP paper, Table II: power at 175 MHz (the comparison, never an input)
PAPER_POWER_MW = 25.0


def dynamic_energy(energy_pj: float, cycles: float, clock_pj: float) -> float:
    """A figure's energy without its per-cycle part."""
    return energy_pj - clock_pj * cycles


def energy_at(energy_pj: float, cycles: float, clock_pj: float, new_clock_pj: float) -> float:
    """The energy the same run would have with ``new_clock_pj`` per cycle."""
    return dynamic_energy(energy_pj, cycles, clock_pj) + new_clock_pj * cycles


def clock_for_power(runs: Iterable[dict], clock_pj: float, clock_mhz: float,
                    target_mw: float = PAPER_POWER_MW) -> float:
    """The ``clock`` (pJ per cycle) that makes the mean power of ``runs`` equal
    ``target_mw``; each run is ``{"energy_pj", "cycles"}`` measured with ``clock_pj``."""
    runs = list(runs)
    if not runs:
        raise RlaccelError("the comparison needs at least one run")
    f = clock_mhz * 1e6
    dyn_mw = [dynamic_energy(r["energy_pj"], r["cycles"], clock_pj) * 1e-12
              / (r["cycles"] / f) * 1e3 for r in runs]
    mean = sum(dyn_mw) / len(dyn_mw)
    if mean >= target_mw:
        raise RlaccelError(f"the priced actions alone draw {mean:.2f} mW on average, more than "
                           f"the {target_mw} mW: no per-cycle energy reaches it")
    return (target_mw - mean) * 1e-3 / f * 1e12
