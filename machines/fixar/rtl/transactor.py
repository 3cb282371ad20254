"""The FIXAR PRNG transactor: ``rlaccel run <fixar manifest> --rtl fixar_prng`` draws every
exploration-noise sample from the MyHDL generator (:mod:`.prng`).

``Platform`` calls :meth:`RtlPrng.attach` with the agent; the transactor takes over the
agent's PRNG streams (``FixarState.seed``): a seeded stream is an :class:`RtlStream` whose
registers the host computes as :class:`machines.fixar.tlm.prng.NoiseGenerator` does
(splitmix64) and loads into the RTL; ``gaussian_raw(n)`` clocks the generator until ``n``
samples are out. One register set serves every stream: switching streams reads the current
one's registers back and loads the other's. The TLM keeps its own timing; every request's
enabled cycles are checked against ``unit_cycles(n, prng_lanes)``.
"""

from __future__ import annotations

import numpy as np

from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
from rlaccel.machines.fixar.tlm.timing import unit_cycles

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.transactor import JobTransactor
from rlaccel.machines.fixar.rtl.params import fixar_params
from rlaccel.machines.fixar.rtl.prng import fixar_prng, prng_signals
from rlaccel.machines.fixar.rtl.prng_driver import draw, load, read_registers

__all__ = ["RtlPrng", "RtlStream"]


class RtlStream(NoiseGenerator):
    """A PRNG stream served by the RTL: a ``NoiseGenerator`` (the host's splitmix64 seeding,
    ``gaussian``, the model's checks) whose samples the RTL draws and whose registers are the
    RTL's while it is the stream loaded."""

    def __init__(self, owner: "RtlPrng", seed: int, stream: int, lanes: int):
        super().__init__(seed, stream, lanes)
        self.owner = owner

    def gaussian_raw(self, n: int) -> np.ndarray:
        if n <= 0:                           # the model's empty draw, or its refusal
            return super().gaussian_raw(n)
        return self.owner.draw(self, n)

    def state(self) -> np.ndarray:
        self.owner.save(self)
        return super().state()

    def restore(self, regs) -> None:
        super().restore(regs)
        if self.owner.loaded is self:
            self.owner.loaded = None              # reload on the next draw


class RtlPrng(JobTransactor):
    """A ``datapath=`` for a FIXAR platform whose PRNG streams run on the MyHDL generator."""

    what = "PRNG"
    #: requests drawn, their samples and enabled RTL cycles, stream switches
    requests = samples = rtl_cycles = switches = 0
    #: the stream whose registers the RTL holds
    loaded: RtlStream | None = None

    def attach(self, agent) -> None:
        from rlaccel.machines.fixar.tlm.state import state_of
        st = state_of(agent)
        prm = fixar_params(agent.arch)
        if prm.prng_lanes != st.prng_lanes:
            raise RtlError(f"the RTL PRNG has {prm.prng_lanes} lanes, the machine "
                           f"{st.prng_lanes}")
        self.prm = prm
        self._start(fixar_prng, prng_signals(prm), prm)
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
    def save(self, stream: RtlStream) -> None:
        """Read the registers back into ``stream`` if it is the one loaded."""
        if self.loaded is stream:
            prm = self.prm
            rows = self._run(lambda io: read_registers(io, prm.prng_lanes, prm.prng_registers),
                             stream.regs.size, "a read-back")
            stream.regs = np.array(rows, dtype=np.uint32)

    def draw(self, stream: RtlStream, n: int) -> np.ndarray:
        """``n`` samples of ``stream`` (loaded first when another one is)."""
        L = self.prm.prng_lanes
        if self.loaded is not stream:
            if self.loaded is not None:
                self.save(self.loaded)
                self.switches += 1
            regs = stream.regs.tolist()
            self._run(lambda io: load(io, regs), stream.regs.size, "a load")
            self.loaded = stream
        samples, cycles = self._run(lambda io: draw(io, n, L), -(-n // L), "a run")
        expected = unit_cycles(n, self.prm.prng_lanes)
        if cycles != expected:
            self._cycles_differ(f"a request of {n} samples took {cycles} RTL cycles, the "
                                f"TLM's timing predicts {expected}")
        stream.cycles += cycles
        self.requests += 1
        self.samples += n
        self.rtl_cycles += cycles
        return np.array(samples, dtype=np.int64)

    def summary(self) -> str:
        return (f"  RTL PRNG ({self.backend_name}): {self.requests:,} requests, "
                f"{self.samples:,} samples, "
                f"{self.rtl_cycles:,} RTL cycles in {self.wall_s:.1f} s, {self.switches} "
                f"stream switches;\n    cycles per request equal the TLM's unit_cycles, "
                f"{self._differences()}")
