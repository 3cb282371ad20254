"""The platform: simulated time, the agents of an architecture and what connects them.

    platform = Platform(arch, binary, host)          # one agent
    platform = Platform(arch, [b0, b1], [h0, h1])    # one binary and host per agent
    results = platform.run()

A platform owns the SimPy environment. It loads the instruction models of every family the
architecture implements (each checked complete, :mod:`rlaccel.tlm.families`), validates the
architecture's ``[energy]`` and ``[timing]`` tables against what those families count and
read, builds ``agents`` agents (:class:`~rlaccel.tlm.agent.Agent`: a controller, its memories,
units and host link) and the interconnect of ``[interconnect]``::

    [interconnect]
    kind = "ring"             # or "butterfly" (a power-of-two number of agents)
    latency = 4               # cycles per hop
    words_per_cycle = 16      # link width
    energy_pj_per_word = 1.5  # per word and hop

``like``: a platform of the same architecture whose agents' ops the loader reuses for agents
running the same binary text (a batch's members, :func:`~.loader.predecode`), and whose
tables judged and derived from the architecture alone the platform shares.

The agents run as SimPy processes until every one has halted. ``kernels`` picks the
controllers' loop (:data:`rlaccel.tlm.controller.KERNELS`: the compiled loop by default, or
"reference", every instruction through its reference semantics in Python).
"""

from __future__ import annotations

import time
from typing import Mapping, Sequence

import simpy

from rlaccel.assembler.rlb import Binary
from rlaccel.isa.arch import Arch, check_keys
from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import encoding_for
from rlaccel.util.errors import ArchError, SimError
from rlaccel.isa.table import SPACES

from rlaccel.tlm.agent import Agent
from rlaccel.tlm.core import Butterfly, Ring
from rlaccel.tlm.cost import TABLES as COST_TABLES
from rlaccel.tlm.energy import EnergyTable
from rlaccel.tlm.families import check_tables, models_for, tables_of
from rlaccel.tlm.hostlink import HostLink, link_timing
from rlaccel.tlm.results import Results

__all__ = ["Platform", "INTERCONNECT_KEYS", "PLATFORM_TABLES"]

#: the architecture tables the platform itself reads (a family's own: its ``Family.tables``;
#: the cost model's: :data:`rlaccel.tlm.cost.TABLES`)
PLATFORM_TABLES = ("energy", "energy_sources", "timing", "hostlink", "interconnect",
                   *COST_TABLES)

INTERCONNECT_KEYS = ("kind", "latency", "words_per_cycle", "energy_pj_per_word")
_KINDS = {c.kind: c for c in (Ring, Butterfly)}


class _NoHost:
    """The host of an agent that has none: any exchange is a fault."""

    finished = True

    def exchange(self, out):
        raise SimError("cc.host: this agent has no host (the platform was given none)")


