"""A machine: memories, controller and host link wired from an architecture and a binary.

    system = System(arch, binary, host)
    result = system.run()

The unified space (neuron registers, then buffers) and the synapse SRAM are
:class:`tlm.core.Memory` targets; the loader fills them by debug transport, the controller's
datapath reaches them by DMI views, and the host link writes replies by blocking transport.
"""

from __future__ import annotations

import time

import numpy as np
import simpy

from assembler.rlb import Binary
from isa.arch import Arch
from isa.dtypes import SaturationCounter, get_dtype
from isa.encoding import encoding_for
from isa.errors import ArchError
from tlm.core import GenericPayload, InitiatorSocket, Memory

from .controller import Controller
from .energy import EnergyTable
from .hostlink import Host, HostLink
from .program import check_fits, predecode
from .results import Results

__all__ = ["System"]


class System:
    """The base-family machine of an architecture running one binary."""

    def __init__(self, arch: Arch, binary: Binary, host: Host, *, quantum: int = 10_000,
                 max_instructions: int | None = None, trace=None, progress=None,
                 datapath=None):
        self.arch = arch
        self.binary = binary
        self.enc = encoding_for(arch)
        check_fits(binary, arch, self.enc)
        k = arch.knobs
        self.dt = get_dtype(k.dtype, segments=k.pwl_segments).trusted()
        origin = arch.path or arch.name
        if "energy" not in arch.extra:
            raise ArchError(f"{origin}: the simulator needs an [energy] table")
        self.energy = EnergyTable.from_table(arch.extra["energy"], origin)
        link_cfg = dict(arch.extra.get("hostlink", {}))
        unknown = set(link_cfg) - {"latency", "words_per_cycle", "host_cycles"}
        if unknown:
            raise ArchError(f"{origin}: [hostlink] has unknown key(s) {', '.join(sorted(unknown))}"
                            f"; known: latency, words_per_cycle, host_cycles")
        self.env = simpy.Environment()
        self.unified = Memory("unified", arch.geometry.unified_words, self.dt.storage)
        self.synapse = Memory("synapse", k.synapse_words, self.dt.storage)
        self._load()
        self.saturations = SaturationCounter()
        self.ops = predecode(binary, arch, self.enc, self.unified.data, self.synapse.data,
                             self.dt, self.energy, self.saturations)
        if datapath is not None:          # e.g. the RTL transactor: runs matrix ops instead
            datapath.attach(self)
        self.link = HostLink(host, **link_cfg)
        self.socket = InitiatorSocket("controller.unified")
        self.socket.bind(self.unified.socket)
        self.controller = Controller(self.env, self.ops, self.unified.data, self.dt, self.link,
                                     self.socket, quantum=quantum,
                                     loop_counters=k.loop_counters,
                                     max_instructions=max_instructions, trace=trace,
                                     progress=progress)

    def _load(self) -> None:
        """Write the binary's memory images through debug transport."""
        for mem, blob in ((self.unified, self.binary.data), (self.synapse, self.binary.synapse)):
            if not blob:
                continue
            words = self.dt.from_bytes(blob)
            p = GenericPayload.write(0, np.asarray(words, dtype=mem.data.dtype))
            mem.transport_dbg(p)
            p.raise_for_status()

    def symbol_view(self, name: str) -> np.ndarray:
        """The memory words of a data symbol (a live view)."""
        s = self.binary.symbol(name)
        mem = self.unified if s.space == "data" else self.synapse
        return mem.data[s.address:s.address + max(s.length, 1)]

    def run(self) -> Results:
        """Run until cc.halt; returns the statistics (see :class:`tlm.results.Results`)."""
        wall = time.perf_counter()
        proc = self.env.process(self.controller.process())
        self.env.run(until=proc)
        wall = time.perf_counter() - wall
        return Results.collect(self, wall)
