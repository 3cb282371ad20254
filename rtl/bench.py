"""The test-bench harness every RTL block's bench is built on (STYLE.md item 9).

A bench (:class:`Bench`) is a driver, a monitor and a predictor around the in-order checker
(:mod:`rtl.scoreboard`); it is written once and runs on every level: :func:`rtl.cosim.run`
puts it around the MyHDL block itself, around the block's converted Verilog running in
Icarus (MyHDL co-simulation through the VPI module) or compiled by Verilator (driven from
Python through :mod:`rtl.verilator`), and :mod:`rtl.cocotb_bench` runs it as a cocotb test
under Icarus -- with the same transactions and the same predictions. The seam is the
generator process: the driver, the monitor and the models beside a block are generators
that set ports with ``.next``, read them with ``.val`` and wait on ``clk.negedge``,
``clk.posedge`` or ``delay(n)`` (:func:`processes`); each back end gives them its own
signals (MyHDL's, or proxies of the compiled model's ports) and its own clock. Predictors
are the machines' functional models, never a second copy of the arithmetic. Each machine's
benches live in its package (``machines/<name>/rtl/benches.py``) and are named in its
descriptor (``MACHINE.blocks``).

The skeleton is written once, here (:func:`testbench`): out of reset; every transaction
through the bench's :meth:`Bench.drive`, handed to the scoreboard with its coverage when it
goes in (:meth:`BenchRun.applied`) and compared when it comes out; the drain after the last
one; the predictions never observed counted as mismatches; the end. A bench writes only
what is its block's -- the transactions with their predictions, and how its ports are driven
and read -- in one of two shapes:

* transaction in, observation out (:class:`Bench`): :meth:`Bench.drive` applies one
  transaction, waits for the block (a load port, ``start``, ``done``) and returns what it
  read;
* pipelined (:class:`PipelineBench`): transactions go in back to back and the monitor reads
  each one's outputs a fixed latency after it went in.

Drivers run at the falling clock edge (cycle k's inputs are sampled by the rising edge that
ends cycle k) and read the outputs there too. The port handshakes a bench shares with its
block's transactor are in :mod:`rtl.drive`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable

import numpy as np
from myhdl import StopSimulation, block, instance

from rlaccel.rtl.scoreboard import Scoreboard, Txn

__all__ = ["Bench", "PipelineBench", "BenchRun", "Stats", "processes", "testbench"]


@dataclass
class Stats:
    """What a run counts: the rising clock edges."""

    cycles: int = 0


class BenchRun:
    """One run of a bench: the block's port signals (``ports``), the clock and the cycle
    count -- what a driver of :mod:`rtl.drive` takes, as a transactor's
    :class:`rtl.jobs.JobSim` has them --, the parameters, the scoreboard and the coverage.
    ``due`` holds what the driver has put in flight for the monitor; a bench keeps the rest
    of its run's state here too (:meth:`Bench.setup`)."""

    def __init__(self, bench: "Bench", clk, ports: dict, prm, board: Scoreboard,
                 stats: Stats):
        self.bench, self.clk, self.ports, self.prm = bench, clk, ports, prm
        self.board, self._stats = board, stats
        self.coverage: dict = {}
        board.extra = {"coverage": self.coverage}
        self.due: deque = deque()
        self.stopped = False
        self.drained = False
        #: the cycle the drain ended at (None before): a monitor that ends the run waits
        #: for a later edge, whichever process an edge wakes first
        self.drained_at: int | None = None

    @property
    def cycles(self) -> int:
        """Rising clock edges so far."""
        return self._stats.cycles

    def applied(self, txn: Txn, cycle: int | None = None) -> None:
        """``txn`` went in (at ``cycle``, default this one): the scoreboard expects its
        prediction and the coverage counts it."""
        txn.cycle = self.cycles if cycle is None else cycle
        self.board.expect(txn)
        self.bench.cover(self, txn)

    def observe(self, actual: dict) -> None:
        """What came out, compared with the oldest transaction in flight."""
        self.board.observe(actual, self.cycles)

    def count(self, key: str) -> None:
        """One more of ``key`` in the coverage."""
        self.coverage[key] = self.coverage.get(key, 0) + 1

    def stop(self) -> None:
        """End the run after this transaction (the block is stuck)."""
        self.stopped = True


