"""What ``bench/speed.py`` times for a machine: its :class:`Workload`, named by the machine's
descriptor (``Machine.speed``), so the bench keeps no list of machines.

A workload is a manifest of the machine run through the simulator for a budget of trials
or environment steps (``rlaccel run MANIFEST --trials N`` or ``--steps N``), and the
machine's float reference (the learner the accelerator's arithmetic is compared with: in
numpy, no simulator) run for the same budget. The bench runs both at a small and a large
budget and divides the difference of their CPU times by the difference of their
environment steps, so set-up (imports, assembly, building the platform, loading the
compiled loop, making the environment) cancels; ``seeds`` sizes the batch it compares with
as many single runs (``rlaccel run --seeds``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

__all__ = ["Workload", "MODES"]

#: the bench's modes: ``quick`` (at most about a minute a machine) and ``full``
MODES = ("quick", "full")


@dataclass(frozen=True)
class Workload:
    """One machine's speed workload.

    ``title`` -- what it is, for the table (``cart-pole Q6.18``); ``manifest`` -- a manifest
    of the machine's ``programs`` folder; ``option`` -- the run option the budget is given
    in (``trials`` or ``steps``); ``budgets`` -- per mode (:data:`MODES`), the small and the
    large budget; ``steps(report)`` -- the environment steps a run's report made;
    ``reference(budget, seed)`` -- run the float reference for a budget and return its
    environment steps; ``overrides`` and ``arch`` -- the run's ``--set`` values and
    architecture; ``seeds`` -- per mode, ``(members, budget)`` of the batch
    (``rlaccel run --seeds 1-members``) timed against as many single runs.
    """

    title: str
    manifest: str
    option: str
    budgets: Mapping[str, tuple[int, int]]
    steps: Callable[[dict], int]
    reference: Callable[[int, int], int]
    overrides: tuple[str, ...] = ()
    arch: str | None = None
    seeds: Mapping[str, tuple[int, int]] = field(default_factory=dict)
