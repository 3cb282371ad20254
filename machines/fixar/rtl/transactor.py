"""The FIXAR PRNG transactor: ``rlaccel run <fixar manifest> --rtl fixar_prng`` draws every
exploration-noise sample from the MyHDL generator (:mod:`.prng`).

``Platform`` calls :meth:`RtlPrng.attach` with the agent; the transactor takes over the
agent's PRNG streams (``FixarState.seed``): a seeded stream is an :class:`RtlStream` whose
registers the host computes as :class:`tlm.families.fixar.prng.NoiseGenerator` does
(splitmix64) and loads into the RTL; ``gaussian_raw(n)`` clocks the generator until ``n``
samples are out. One register set serves every stream: switching streams reads the current
one's registers back and loads the other's. The TLM keeps its own timing; every request's
enabled cycles are checked against ``unit_cycles(n, prng_lanes)``.
MyHDL runs one simulation per process: call :meth:`close` before starting another.
"""

from __future__ import annotations

import time

import numpy as np
from myhdl import ResetSignal, Signal, Simulation, block, instance

from rlaccel.util.errors import SimError
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
from rlaccel.machines.fixar.tlm.timing import unit_cycles

from rlaccel.rtl.bench import counted_clock
from rlaccel.rtl.errors import RtlError
from rlaccel.machines.fixar.rtl.params import fixar_params
from rlaccel.machines.fixar.rtl.prng import fixar_prng, prng_signals

__all__ = ["RtlPrng", "RtlStream"]

_HALF = 5


class RtlStream:
    """A PRNG stream served by the RTL (the interface of ``NoiseGenerator`` the machine
    uses: ``gaussian_raw``, ``gaussian``, ``state``, ``restore``)."""

    def __init__(self, owner: "RtlPrng", seed: int, stream: int, lanes: int):
        self.owner, self.seed, self.stream, self.lanes = owner, int(seed), int(stream), lanes
        self.regs = NoiseGenerator(seed, stream, lanes).state()   # the host's seeding
        self.cycles = 0

    def gaussian_raw(self, n: int) -> np.ndarray:
        if n < 0:
            raise SimError(f"PRNG: cannot draw {n} samples")
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        return self.owner.draw(self, n)

    def gaussian(self, n: int) -> np.ndarray:
        return self.gaussian_raw(n).astype(np.float64) * 2.0 ** -16

    def state(self) -> np.ndarray:
        self.owner.save(self)
        return self.regs.copy()

    def restore(self, regs) -> None:
        regs = np.asarray(regs, dtype=np.uint32)
        if regs.shape != self.regs.shape or not regs.all():
            raise SimError(f"PRNG: a state must be {self.regs.shape} nonzero words")
        self.regs = regs.copy()
        if self.owner.loaded is self:
            self.owner.loaded = None              # reload on the next draw


class _Box:
    def __init__(self):
        self.job = None          # ("load", rows) | ("read",) | ("run", n)
        self.result = None
        self.cycles = 0


