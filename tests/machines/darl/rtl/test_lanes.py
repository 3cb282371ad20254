"""DARL's regression processing element and update lane (machines/darl/rtl/lanes.py), the RTL
whose synthesis prices the regression arrays and the update cache: their arithmetic against
the fixed-point formulas, in MyHDL, over random words, including saturation; and the
architecture's resource rows are of the units the regression and the update take."""

import random

from myhdl import ResetSignal, Signal, Simulation, StopSimulation, delay, instance

from rlaccel.isa.arch import load_arch
from rlaccel.rtl.signals import sig_signed
from rlaccel.tlm.cost import resources_of
from rlaccel.machines.darl.rtl.lanes import (accumulator_bits, darl_regression_pe,
                                             darl_update_lane)

B, F = 32, 16
TOP, BOTTOM = (1 << 31) - 1, -(1 << 31)


def _clocked(dut_of, drive):
    clk, rst = Signal(bool(0)), ResetSignal(0, active=1, isasync=False)
    dut = dut_of(clk, rst)

    @instance
    def clock():
        while True:
            yield delay(1)
            clk.next = not clk

    sim = Simulation(dut, clock, drive(clk))
    sim.run(quiet=True)


def test_regression_pe_sums_exact_products_and_restarts_on_a_row():
    rng = random.Random(5)
    x, w, first = sig_signed(B), sig_signed(B), Signal(bool(0))
    acc = sig_signed(accumulator_bits(B, 128))
    rows = [[(rng.randrange(BOTTOM, TOP), rng.randrange(BOTTOM, TOP)) for _ in range(k)]
            for k in (5, 1, 7)]
    got = []

    def drive(clk):
        @instance
        def stim():
            stream = [(a, b, j == 0) for row in rows for j, (a, b) in enumerate(row)]
            stream += [(0, 0, True)] * 3
            ends = {sum(len(r) for r in rows[:i + 1]) for i in range(len(rows))}
            for n, (a, b, f) in enumerate(stream):
                x.next, w.next, first.next = a, b, f
                yield clk.posedge
                # stim reads acc at an edge before the edge updates it: the row ending at
                # element e is in acc (product at edge e, sum at e + 1) as read at edge e + 2
                if n - 1 in ends:
                    got.append(int(acc))
            raise StopSimulation()
        return stim

    _clocked(lambda clk, rst: darl_regression_pe(clk, rst, x, w, first, acc, bits=B), drive)
    assert got == [sum(a * b for a, b in row) for row in rows]


def _round_sat(p: int) -> int:
    return max(BOTTOM, min(TOP, (p + (1 << (F - 1))) >> F))


def test_update_lane_rounds_saturates_and_merges():
    rng = random.Random(6)
    v, x, q, u, qu = (sig_signed(B) for _ in range(5))
    cases = [(rng.randrange(-1 << 20, 1 << 20), rng.randrange(-1 << 17, 1 << 17),
              rng.randrange(BOTTOM, TOP)) for _ in range(40)]
    cases += [(TOP, TOP, 0), (BOTTOM, TOP, 0), (1 << 16, 1 << 20, TOP - 5)]   # saturations
    got = []

    def drive(clk):
        @instance
        def stim():
            # q is the model element u lands on, a cycle after v and x: case i's q is set
            # with case i + 1's v and x
            prev = 0
            for a, b, c in cases + [(0, 0, 0)] * 2:
                v.next, x.next, q.next = a, b, prev
                prev = c
                yield clk.posedge
                got.append((int(u), int(qu)))       # read before this edge's update
            raise StopSimulation()
        return stim

    _clocked(lambda clk, rst: darl_update_lane(clk, rst, v, x, q, u, qu, bits=B, frac=F),
             drive)
    us = [_round_sat(a * b) for a, b, _ in cases]
    assert [g[0] for g in got[1:len(cases) + 1]] == us
    merged = [max(BOTTOM, min(TOP, c + uu)) for (_, _, c), uu in zip(cases, us)]
    assert [g[1] for g in got[2:len(cases) + 2]] == merged
    assert TOP in us and BOTTOM in us and TOP in merged          # the saturations were hit


def test_resources_count_the_arrays_per_action_and_lane():
    arch = load_arch("darl")
    one = resources_of(arch, extra={"actions": 2}).as_dict()
    four = resources_of(arch, extra={"actions": 4}).as_dict()
    reg = one["units"]["regression"]
    assert reg["count"] == 4 * 2 * arch.knobs.lanes
    assert four["units"]["regression"]["count"] == 2 * reg["count"]
    assert one["units"]["update"]["count"] == 2 * arch.knobs.lanes
    assert four["lut"] - one["lut"] == 2 * 4 * arch.knobs.lanes * reg["lut"] / reg["count"]
