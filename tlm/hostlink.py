"""The host side: the link to the accelerator and the host's own time line.

``cc.host`` hands the output buffer to the link; the host driver (``programs/<family>/``)
steps the environment and answers with the words to write back. Each direction of the link is
an :class:`~rlaccel.tlm.core.AccessTiming` (a latency per transfer plus the words at the
link's width), read from the architecture's ``[hostlink]`` table::

    [hostlink]
    latency = 20              # cycles per transfer, each way
    words_per_cycle = 1.0     # link width (a fraction: several cycles per word)
    host_cycles = 0           # modelled host compute per exchange (0: answers at once)
    [hostlink.to_host]        # optional: the device -> host direction, if it differs
    latency = 30

The host keeps a :class:`HostTimeline` of its own: wall-clock seconds it spent per category
(environment steps, replay sampling, ...; measured on this machine, so they are reported
beside the simulated time, under a report's ``timing``, and never change it) and the modelled
transfer cycles per direction.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from math import isfinite
from typing import Mapping, Protocol

import numpy as np

from rlaccel.isa.arch import check_keys
from rlaccel.util.errors import ArchError, SimError

from rlaccel.tlm.core import AccessTiming

__all__ = ["Host", "HostLink", "HostTimeline", "link_timing", "HOSTLINK_KEYS"]

HOSTLINK_KEYS = ("latency", "words_per_cycle", "host_cycles", "to_host", "to_device")


class Host(Protocol):
    """What a host driver provides to the link."""

    def exchange(self, out: np.ndarray) -> np.ndarray:
        """Take the accelerator's output words (raw), return the reply words (raw)."""

    @property
    def finished(self) -> bool:
        """True once the host has told the program to stop."""


def link_timing(latency, words_per_cycle, where: str) -> AccessTiming:
    """One direction of a link as AccessTiming: ``latency + ceil(words / words_per_cycle)``
    cycles (a fractional width becomes whole beats of several cycles)."""
    if isinstance(latency, bool) or not isinstance(latency, int) or latency < 0:
        raise ArchError(f"{where}: latency must be a whole number of cycles >= 0, "
                        f"not {latency!r}")
    if (isinstance(words_per_cycle, bool) or not isinstance(words_per_cycle, (int, float))
            or not isfinite(words_per_cycle) or words_per_cycle <= 0):
        raise ArchError(f"{where}: words_per_cycle must be a positive number, "
                        f"not {words_per_cycle!r}")
    ratio = Fraction(words_per_cycle).limit_denominator(1 << 16)
    return AccessTiming(latency=latency, per_beat=ratio.denominator, width=ratio.numerator)


def _direction(cfg: Mapping, key: str, origin: str) -> AccessTiming:
    sub = cfg.get(key, {})
    if not isinstance(sub, dict):
        raise ArchError(f"{origin}: [hostlink] {key} must be a table of latency and "
                        f"words_per_cycle")
    check_keys(sub, ("latency", "words_per_cycle"), f"{origin}: [hostlink.{key}]")
    return link_timing(sub.get("latency", cfg.get("latency", 50)),
                       sub.get("words_per_cycle", cfg.get("words_per_cycle", 1.0)),
                       f"{origin}: [hostlink{'.' + key if key in cfg else ''}]")


@dataclass
class HostTimeline:
    """Where the host's time went: measured wall-clock seconds per category and modelled
    transfer cycles per direction."""

    seconds: dict = field(default_factory=dict)
    calls: dict = field(default_factory=dict)
    transfer_cycles: dict = field(default_factory=lambda: {"to_device": 0, "to_host": 0})

    @contextmanager
    def measure(self, category: str):
        """``with timeline.measure("environment"): env.step(a)`` adds the wall time."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(category, time.perf_counter() - t0)

    def add(self, category: str, seconds: float) -> None:
        self.seconds[category] = self.seconds.get(category, 0.0) + seconds
        self.calls[category] = self.calls.get(category, 0) + 1

    def as_dict(self) -> dict:
        return {"measured_s": dict(self.seconds), "calls": dict(self.calls),
                "transfer_cycles": dict(self.transfer_cycles)}

    def simulated(self) -> dict:
        """What does not depend on this computer's speed: calls and modelled cycles."""
        return {"calls": dict(self.calls), "transfer_cycles": dict(self.transfer_cycles)}

    def measured(self) -> dict:
        """What was measured on this computer: seconds per category (a report's
        ``timing``, :mod:`rlaccel.tlm.results`)."""
        return {"measured_s": dict(self.seconds)}


class HostLink:
    """Latency and bandwidth of the host interface in both directions, and its transfers."""

    def __init__(self, host: Host, cfg: Mapping | None = None, origin: str = "[hostlink]"):
        cfg = dict(cfg or {})
        check_keys(cfg, HOSTLINK_KEYS, f"{origin}: [hostlink]")
        self.host = host
        self.to_device = _direction(cfg, "to_device", origin)
        self.to_host = _direction(cfg, "to_host", origin)
        hc = cfg.get("host_cycles", 0)
        if isinstance(hc, bool) or not isinstance(hc, int) or hc < 0:
            raise ArchError(f"{origin}: [hostlink] host_cycles must be a whole number of "
                            f"cycles >= 0, not {hc!r}")
        self.host_cycles = hc
        self.timeline: HostTimeline = getattr(host, "timeline", None) or HostTimeline()
        self.exchanges = 0
        self.words_out = 0
        self.words_in = 0
        self.cycles = 0

    def exchange(self, out: np.ndarray, nin: int) -> tuple[np.ndarray, int]:
        """Send ``out``, get the reply; returns (reply words, cycles the exchange took)."""
        reply = np.asarray(self.host.exchange(out))
        if reply.shape != (nin,):
            raise SimError(f"host link: the host answered {reply.shape} words, the program "
                           f"expects {nin}")
        up, down = self.to_host.delay(len(out)), self.to_device.delay(nin)
        cycles = up + self.host_cycles + down
        self.timeline.transfer_cycles["to_host"] += up
        self.timeline.transfer_cycles["to_device"] += down
        self.exchanges += 1
        self.words_out += len(out)
        self.words_in += nin
        self.cycles += cycles
        return reply, cycles

    def as_dict(self) -> dict:
        return {"exchanges": self.exchanges, "words_out": self.words_out,
                "words_in": self.words_in, "cycles": self.cycles}
