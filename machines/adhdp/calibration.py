"""The one fitted energy constant of the ADHDP chips, and how much the VU gains depend on it.

Every ``[energy]`` constant of ``machines/adhdp/archs/adhdp.toml`` comes from a cited 65 nm figure except
``clock`` (picojoules per cycle: clock tree, flip-flops, control and leakage), which the seed
does not give apart. The seed gives one number for it to meet: the chip draws 25 mW at
175 MHz (Table II). A run's energy is ``E = E_dyn + clock * cycles`` (``E_dyn``: the priced
actions), so its power is ``E_dyn / T + clock * f``; :func:`calibrate_clock` sets ``clock`` so
that the mean power of several runs (the baseline chip on the three network sizes of
Fig. 11-13, together) is the target. Because energy is linear in ``clock``, the VU gains at
any other value follow from the same runs (:func:`energy_at`), which is how the report
publishes their sensitivity.
"""

from __future__ import annotations

from typing import Iterable

from rlaccel.util.errors import RlaccelError

__all__ = ["SEED_POWER_MW", "calibrate_clock", "dynamic_energy", "energy_at"]

#: seed 001, Table II: power at 175 MHz
SEED_POWER_MW = 25.0


def dynamic_energy(energy_pj: float, cycles: float, clock_pj: float) -> float:
    """A figure's energy without its per-cycle part."""
    return energy_pj - clock_pj * cycles


def energy_at(energy_pj: float, cycles: float, clock_pj: float, new_clock_pj: float) -> float:
    """The energy the same run would have with ``new_clock_pj`` per cycle."""
    return dynamic_energy(energy_pj, cycles, clock_pj) + new_clock_pj * cycles


def calibrate_clock(runs: Iterable[dict], clock_pj: float, clock_mhz: float,
                    target_mw: float = SEED_POWER_MW) -> float:
    """The ``clock`` (pJ per cycle) that makes the mean power of ``runs`` equal
    ``target_mw``; each run is ``{"energy_pj", "cycles"}`` measured with ``clock_pj``."""
    runs = list(runs)
    if not runs:
        raise RlaccelError("calibration needs at least one run")
    f = clock_mhz * 1e6
    dyn_mw = [dynamic_energy(r["energy_pj"], r["cycles"], clock_pj) * 1e-12
              / (r["cycles"] / f) * 1e3 for r in runs]
    mean = sum(dyn_mw) / len(dyn_mw)
    if mean >= target_mw:
        raise RlaccelError(f"the priced actions alone draw {mean:.2f} mW on average, more than "
                           f"the {target_mw} mW to calibrate to: no clock energy can be set")
    return (target_mw - mean) * 1e-3 / f * 1e12