class Platform:
    def __init__(self, arch: Arch, binaries: Binary | Sequence[Binary], hosts=None, *,
                 quantum: int = 10_000, max_instructions: int | None = None, trace=None,
                 progress=None, datapath=None, kernels: str = "compiled", like=None):
        if like is not None and like.arch is arch:
            self._configure_like(like)
        else:
            self._configure(arch)
        self.trace = trace
        binaries = self._per_agent(binaries, "binary", "binaries")
        hosts = self._per_agent(hosts if hosts is not None else _NoHost(), "host", "hosts")
        self.agents = [Agent(self, i, binaries[i], hosts[i], quantum=quantum,
                             max_instructions=max_instructions, trace=trace, progress=progress,
                             kernels=kernels,
                             like=like.agents[i] if like is not None and i < like.n_agents
                             else None)
                       for i in range(self.n_agents)]
        if datapath is not None:          # e.g. the RTL transactor: runs matrix ops instead
            # a transactor of a block shared by the agents (a ring, a butterfly) says
            # ``all_agents = True`` and reaches them through ``agent.platform.agents``
            if self.n_agents != 1 and not getattr(datapath, "all_agents", False):
                raise ArchError(f"{self.origin}: an RTL datapath runs on a one-agent machine")
            datapath.attach(self.agents[0])

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def check(cls, arch: Arch) -> None:
        """Judge an architecture's tables as building a platform does, without a program:
        for the verbs that build none (asm, dis, isa, cosim, rtl), so that a bad
        architecture file gets the same message there as from ``run``."""
        cls.__new__(cls)._configure(arch)

    def _configure(self, arch: Arch) -> None:
        """Everything of the platform that comes from the architecture alone, each table
        judged on the way (an ArchError names what is wrong)."""
        self.arch = arch
        self.origin = arch.origin
        k = arch.knobs
        self.enc = encoding_for(arch)
        self.models, self.families = models_for(k.families)
        self._check_tables()
        self.dt = get_dtype(k.dtype, segments=k.pwl_segments,
                            accumulate=k.accumulate or None).trusted()
        self.timing = self._timing()        # judged first: the energy reads it
        self.energy = self._energy()
        self.categories = tuple(dict.fromkeys(c for f in self.families for c in f.categories))
        self.n_agents = k.agents
        self.space_words = {space: words for space in dict.fromkeys(SPACES.values())
                            if (words := arch.memories.get(space, 0)) > 0}
        self.env = simpy.Environment()
        self.interconnect = self._interconnect()
        HostLink(None, arch.extra.get("hostlink"), self.origin)    # as each agent builds it
        check_tables(arch, k.families)

    def _configure_like(self, like: "Platform") -> None:
        """:meth:`_configure` for a platform of the same architecture object as ``like``
        (a batch's member): the tables judged and derived once (models, number format,
        energy prices, timing), shared; what a run changes -- the SimPy environment and the
        interconnect on it -- its own."""
        for name in ("arch", "origin", "enc", "models", "families", "dt", "energy", "timing",
                     "categories", "n_agents", "space_words"):
            setattr(self, name, getattr(like, name))
        self.env = simpy.Environment()
        self.interconnect = self._interconnect()

    def _check_tables(self) -> None:
        """Every table of the architecture file is one the platform or a family reads."""
        known = set(PLATFORM_TABLES) | tables_of(self.arch.knobs.families)
        unknown = sorted(set(self.arch.extra) - known)
        if unknown:
            raise ArchError(f"{self.origin}: unknown table(s) "
                            f"{', '.join(f'[{t}]' for t in unknown)}; the simulator of families "
                            f"{', '.join(self.arch.knobs.families)} reads "
                            f"{', '.join(f'[{t}]' for t in sorted(known))}")

    def _per_agent(self, items, one: str, many: str) -> list:
        if isinstance(items, (list, tuple)):
            if len(items) != self.n_agents:
                raise ArchError(f"{self.origin}: {len(items)} {many} for {self.n_agents} "
                                f"agent(s)")
            return list(items)
        if self.n_agents > 1 and one == "host" and not isinstance(items, _NoHost):
            raise ArchError(f"{self.origin}: {self.n_agents} agents need one host each "
                            f"(give a list of {self.n_agents} hosts)")
        return [items] * self.n_agents

    def _energy(self) -> EnergyTable:
        unit_of: dict[str, str] = {}
        for fam in self.families:
            unit_of.update(fam.actions)
        return EnergyTable.from_arch(self.arch, self.families, unit_of)

    def _timing(self) -> Mapping[str, int]:
        keys: dict[str, str] = {}
        for fam in self.families:
            keys.update(fam.timing_keys)
        table = self.arch.extra.get("timing", {})
        if not isinstance(table, dict):
            raise ArchError(f"{self.origin}: [timing] must be a table")
        for key, value in table.items():
            if key not in keys:
                raise ArchError(f"{self.origin}: [timing] has unknown key '{key}'; the "
                                f"families of this architecture read: {', '.join(keys)}")
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ArchError(f"{self.origin}: [timing] {key} must be a whole number of "
                                f"cycles >= 1, not {value!r}")
        missing = [f"{k} ({doc})" for k, doc in keys.items() if k not in table]
        if missing:
            raise ArchError(f"{self.origin}: [timing] is missing {'; '.join(missing)}")
        return dict(table)

    def _interconnect(self):
        cfg = self.arch.extra.get("interconnect")
        if cfg is None:
            return None
        where = f"{self.origin}: [interconnect]"
        if not isinstance(cfg, dict):
            raise ArchError(f"{where} must be a table")
        check_keys(cfg, INTERCONNECT_KEYS, where)
        kind = cfg.get("kind")
        if kind not in _KINDS:
            raise ArchError(f"{where} kind must be one of {', '.join(_KINDS)}, not {kind!r}")
        derived = self.energy.model.interconnect_pj_per_word if self.energy.model else None
        energy = cfg.get("energy_pj_per_word", derived if derived is not None else 0.0)
        if (isinstance(energy, bool) or not isinstance(energy, (int, float))
                or not 0 <= energy < float("inf")):
            raise ArchError(f"{where} energy_pj_per_word must be a finite number >= 0, "
                            f"not {energy!r}")
        timing = link_timing(cfg.get("latency", 1), cfg.get("words_per_cycle", 1), where)
        try:
            return _KINDS[kind](self.env, self.n_agents, timing, float(energy))
        except SimError as exc:
            raise ArchError(f"{where}: {exc}") from None

    # -- running ----------------------------------------------------------------------------
    @property
    def agent(self) -> Agent:
        """The agent of a one-agent machine."""
        if self.n_agents != 1:
            raise SimError(f"{self.origin} has {self.n_agents} agents; pick one of "
                           f"platform.agents")
        return self.agents[0]

    def symbol_view(self, name: str, agent: int = 0):
        """The memory words of a data symbol of an agent's binary (a live view)."""
        return self.agents[agent].symbol_view(name)

    def run(self) -> Results:
        """Run until every agent has halted; returns the statistics."""
        wall = time.perf_counter()
        procs = [self.env.process(a.controller.process()) for a in self.agents]
        self.env.run(until=simpy.AllOf(self.env, procs))
        wall = time.perf_counter() - wall
        return Results.collect(self, wall)
