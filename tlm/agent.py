"""An agent: one controller, its memories, its units and its host link, running one binary.

The memories are :class:`~rlaccel.tlm.core.Memory` targets, one per memory space of the
architecture (:data:`rlaccel.isa.table.SPACES`: the unified space first, at address 0, then
the synapse memory and the others), behind the agent's :class:`~rlaccel.tlm.core.Router`.
The loader fills them by debug transport, the host link writes its replies by blocking
transport through the router, and the bound instruction semantics reach them through direct
memory interface (DMI) views, so hot loops build no payload per word.
"""

from __future__ import annotations

import numpy as np

from rlaccel.assembler.rlb import Binary
from rlaccel.isa.dtypes import SaturationCounter

from rlaccel.tlm.controller import Controller
from rlaccel.tlm.core import Command, GenericPayload, InitiatorSocket, Memory, Router
from rlaccel.tlm.hostlink import HostLink
from rlaccel.tlm.loader import check_fits, predecode
from rlaccel.tlm.units import Unit

__all__ = ["Agent"]


class Agent:
    """Agent ``index`` of a :class:`~rlaccel.tlm.platform.Platform`; ``like``: an agent of
    another platform of the same architecture, whose ops the loader reuses when it runs the
    same binary text (:func:`~.loader.predecode`).

    ``state`` is a dictionary the families keep per-agent state in (a PRNG stream, the
    activation precision, the selected peer, ...).
    """

    def __init__(self, platform, index: int, binary: Binary, host, *, quantum: int,
                 max_instructions: int | None, trace, progress, kernels: str = "compiled",
                 like: "Agent | None" = None):
        self.platform = platform
        self.index = index
        self.arch = platform.arch
        self.enc = platform.enc
        self.dt = platform.dt
        self.energy = platform.energy
        self.timing = platform.timing
        self.models = platform.models
        self.binary = binary
        check_fits(binary, self.arch, self.enc)
        self.saturations = SaturationCounter()
        self.state: dict = {}
        prefix = f"agent{index}." if platform.n_agents > 1 else ""
        self.router = Router(f"{prefix}bus")
        self.memories: dict[str, Memory] = {}
        self.bases: dict[str, int] = {}
        self._space_index: dict[str, int] = {}
        base = 0
        for space, words in platform.space_words.items():
            mem = Memory(f"{prefix}{space}", words, self.dt.storage)
            self.router.map(base, mem.socket)
            self.memories[space] = mem
            self.bases[space] = base
            self._space_index[space] = len(self._space_index)
            base += words
        self.socket = InitiatorSocket(f"{prefix}controller")
        self.socket.bind(self.router.socket)
        self._load()
        self._views = {space: self._dmi_view(space) for space in self.memories}
        self.units: dict[str, Unit] = {}
        alike = (like is not None and like.arch is self.arch and like.index == index
                 and like.binary.text == binary.text)
        self.ops = predecode(binary, self, like.ops if alike else None)
        origin = self.arch.origin
        self.link = HostLink(host, self.arch.extra.get("hostlink"), origin)
        self.controller = Controller(self, quantum=quantum, max_instructions=max_instructions,
                                     trace=trace, progress=progress, kernels=kernels)

    # -- memories ---------------------------------------------------------------------------
    def _load(self) -> None:
        """Write the binary's memory images through debug transport."""
        for space, blob in (("unified", self.binary.data), ("synapse", self.binary.synapse)):
            if not blob:
                continue
            words = self.dt.from_bytes(blob)
            p = GenericPayload.write(self.bases[space],
                                     np.asarray(words, dtype=self.memories[space].data.dtype))
            self.router.transport_dbg(p)
            p.raise_for_status()

    def _dmi_view(self, space: str) -> np.ndarray:
        mem = self.memories[space]
        base = self.bases[space]
        region = self.socket.get_direct_mem_ptr(GenericPayload(Command.WRITE, base, 1))
        return region.view(base, mem.size)

    def memory(self, space: str) -> np.ndarray:
        """The words of a memory space (a live DMI view)."""
        return self._views[space]

    def space_words(self, space: str) -> int:
        mem = self.memories.get(space)
        return mem.size if mem is not None else 0

    def space_index(self, space: str) -> int:
        return self._space_index[space]

    @property
    def unified(self) -> Memory:
        return self.memories["unified"]

    @property
    def synapse(self) -> Memory:
        return self.memories["synapse"]

    def unit(self, name: str) -> Unit:
        """The unit called ``name`` (made on first use)."""
        u = self.units.get(name)
        if u is None:
            u = self.units[name] = Unit(name)
        return u

    def symbol_view(self, name: str) -> np.ndarray:
        """The memory words of a data symbol (a live view)."""
        s = self.binary.symbol(name)
        space = "unified" if s.space == "data" else s.space
        return self.memory(space)[s.address:s.address + max(s.length, 1)]
