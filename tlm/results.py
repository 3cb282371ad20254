"""What a run reports: cycles, time, energy by energy unit, action and opcode, utilisation of
every unit, memory traffic, per-agent figures, the host's time line, the interconnect, regions.

Cycles of a platform are those of its slowest agent; energy, instructions and action counts
add up over the agents (each agent's clock energy over its own cycles) plus the interconnect.
A region (:class:`Region`) splits an agent's cycles and energy by its families' result
categories (Fig. 11's FF/BP_WU/VU/SCA/CC for the base family) and by energy unit.

**Timing.** Everything measured on the host computer -- the simulator's wall clock and its
speed, the host's measured seconds per category, and any figure derived from them (a system
IPS) -- goes under one top-level key, ``timing``, at the path it would otherwise have
(``timing.sim.wall_s``, ``timing.host.agents[0].timeline.measured_s``, a machine's
``timing.ips.system``): two runs of the same seed give the same report outside it
(:func:`move_timing`, :func:`merge_timing`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from rlaccel.util.errors import RlaccelError

from rlaccel.tlm.energy import CLOCK_UNIT

__all__ = ["Results", "Region", "region_from_labels", "move_timing", "merge_timing",
           "with_timing"]


def move_timing(d: dict, paths) -> dict:
    """Move the figures at ``paths`` (dotted, as ``ips.system`` or ``host_wall_s``; ``*``
    stands for every key of a table or every item of a list, as ``runs.*.wall_s``) out of
    ``d`` into ``d["timing"]`` at the same paths (merged with what is there; a list's items
    keep their places); a path ``d`` does not have is skipped. Returns ``d``."""
    timing = d.get("timing", {})
    for path in paths:
        moved = _take(d, path.split("."))
        if moved:
            merge_timing(timing, moved)
    d["timing"] = timing
    return d


def _take(node, parts: list[str]):
    """Remove the values at ``parts`` below ``node``; returns them as a tree of the same
    shape (None: nothing was there)."""
    key, rest = parts[0], parts[1:]
    if isinstance(node, dict):
        out = {}
        for k in (list(node) if key == "*" else [key] if key in node else []):
            if key == "*" and k == "timing":
                continue                          # what was moved already stays
            if rest:
                sub = _take(node[k], rest)
                if sub is not None:
                    out[k] = sub
            else:
                out[k] = node.pop(k)
        return out or None
    if isinstance(node, list) and key == "*" and rest:
        out = [_take(item, rest) for item in node]
        return [x if x is not None else {} for x in out] if any(
            x is not None for x in out) else None
    return None


def merge_timing(into: dict, more: dict) -> dict:
    """Merge the timing tree ``more`` into ``into``: tables key by key, lists item by item
    (an agent's figures into that agent's); returns ``into``."""
    for key, value in more.items():
        have = into.get(key)
        if isinstance(have, dict) and isinstance(value, dict):
            merge_timing(have, value)
        elif isinstance(have, list) and isinstance(value, list):
            for i, v in enumerate(value):
                if i < len(have) and isinstance(have[i], dict) and isinstance(v, dict):
                    merge_timing(have[i], v)
                elif i < len(have):
                    have[i] = v
                else:
                    have.append(v)
        else:
            into[key] = value
    return into


def with_timing(report: dict) -> dict:
    """A copy of ``report`` with its ``timing`` merged back at the paths it came from (for
    a reader that wants every figure where it was computed, such as a report that tabulates
    a system IPS beside the simulated one)."""
    import copy
    out = copy.deepcopy(report)
    return merge_timing(out, out.pop("timing", {}))


@dataclass(frozen=True)
class Region:
    """A program region by labels: PCs ``[start, end)``; iterations are counted as the
    executions of the PC ``count_pc`` (the first instruction of the loop body)."""

    name: str
    start: int
    end: int
    count_pc: int


def _agent_figures(agent, energy) -> dict:
    """Per-PC rows, by-opcode table, action counts and unit busy cycles of one agent."""
    c = agent.controller
    by_opcode: dict = defaultdict(lambda: {"count": 0, "cycles": 0, "energy_pj": 0.0})
    actions = dict.fromkeys(energy.unit_of, 0)
    busy: dict[str, int] = dict.fromkeys(agent.units, 0)
    per_pc = []
    for op, n, cyc, stall in zip(agent.ops, c.exec_count, c.cycles_at, c.stall_at):
        counts = {a: n * k for a, k in op.counts.items()}
        units = {u: n * pj for u, pj in energy.by_unit(op.counts).items()}
        dynamic = c.dynamic_actions.get(op.pc)
        if dynamic:
            for a, k in dynamic.items():
                counts[a] = counts.get(a, 0) + k
            for u, pj in energy.by_unit(dynamic).items():
                units[u] += pj
        units[CLOCK_UNIT] = units.get(CLOCK_UNIT, 0.0) + energy.clock * cyc
        per_pc.append({"pc": op.pc, "mnemonic": op.mnemonic, "count": n, "cycles": cyc,
                       "stall": stall, "energy_pj": sum(units.values()), "by_unit_pj": units,
                       "category": op.category or "CC"})
        if not n:
            continue
        for unit, cycles in op.occupy:
            busy[unit.name] += n * cycles
        row = by_opcode[op.mnemonic]
        row["count"] += n
        row["cycles"] += cyc
        row["energy_pj"] += per_pc[-1]["energy_pj"]
        for a, k in counts.items():
            actions[a] += k
    for name, cycles in c.dynamic_busy.items():
        busy[name] = busy.get(name, 0) + cycles
    return {"per_pc": per_pc, "by_opcode": dict(by_opcode), "actions": actions, "busy": busy}


@dataclass
class Results:
    cycles: int
    time_s: float
    energy_pj: float
    instructions: int
    by_opcode: dict
    by_unit: dict
    actions: dict
    utilization: dict
    stall_cycles: int
    host_cycles: int
    saturations: int
    sim: dict
    per_pc: list = field(repr=False, default_factory=list)
    #: what was measured on this computer (the module's "Timing")
    timing: dict = field(default_factory=dict)
    clock_hz: float = 0.0
    marks: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    agents: list = field(default_factory=list)
    host: dict = field(default_factory=dict)
    interconnect: dict = field(default_factory=dict)
    categories: tuple = ()
    #: where the prices come from (:meth:`rlaccel.tlm.energy.EnergyTable.describe`)
    energy_model: dict = field(default_factory=dict)

    @classmethod
    def collect(cls, platform, wall_s: float) -> "Results":
        e = platform.energy
        clock = platform.arch.knobs.clock_mhz * 1e6
        lanes = platform.arch.knobs.lanes
        figs = [_agent_figures(a, e) for a in platform.agents]
        ctrls = [a.controller for a in platform.agents]
        cycles = max(c.cycles for c in ctrls)
        by_opcode: dict = {}
        actions = dict.fromkeys(e.unit_of, 0)
        for f in figs:
            for mn, row in f["by_opcode"].items():
                acc = by_opcode.setdefault(mn, {"count": 0, "cycles": 0, "energy_pj": 0.0})
                for key in acc:
                    acc[key] += row[key]
            for a, k in f["actions"].items():
                actions[a] += k
        by_unit = e.by_unit(actions)
        by_unit[CLOCK_UNIT] += e.clock * sum(c.cycles for c in ctrls)
        net = platform.interconnect
        if net is not None:
            by_unit["interconnect"] = net.energy_pj
        total = sum(by_unit.values())
        stalls = sum(sum(p["stall"] for p in f["per_pc"]) for f in figs)
        host_cycles = sum(c.host_cycles for c in ctrls)
        agent_cycles = sum(c.cycles for c in ctrls)
        instructions = sum(c.instructions for c in ctrls)
        util = {"mac_lanes": actions.get("mac", 0) / (lanes * agent_cycles)
                if agent_cycles else 0.0,
                "issue_busy": 1 - (stalls + host_cycles) / agent_cycles if agent_cycles else 0.0}
        units = {}
        for a, f, c in zip(platform.agents, figs, ctrls):
            for name, busy in f["busy"].items():
                key = name if platform.n_agents == 1 else f"agent{a.index}.{name}"
                units[key] = {"busy_cycles": busy,
                              "utilization": busy / c.cycles if c.cycles else 0.0}
        agents = [{"agent": a.index, "cycles": c.cycles, "instructions": c.instructions,
                   "stall_cycles": sum(p["stall"] for p in f["per_pc"]),
                   "host_cycles": c.host_cycles, "sync_cycles": c.sync_cycles,
                   "energy_pj": sum(p["energy_pj"] for p in f["per_pc"]),
                   "saturations": a.saturations.saturations,
                   "transactions": {s: m.stats.as_dict() for s, m in a.memories.items()}}
                  for a, f, c in zip(platform.agents, figs, ctrls)]
        host = {"agents": [a.link.as_dict() | {"timeline": a.link.timeline.simulated()}
                           for a in platform.agents]}
        inter = ({"kind": type(net).__name__.lower(), "words": net.words, "hops": net.hops,
                  "energy_pj": net.energy_pj} if net is not None else {})
        timing = {"sim": {"wall_s": wall_s,
                          "instructions_per_s": instructions / wall_s if wall_s else 0.0,
                          "cycles_per_s": cycles / wall_s if wall_s else 0.0},
                  "host": {"agents": [{"timeline": a.link.timeline.measured()}
                                      for a in platform.agents]}}
        c0 = ctrls[0]
        return cls(cycles=cycles, time_s=cycles / clock, energy_pj=total,
                   instructions=instructions, by_opcode=by_opcode, by_unit=by_unit,
                   actions=actions, utilization=util, stall_cycles=stalls,
                   host_cycles=host_cycles,
                   saturations=sum(a.saturations.saturations for a in platform.agents),
                   sim={}, timing=timing, per_pc=figs[0]["per_pc"], clock_hz=clock,
                   marks={str(k): {"count": v[1], "cycles": v[0]} for k, v in c0.marks.items()},
                   units=units, agents=agents, host=host, interconnect=inter,
                   categories=platform.categories, energy_model=e.describe())

    @property
    def power_w(self) -> float:
        return self.energy_pj * 1e-12 / self.time_s if self.time_s else 0.0

    def region(self, r: Region, exclude_host: bool = True) -> dict:
        """Cycles and energy per iteration of a region (of agent 0), split by result category
        and by energy unit (with the power the region draws)."""
        iters = self.per_pc[r.count_pc]["count"] if r.count_pc < len(self.per_pc) else 0
        split = {k: {"cycles": 0, "energy_pj": 0.0} for k in self.categories}
        units = dict.fromkeys(self.per_pc[0]["by_unit_pj"] if self.per_pc else (), 0.0)
        for p in self.per_pc[r.start:r.end]:
            if exclude_host and p["mnemonic"] == "cc.host":
                continue
            split[p["category"]]["cycles"] += p["cycles"]
            split[p["category"]]["energy_pj"] += p["energy_pj"]
            for u, pj in p["by_unit_pj"].items():
                units[u] += pj
        tot_c = sum(v["cycles"] for v in split.values())
        tot_e = sum(v["energy_pj"] for v in split.values())
        per = (lambda x: x / iters) if iters else (lambda x: 0.0)
        watts = (lambda pj: pj * 1e-12 * self.clock_hz / tot_c) if tot_c else (lambda pj: 0.0)
        return {"iterations": iters, "cycles": per(tot_c), "energy_pj": per(tot_e),
                "power_mw": watts(tot_e) * 1e3,
                "by_category": {k: {"cycles": per(v["cycles"]), "energy_pj": per(v["energy_pj"])}
                                for k, v in split.items()},
                "by_unit_pj": {u: per(pj) for u, pj in units.items()},
                "power_by_unit_mw": {u: watts(pj) * 1e3 for u, pj in units.items()}}

    @property
    def memory_traffic(self) -> dict:
        """Words read and written per memory (from the base family's action counts)."""
        a = self.actions
        return {"synapse_sram": {"read": a.get("sram_read", 0), "written": a.get("sram_write", 0)},
                "neuron_registers": {"read": a.get("reg_read", 0),
                                     "written": a.get("reg_write", 0)},
                "buffers": {"read": a.get("buf_read", 0), "written": a.get("buf_write", 0)}}

    def as_dict(self) -> dict:
        return {"memory_traffic": self.memory_traffic, "cycles": self.cycles,
                "time_s": self.time_s, "energy_pj": self.energy_pj,
                "power_mw": self.power_w * 1e3, "instructions": self.instructions,
                "by_opcode": self.by_opcode, "by_unit_pj": self.by_unit,
                "actions": self.actions, "utilization": self.utilization,
                "stall_cycles": self.stall_cycles, "host_cycles": self.host_cycles,
                "saturations": self.saturations, "marks": self.marks, "sim": self.sim,
                "units": self.units, "agents": self.agents, "host": self.host,
                "interconnect": self.interconnect, "energy_model": self.energy_model,
                "timing": self.timing}


def region_from_labels(binary, name: str, start: str, end: str, count: str) -> Region:
    """The PCs between two text labels; iterations are the executions of the instruction at
    the label ``count``."""
    try:
        s, e, cp = (binary.symbol(x).address for x in (start, end, count))
    except RlaccelError as exc:
        raise RlaccelError(f"region '{name}': {exc}") from None
    if not s <= cp < e:
        raise RlaccelError(f"region '{name}': the counting label '{count}' is not inside "
                           f"[{start}, {end})")
    return Region(name, s, e, cp)
