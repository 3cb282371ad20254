"""Access timing of a memory port: a fixed latency per access plus a cost per beat.

Time is counted in clock cycles of the accelerator (integers); components turn cycles into
seconds with the clock of their architecture.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.util.errors import SimError

__all__ = ["AccessTiming"]


@dataclass(frozen=True, slots=True)
class AccessTiming:
    """``latency + per_beat * ceil(words / width)`` cycles for an access of ``words`` words.

    ``latency`` -- cycles paid once per access (address decode, pipeline of the array);
    ``per_beat`` -- cycles per beat; ``width`` -- words moved per beat (the port width).
    With the default ``width=1`` a beat is a word and ``per_beat`` is the cost per word.
    """

    latency: int = 1
    per_beat: int = 0
    width: int = 1

    def __post_init__(self) -> None:
        for name in ("latency", "per_beat", "width"):
            value = getattr(self, name)
            low = 1 if name == "width" else 0
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise SimError(f"access timing: {name} must be an integer >= {low}, "
                               f"not {value!r}")

    def delay(self, words: int) -> int:
        """Cycles for one access of ``words`` words."""
        return self.latency + self.per_beat * (-(-words // self.width))

    def plus(self, latency: int) -> AccessTiming:
        """The same port seen through a hop that adds ``latency`` cycles per access."""
        return AccessTiming(self.latency + latency, self.per_beat, self.width)
