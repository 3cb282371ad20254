"""Where a run's headline figures are: what a machine's plug-in declares
(:meth:`~rlaccel.programs.plugin.Plugin.headline`) for the common block of every run's
summary (:mod:`.summary`)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Headline", "Throughput", "measured"]


@dataclass(frozen=True)
class Throughput:
    """The throughput measure of a machine's paper: its name, value and unit (``IPS``,
    ``inferences/s``); ``note`` says in a few words what it counts or how it was taken."""

    name: str
    value: float
    unit: str
    note: str = ""


def measured(name: str, value: float | None, unit: str, note: str = "") -> Throughput | None:
    """The throughput measure of a run that measured it (``value`` neither None nor 0), else
    None (the :class:`Headline`'s ``no_throughput`` then says why)."""
    return Throughput(name, value, unit, note) if value else None


@dataclass(frozen=True)
class Headline:
    """Where a run's headline figures are (what :meth:`Plugin.headline` returns).

    ``utilisation``: ``{what: fraction}`` in the order to print (``{"MAC lanes": 0.30}``);
    ``throughput``: the paper's measure, or None with ``no_throughput`` saying why;
    ``env_steps``: the environment steps the run took (None: not counted, with ``steps_note``
    saying why); ``steps_what`` names them when they are not plain steps (``environment
    calls (steps and resets)``)."""

    utilisation: dict = field(default_factory=dict)
    throughput: Throughput | None = None
    no_throughput: str = "the machine's plug-in names no throughput measure"
    env_steps: int | None = None
    steps_what: str = "environment steps"
    steps_note: str = "the machine's plug-in does not count them"
