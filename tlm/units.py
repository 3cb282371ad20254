"""A unit of an agent: a piece of hardware with its own busy time (the datapath, the scalar
unit, an Adam unit, a PRNG, a compute unit of a pipeline, one core of an array, ...).

Units exist as soon as an instruction model names one in its :class:`~rlaccel.tlm.model.Cost`.
An instruction starts only when every unit it occupies is free; each keeps working for its
busy cycles while the controller goes on issuing, so units overlap in time.
"""

from __future__ import annotations

__all__ = ["Unit"]


class Unit:
    """``free`` -- the cycle from which the unit can take new work; ``busy`` -- cycles it
    has worked in the run (counted by the controller)."""

    __slots__ = ("name", "free", "busy")

    def __init__(self, name: str):
        self.name = name
        self.free = 0
        self.busy = 0

    def __repr__(self) -> str:
        return f"Unit({self.name!r}, free={self.free}, busy={self.busy})"
