"""rtl.jobs, on both back ends: a job simulation gives a job :func:`rtl.job_base.job_allowance` cycles, then stops
it with the error :func:`rtl.job_base.job_overrun` makes; a job that returns in time gives its
value."""

from types import SimpleNamespace

import pytest
from myhdl import Signal, always_seq, block, intbv

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.job_base import job_allowance
from rlaccel.rtl.jobs import JOB_BACKENDS, job_sim
from rlaccel.util.errors import SimError

PRM = SimpleNamespace(arch=SimpleNamespace(knobs=SimpleNamespace(clock_mhz=100)))


@block
def _counter(clk, rst, q, *, prm):
    @always_seq(clk.posedge, reset=rst)
    def count():
        q.next = (q + 1) % 256
    return count


@pytest.fixture(params=JOB_BACKENDS)
def backend(request):
    if request.param == "verilator":
        request.getfixturevalue("hdl_tools")
    return request.param


def _sim(backend="myhdl"):
    return job_sim(backend, _counter, {"q": Signal(intbv(0)[8:])}, PRM, "counter")


def test_the_allowance_is_four_budgets_and_64_cycles():
    assert [job_allowance(b) for b in (0, 1, 10)] == [64, 68, 104]


def test_a_job_in_time_returns_its_value(backend):
    sim = _sim(backend)

    def job(io):
        start = io.cycles
        for _ in range(5):
            yield io.clk.negedge
        return io.cycles - start

    try:
        assert sim.run(job, budget=5) == 5
    finally:
        sim.close()


def test_a_job_past_its_allowance_stops_with_the_overrun_error(backend):
    sim = _sim(backend)

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


def test_a_closed_simulation_refuses_a_job_and_closes_once(backend):
    sim = _sim(backend)
    sim.close()
    sim.close()
    with pytest.raises(RtlError, match="the RTL counter is closed"):
        sim.run(lambda io: iter(()), budget=1)