class RtlPrng:
    """A ``datapath=`` for a FIXAR platform whose PRNG streams run on the MyHDL generator."""

    def __init__(self):
        self.requests = 0
        self.samples = 0
        self.rtl_cycles = 0
        self.switches = 0
        self.cycle_mismatches = 0
        self.first_mismatch = ""
        self.wall_s = 0.0
        self.loaded: RtlStream | None = None
        self._sim = None

    def attach(self, agent) -> None:
        from rlaccel.machines.fixar.tlm.state import state_of
        st = state_of(agent)
        prm = fixar_params(agent.arch)
        if prm.prng_lanes != st.prng_lanes:
            raise RtlError(f"the RTL PRNG has {prm.prng_lanes} lanes, the machine "
                           f"{st.prng_lanes}")
        self.prm = prm
        ports = prng_signals(prm)
        clk = Signal(bool(0))
        rst = ResetSignal(1, active=1, isasync=False)
        box = self._box = _Box()
        L = prm.prng_lanes

        @block
        def bench():
            dut = fixar_prng(clk, rst, **ports, prm=prm)

            def tick():
                box.cycles += 1

            clock = counted_clock(clk, tick, _HALF)

            @instance
            def driver():
                yield clk.negedge
                yield clk.negedge
                rst.next = 0
                while True:
                    yield clk.negedge
                    job = box.job
                    if job is None or box.result is not None:
                        continue
                    if job[0] == "load":
                        for j, row in enumerate(job[1]):
                            for k, v in enumerate(row):
                                ports["ld_we"].next = True
                                ports["ld_lane"].next = j
                                ports["ld_reg"].next = k
                                ports["ld_data"].next = int(v)
                                yield clk.negedge
                        ports["ld_we"].next = False
                        box.result = True
                    elif job[0] == "read":
                        rows = []
                        for j in range(L):
                            row = []
                            for k in range(prm.prng_registers):
                                ports["rd_lane"].next = j
                                ports["rd_reg"].next = k
                                yield clk.negedge
                                row.append(int(ports["rd_data"].val))
                            rows.append(row)
                        box.result = rows
                    else:
                        n, got, cycles = job[1], [], 0
                        ports["en"].next = True
                        while len(got) < n:
                            cycles += 1
                            yield clk.negedge
                            bus = int(ports["g"].val)
                            if ports["valid"].val:
                                for j in range(L):
                                    v = (bus >> (32 * j)) & 0xFFFFFFFF
                                    got.append(v - (1 << 32) if v >> 31 else v)
                            if len(got) >= n:
                                ports["en"].next = False
                        box.result = (got[:n], cycles)

            return dut, clock, driver

        self._sim = Simulation(bench())
        self._sim.run(4 * 2 * _HALF, quiet=1)
        st.seed = self._seeder(st)
        for s, g in list(st.prng.items()):       # streams seeded before the attach
            st.prng[s] = self._from(g)

    def _seeder(self, st):
        def seed(s: int, seed: int) -> None:
            old = st.prng.get(s)
            if old is self.loaded and old is not None:
                self.loaded = None
            st.prng[s] = RtlStream(self, seed, s, self.prm.prng_lanes)
        return seed

    def _from(self, g: NoiseGenerator) -> RtlStream:
        r = RtlStream(self, g.seed, g.stream, g.lanes)
        r.regs = g.state()
        return r

    # ---------------------------------------------------------------------------------------
    def _do(self, job, budget: int):
        if self._sim is None:
            raise RtlError("the RTL PRNG is not attached to a system (or was closed)")
        box = self._box
        box.job, box.result = job, None
        spent = 0
        while box.result is None:
            if spent > 4 * budget + 64:
                raise SimError(f"the RTL PRNG did not finish a {job[0]} in {spent} cycles")
            self._sim.run((budget + 2) * 2 * _HALF, quiet=1)
            spent += budget + 2
            budget = 2
        box.job = None
        return box.result

    def save(self, stream: RtlStream) -> None:
        """Read the registers back into ``stream`` if it is the one loaded."""
        if self.loaded is stream:
            stream.regs = np.array(self._do(("read",), stream.regs.size), dtype=np.uint32)

    def draw(self, stream: RtlStream, n: int) -> np.ndarray:
        wall = time.perf_counter()
        if self.loaded is not stream:
            if self.loaded is not None:
                self.save(self.loaded)
                self.switches += 1
            self._do(("load", stream.regs.tolist()), stream.regs.size)
            self.loaded = stream
        samples, cycles = self._do(("run", n), -(-n // self.prm.prng_lanes))
        expected = unit_cycles(n, self.prm.prng_lanes)
        if cycles != expected:
            self.cycle_mismatches += 1
            self.first_mismatch = self.first_mismatch or (
                f"a request of {n} samples took {cycles} RTL cycles, the TLM's timing "
                f"predicts {expected}")
        stream.cycles += cycles
        self.requests += 1
        self.samples += n
        self.rtl_cycles += cycles
        self.wall_s += time.perf_counter() - wall
        return np.array(samples, dtype=np.int64)

    def close(self) -> None:
        if self._sim is not None:
            self._sim.quit()
            self._sim = None

    def summary(self) -> str:
        text = (f"  RTL PRNG (MyHDL): {self.requests:,} requests, {self.samples:,} samples, "
                f"{self.rtl_cycles:,} RTL cycles in {self.wall_s:.1f} s, {self.switches} "
                f"stream switches;\n    cycles per request equal the TLM's unit_cycles, "
                f"{self.cycle_mismatches} other differences")
        if self.first_mismatch:
            text += f"\n    first: {self.first_mismatch}"
        return text
