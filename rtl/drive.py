"""Driving a block's ports from a generator: the handshakes the benches and the transactors
share.

A driver runs at the falling clock edge: it sets inputs with ``.next`` and waits with
``yield io.clk.negedge`` (or a ``delay``, for combinational outputs to settle). ``io`` is
what a bench's run (:class:`rtl.bench.BenchRun`) and a transactor's simulation
(:class:`rtl.jobs.JobSim`) both have: ``io.ports``, the block's port signals by name,
``io.clk`` and ``io.cycles``, the rising edges so far. Use these with ``yield from``; each
block's own sequences (``machines/<name>/rtl/*_driver.py``) are built on them.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["write", "run_to_done"]


def write(io, we: str, writes: Iterable[dict]):
    """One write a cycle through a write port: ``we`` high with each write's
    ``{port: value}``, then low."""
    s = io.ports
    for w in writes:
        s[we].next = True
        for port, v in w.items():
            s[port].next = v
        yield io.clk.negedge
    s[we].next = False


def run_to_done(io, budget: int | None = None):
    """``start`` was raised this cycle (with its operands): lower it at the next falling edge
    and wait for ``done``. Returns the cycles from start's cycle to done's, or None when
    ``done`` has not come ``budget`` cycles after ``start`` (a stuck block)."""
    s = io.ports
    t0 = io.cycles
    yield io.clk.negedge
    s["start"].next = False
    until = getattr(io.clk, "until", None)
    limit = None if budget is None else t0 + budget
    while not s["done"].val and (limit is None or io.cycles < limit):
        # the same falling edges as one wait, where the back end's clock has it (the
        # Verilator kernel then clocks the model through them in compiled code)
        yield io.clk.negedge if until is None else until(s["done"], limit)
    return io.cycles - t0 if s["done"].val else None
