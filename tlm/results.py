"""What a run reports: cycles, time, energy by unit and opcode, utilisation, regions."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from isa.errors import RlaccelError

from .energy import ACTIONS, UNITS
from .program import CATEGORY, category

__all__ = ["Results", "Region"]


@dataclass(frozen=True)
class Region:
    """A program region by labels: PCs ``[start, end)``; iterations are counted as the
    executions of the PC ``count_pc`` (the first instruction of the loop body)."""

    name: str
    start: int
    end: int
    count_pc: int


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
    clock_hz: float = 0.0
    marks: dict = field(default_factory=dict)

    @classmethod
    def collect(cls, system, wall_s: float) -> "Results":
        c = system.controller
        e = system.energy
        clock = system.arch.knobs.clock_mhz * 1e6
        by_opcode: dict = defaultdict(lambda: {"count": 0, "cycles": 0, "energy_pj": 0.0})
        actions = dict.fromkeys(ACTIONS, 0)
        per_pc = []
        for op, n, cyc, stall in zip(system.ops, c.exec_count, c.cycles_at, c.stall_at):
            units = {u: n * pj for u, pj in e.by_unit(op.counts).items()}
            units["control"] = units.get("control", 0.0) + e.clock * cyc
            per_pc.append({"pc": op.pc, "mnemonic": op.mnemonic, "count": n, "cycles": cyc,
                           "stall": stall, "energy_pj": sum(units.values()), "by_unit_pj": units,
                           "category": category(op.mnemonic) if op.mnemonic else "CC"})
            if not n:
                continue
            row = by_opcode[op.mnemonic]
            row["count"] += n
            row["cycles"] += cyc
            row["energy_pj"] += per_pc[-1]["energy_pj"]
            for a, k in op.counts.items():
                actions[a] += n * k
        by_unit = e.by_unit(actions)
        by_unit["control"] += e.clock * c.cycles
        total = sum(by_unit.values())
        macs = actions["mac"]
        lanes = system.arch.knobs.lanes
        util = {"mac_lanes": macs / (lanes * c.cycles) if c.cycles else 0.0,
                "issue_busy": 1 - (sum(p["stall"] for p in per_pc) + c.host_cycles) / c.cycles
                if c.cycles else 0.0}
        sim = {"wall_s": wall_s,
               "instructions_per_s": c.instructions / wall_s if wall_s else 0.0,
               "cycles_per_s": c.cycles / wall_s if wall_s else 0.0}
        return cls(cycles=c.cycles, time_s=c.cycles / clock, energy_pj=total,
                   instructions=c.instructions, by_opcode=dict(by_opcode), by_unit=by_unit,
                   actions=actions, utilization=util,
                   stall_cycles=sum(p["stall"] for p in per_pc), host_cycles=c.host_cycles,
                   saturations=system.saturations.saturations, sim=sim, per_pc=per_pc,
                   clock_hz=clock,
                   marks={str(k): {"count": v[1], "cycles": v[0]} for k, v in c.marks.items()})

    @property
    def power_w(self) -> float:
        return self.energy_pj * 1e-12 / self.time_s if self.time_s else 0.0

    def region(self, r: Region, exclude_host: bool = True) -> dict:
        """Cycles and energy per iteration of a region, split by Fig. 11 category and by
        Fig. 12 unit (with the power the region draws)."""
        iters = self.per_pc[r.count_pc]["count"] if r.count_pc < len(self.per_pc) else 0
        split = {k: {"cycles": 0, "energy_pj": 0.0} for k in CATEGORY}
        units = dict.fromkeys(UNITS, 0.0)
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
        """Words read and written per memory (from the action counts)."""
        a = self.actions
        return {"synapse_sram": {"read": a["sram_read"], "written": a["sram_write"]},
                "neuron_registers": {"read": a["reg_read"], "written": a["reg_write"]},
                "buffers": {"read": a["buf_read"], "written": a["buf_write"]}}

    def as_dict(self) -> dict:
        return {"memory_traffic": self.memory_traffic,"cycles": self.cycles, "time_s": self.time_s, "energy_pj": self.energy_pj,
                "power_mw": self.power_w * 1e3, "instructions": self.instructions,
                "by_opcode": self.by_opcode, "by_unit_pj": self.by_unit,
                "actions": self.actions, "utilization": self.utilization,
                "stall_cycles": self.stall_cycles, "host_cycles": self.host_cycles,
                "saturations": self.saturations, "marks": self.marks, "sim": self.sim}


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

