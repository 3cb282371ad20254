"""Temporal decoupling: an initiator runs ahead of SimPy and synchronises once per quantum.

A :class:`QuantumKeeper` holds how far its initiator is ahead of ``env.now`` (its *local
time*). The initiator adds the delays its transactions return (:meth:`QuantumKeeper.inc`) and
yields to SimPy only when :meth:`QuantumKeeper.need_sync` says its current time reached the
next quantum boundary -- a multiple of the quantum Q, as in TLM-2.0, so that the initiators of
one system meet at the same boundaries. Each synchronisation moves SimPy past at least one
boundary, so an initiator yields at most once per Q cycles of its time, plus the explicit
syncs it asks for (before it waits on anything else: the host, an event, another unit --
:meth:`QuantumKeeper.wait` does both).

The global quantum belongs to one simulation (:func:`set_global_quantum` on its environment);
a keeper made without ``quantum`` follows it, taking a change into account at its next sync.

Typical loop::

    qk = QuantumKeeper(env)
    while running:
        qk.local_time = socket.b_transport(payload, qk.local_time)
        if qk.need_sync():
            yield from qk.sync()
    yield from qk.sync()
"""

from __future__ import annotations

from typing import Generator
from weakref import WeakKeyDictionary

import simpy

from rlaccel.util.errors import SimError

__all__ = ["DEFAULT_QUANTUM", "QuantumKeeper", "global_quantum", "set_global_quantum"]

#: cycles of the global quantum when a simulation sets none (1 microsecond at 1 GHz)
DEFAULT_QUANTUM = 1000

_GLOBAL: WeakKeyDictionary[simpy.Environment, int] = WeakKeyDictionary()


def _check_quantum(cycles: int) -> int:
    if not isinstance(cycles, int) or isinstance(cycles, bool) or cycles < 1:
        raise SimError(f"quantum must be a positive integer number of cycles, not {cycles!r}")
    return cycles


def set_global_quantum(env: simpy.Environment, cycles: int) -> None:
    """Set the global quantum of the simulation run by ``env``."""
    _GLOBAL[env] = _check_quantum(cycles)


def global_quantum(env: simpy.Environment) -> int:
    """The global quantum of ``env``'s simulation (:data:`DEFAULT_QUANTUM` if never set)."""
    return _GLOBAL.get(env, DEFAULT_QUANTUM)


class QuantumKeeper:
    """The local time of one initiator and when it must yield to SimPy.

    ``quantum`` -- cycles; None follows the global quantum of ``env``.
    ``local_time`` -- cycles ahead of ``env.now`` (read and write it directly on hot paths).
    ``syncs`` -- how many times :meth:`sync` yielded to SimPy.
    """

    __slots__ = ("env", "_quantum", "local_time", "syncs", "_budget")

    def __init__(self, env: simpy.Environment, quantum: int | None = None):
        self.env = env
        self._quantum = None if quantum is None else _check_quantum(quantum)
        self.local_time = 0
        self.syncs = 0
        self._budget = 0
        self.reset()

    @property
    def quantum(self) -> int:
        """The quantum in force: the keeper's own, else the global one."""
        return self._quantum if self._quantum is not None else global_quantum(self.env)

    @quantum.setter
    def quantum(self, cycles: int | None) -> None:
        self._quantum = None if cycles is None else _check_quantum(cycles)
        self._budget = self._boundary(self.env.now) - self.env.now

    def inc(self, cycles: int) -> None:
        """Advance the local time by ``cycles``."""
        self.local_time += cycles

    def set(self, cycles: int) -> None:
        """Set the local time (e.g. to the delay a transaction returned)."""
        self.local_time = cycles

    @property
    def current_time(self) -> int:
        """The initiator's time: ``env.now`` plus the local time."""
        return self.env.now + self.local_time

    def need_sync(self) -> bool:
        """True when the initiator's time reached the next quantum boundary."""
        # The budget is the boundary minus env.now at the last reset: reading env.now here
        # would double the cost of the check, and env.now only moves while the initiator
        # waits, after which it calls reset() (sync() and wait() do).
        return self.local_time >= self._budget

    def sync(self) -> Generator[simpy.Event, None, None]:
        """Yield to SimPy for the local time, then start a new quantum (``yield from``).

        Does not yield when the local time is zero.
        """
        if self.local_time:
            self.syncs += 1
            yield self.env.timeout(self.local_time)
        self.reset()

    def wait(self, event: simpy.Event) -> Generator[simpy.Event, object, object]:
        """Sync, wait for ``event`` and start a new quantum; returns the event's value.

        Use it (``value = yield from qk.wait(event)``) wherever the initiator waits on
        something other than time: the host, another unit, a resource.
        """
        yield from self.sync()
        value = yield event
        self.reset()
        return value

    def reset(self) -> None:
        """Forget the local time and aim at the quantum boundary after ``env.now``.

        Call it after the initiator waited on something other than :meth:`sync`.
        """
        self.local_time = 0
        now = self.env.now
        self._budget = self._boundary(now) - now

    def _boundary(self, now: int) -> int:
        q = self.quantum
        return (now // q + 1) * q

    def __repr__(self) -> str:
        return (f"QuantumKeeper(quantum={self.quantum}, now={self.env.now}, "
                f"local_time={self.local_time}, syncs={self.syncs})")
