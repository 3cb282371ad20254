"""rtl.jobs: a job simulation gives a job :func:`rtl.errors.job_allowance` cycles, then stops
it with the error :func:`rtl.errors.job_overrun` makes; a job that returns in time gives its
value."""

from types import SimpleNamespace

import pytest
from myhdl import Signal, always_seq, block, intbv

from rlaccel.rtl.errors import job_allowance
from rlaccel.rtl.jobs import JobSim
from rlaccel.util.errors import SimError

PRM = SimpleNamespace(arch=SimpleNamespace(knobs=SimpleNamespace(clock_mhz=100)))


@block
def _counter(clk, rst, q, *, prm):
    @always_seq(clk.posedge, reset=rst)
    def count():
        q.next = (q + 1) % 256
    return count


def _sim():
    return JobSim(_counter, {"q": Signal(intbv(0)[8:])}, PRM, "counter")


def test_the_allowance_is_four_budgets_and_64_cycles():
    assert [job_allowance(b) for b in (0, 1, 10)] == [64, 68, 104]


def test_a_job_in_time_returns_its_value():
    sim = _sim()

    def job(io):
        start = io.cycles
        for _ in range(5):
            yield io.clk.negedge
        return io.cycles - start

    try:
        assert sim.run(job, budget=5) == 5
    finally:
        sim.close()


def test_a_job_past_its_allowance_stops_with_the_overrun_error():
    sim = _sim()

    def forever(io):
        while True:
            yield io.clk.negedge

    try:
        start = sim.cycles
        with pytest.raises(SimError, match=r"the RTL counter did not finish the count in \d+ "
                                           r"cycles \(expected about 3\)"):
            sim.run(forever, budget=3, task="the count")
        assert job_allowance(3) < sim.cycles - start <= job_allowance(3) + 5
    finally:
        sim.close()