class Bench:
    """One block's test bench: a subclass names the block, its parameters and ports, makes
    the transactions with their predictions, and drives and reads the ports (:meth:`drive`,
    and :meth:`monitor` for a pipelined block)."""

    #: the block under test, a MyHDL @block called as ``block(clk, rst, **ports, prm=prm)``
    #: (``block(**ports, prm=prm)`` when it is combinational: ``clocked`` False)
    block = None
    clocked = True
    #: transactions of ``rlaccel cosim`` unless ``--n`` says how many
    default_n = 10_000

    #: the block's parameters of an architecture, ``make_params(arch) -> prm`` (each machine
    #: derives its own from the architecture: :func:`rtl.params.per_arch`, whose default
    #: architecture is the machine's)
    make_params = None
    #: the block's signals for its parameters, ``signals(prm) -> {port: Signal}``, for a bench
    #: that does not override :meth:`ports`
    signals = None

    @property
    def name(self) -> str:
        """The block's name: its MyHDL function's, as the machine's descriptor names it."""
        return self.block.func.__name__

    @property
    def top(self) -> str:
        """The module name of the converted Verilog: the block's."""
        return self.name

    def params(self, arch: str | None = None):
        """The block's parameters for ``arch`` (default: its machine's architecture)."""
        return self.make_params(arch) if arch else self.make_params()

    def ports(self, prm) -> dict:
        """The block's port signals, by name."""
        if self.signals is None:
            raise NotImplementedError
        return self.signals(prm)

    def transactions(self, rng: np.random.Generator, n: int, prm) -> Iterable[Txn]:
        """``n`` random transactions, each with its prediction."""
        raise NotImplementedError

    # ------------------------------------------------------------------ driver and monitor
    def setup(self, h: BenchRun) -> list:
        """Start a run: keep on ``h`` what the driver and the monitor share; return the models
        beside the block, :class:`rtl.memory.Memory` descriptions on ``h``'s ports (the
        datapath's memories). Default: none."""
        return []

    def drive(self, h: BenchRun, txn: Txn):
        """Generator, from a falling edge: apply ``txn`` to the ports (with
        :meth:`BenchRun.applied` when it goes in); return what the block gave back for it,
        or None when the monitor reads it."""
        raise NotImplementedError

    #: the monitor, a generator method ``monitor(h)`` that reads the outputs of transactions
    #: in flight (a pipelined block); None when :meth:`drive` reads them
    monitor = None
    #: True: the run ends when the monitor returns (it returns once it finds ``h.drained``),
    #: not when the drain is over
    monitor_ends = False

    def drain(self, h: BenchRun):
        """Generator: the cycles after the last transaction, until every result is out."""
        yield h.clk.negedge

    def cover(self, h: BenchRun, txn: Txn) -> None:
        """Count what ``txn`` exercises (:meth:`BenchRun.count`): its opcode, and its opcode
        again when it is predicted to saturate."""
        h.count(txn.opcode)
        if any(v is True for k, v in txn.expected.items() if k.startswith("sat")):
            h.count(f"{txn.opcode} saturates")


class PipelineBench(Bench):
    """A pipelined block: transactions go in back to back, and each one's outputs come out
    ``latency`` cycles after its last input, when the monitor reads them (a combinational
    block's, latency 0, on the rising edge that ends the cycle)."""

    latency = 0

    def issue(self, h: BenchRun, txn: Txn, cycle: int | None = None, **measured) -> None:
        """``txn``'s last input goes in now (its first at ``cycle``): the monitor reads its
        outputs ``latency`` cycles from now and adds ``measured`` (what the driver counted)."""
        h.applied(txn, cycle)
        h.due.append((h.cycles + self.latency, txn, measured))

    def sample(self, h: BenchRun, txn: Txn) -> dict:
        """The outputs the monitor reads for ``txn``."""
        raise NotImplementedError

    def idle(self, h: BenchRun) -> None:
        """The inputs after the last transaction (default: left as they are)."""

    def monitor(self, h: BenchRun):
        comb = self.latency == 0              # read on the rising edge that ends the cycle
        while True:
            yield h.clk.posedge if comb else h.clk.negedge
            if h.due and (comb or h.due[0][0] == h.cycles):
                _, txn, measured = h.due.popleft()
                h.observe({**self.sample(h, txn), **measured})

    def drain(self, h: BenchRun):
        yield h.clk.negedge
        self.idle(h)
        for _ in range(self.latency + 1):
            yield h.clk.negedge


def _out_of_reset(clk, rst):
    """Wait out the reset. (A generator of its own, so that MyHDL does not take the driver
    for one that yields clock edges only: a bench's driver may wait on a delay.)"""
    while rst:
        yield clk.negedge


def processes(bench: Bench, h: BenchRun, rst, txns: Iterable[Txn], serve=None) -> list:
    """The processes of a run of ``bench``, each a generator with whether the run ends when
    it returns: the models beside the block (:meth:`Bench.setup`'s memories), the driver
    (out of reset, every transaction of ``txns``, the drain) and the monitor of a pipelined
    block. Every back end runs these same generators: MyHDL as instances
    (:func:`testbench`), the Verilator kernel (:mod:`rtl.verilator.kernel`), cocotb
    (:mod:`rtl.cocotb_bench`). ``serve``: a back end's own engine for the memories
    (Verilator's shim), each memory handed to it instead of becoming a process."""
    def driver():
        yield from _out_of_reset(h.clk, rst)
        for txn in txns:
            got = yield from bench.drive(h, txn)
            if got is not None:
                h.observe(got)
            if h.stopped:
                break
        yield from bench.drain(h)
        h.drained = True
        h.drained_at = h.cycles

    procs = []
    for m in bench.setup(h):
        if serve is None:
            procs.append((m.process(h), False))
        else:
            serve(m)
    procs.append((driver(), not bench.monitor_ends))
    if bench.monitor is not None:
        procs.append((bench.monitor(h), True))
    return procs


def _body(gen, then):
    """A generator function (of no arguments, as MyHDL's ``instance`` takes) running ``gen``,
    then calling ``then`` (if any)."""
    def process():
        yield from gen
        if then is not None:
            then()
    return process


@block
def testbench(bench: Bench, clk, rst, ports: dict, txns: Iterable[Txn], board: Scoreboard,
              prm, stats: Stats):
    """The processes of ``bench`` (:func:`processes`) around its block's MyHDL ports, as
    MyHDL instances: the simulation ends when the driver (or the monitor) returns."""
    h = BenchRun(bench, clk, ports, prm, board, stats)

    def end():
        board.finish(stats.cycles)
        raise StopSimulation

    insts = []
    for gen, ends in processes(bench, h, rst, txns):
        # instance() called here, not in a comprehension: MyHDL wants a block's instances
        # made in the block's own function
        insts.append(instance(_body(gen, end if ends else None)))
    return insts
