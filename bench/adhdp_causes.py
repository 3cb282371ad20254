"""Candidate causes of the triple link's VU cycle gain (ours 1.68x, the seed's 1.47x), each
isolated by one knob, with the gain it gives.

    python bench/adhdp_causes.py [--trials 10] [--seed 1] [--json out/adhdp_causes.json]

Every row runs the triple link (actor 8-20-1, critic 9-20-1) on both chips (``adhdp`` with
Fig. 2, ``adhdp-vu`` with Fig. 7; ``--trials`` trials from ``--seed``, ``stop_on_success``
off), with the regions `rlaccel report adhdp` uses, changing one thing:

* ``model``: the chips as they are (Q6.18, element-level forwarding, single-port SRAM);
* ``float64``: the number format (both chips then run the same plant steps);
* ``hazard per instruction``: the scheduler's rule before issue 13;
* ``two-port SRAM``: ``[datapath] synapse_ports = 2``, a WU tile in one cycle, not two;
* ``L = n``: the iterations per time step fixed at ``n`` for both loops (``learning.Ec`` and
  ``Ea`` = 0 so a loop never exits early, ``Ic = Ia = n``; float64, so both chips run the
  same steps): the virtual update's once-per-step work (``vu.init``, ``vu.commit``) is shared
  by ``n`` iterations, and the baseline has no such work;
* ``learning rate x constant``: the Si-lab schedule (0.1 decaying to 0.005 within ten steps
  of a trial) replaced by a constant rate (float64): the loops' natural iterations per step
  under faster learning;
* ``two-port SRAM, L = n``: both.

For each row it prints the cycles per iteration of both chips (region, as Fig. 11) for the
critic and the actor, the gains, the combined cycle and energy gains (critic and actor
iterations weighed by their counts, as the seed's single figure must; the seed: 1.47x and
1.64x), then three figures that are arithmetic on the run's per-instruction rows, not
separate runs: the combined gain if no instruction of the loops overlapped its predecessor
in the pipeline (each ``depth - 1`` cycles more, less the stall it already had), the
arithmetic unit's operations per cycle (the seed: VU raises its utilisation), and the actor
phase's arithmetic and synapse-SRAM power without the clock term (the seed's Fig. 12:
arithmetic up, memory down with VU).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rlaccel.programs.adhdp.report import PHASES, SEED_SPEEDUP, SIZES

TRIPLE = next(s for s in SIZES if s.name == "triple_link")
#: the arithmetic unit's actions (tlm/families/base/energy.py ACTIONS)
ARITHMETIC = ("mac", "mul", "add", "act")


def _fixed(n: int) -> list[str]:
    return ["learning.Ec=0.0", "learning.Ea=0.0", f"learning.Ic={n}", f"learning.Ia={n}"]


def variants(ls: list[int]) -> list[tuple[str, dict, list[str]]]:
    f64 = {"machine.dtype": "float64"}
    rows = [("model", {}, []), ("float64", f64, []),
            ("hazard per instruction", {"datapath.forwarding": "instruction"}, []),
            ("two-port SRAM", {"datapath.synapse_ports": 2}, [])]
    rows += [(f"L = {n}", f64, _fixed(n)) for n in ls]
    for lr in (0.1, 0.3):
        rows.append((f"learning rate {lr} constant", f64,
                     [f"learning.lr_critic={lr}", f"learning.lr_actor={lr}",
                      "learning.lr_decay=0.0", f"learning.lr_floor={lr}"]))
    rows += [(f"two-port SRAM, L = {n}", {**f64, "datapath.synapse_ports": 2}, _fixed(n))
             for n in ls]
    return rows


def profile(vu: bool, arch_set: dict, sets: list[str], trials: int, seed: int,
            size=TRIPLE) -> dict:
    """One chip's run of a network size (default the triple link): per update phase, the
    region's cycles, energy and iterations (as ``rlaccel report adhdp`` has them), the cycles if no instruction of the
    loops overlapped its predecessor (every non-control instruction ``depth - 1`` cycles
    more, less the stall it already had: an estimate), the arithmetic unit's operations per
    cycle (MACs, multiplies, adds, activations) and its power and the synapse SRAM's without
    the per-cycle clock term."""
    from rlaccel.programs.runner import _Setup
    s = _Setup(size.manifest, [*sets, f"virtual_update={'true' if vu else 'false'}",
                                 "stop_on_success=false"],
               arch="adhdp-vu" if vu else "adhdp", seed=seed, trace=None, progress=None,
               datapath=None, kernels="compiled", options={"trials": trials},
               arch_overrides=arch_set or None)
    res = s.platform.run()
    rep = s.report(res)
    agent = s.platform.agents[0]
    dyn = agent.controller.dynamic_actions
    out = {"plant_steps": int(sum(rep["learning"]["steps_per_trial"]))}
    # loop starts: the VU program's vu.init runs once per loop that starts (critic, actor)
    starts = [row["count"] for row in res.per_pc if row["mnemonic"] == "vu.init"]
    for phase in PHASES:
        reg, pi = s.regions[phase], rep["per_iteration"][phase]
        it = pi["iterations"]
        extra = ops = 0
        for op, row in zip(agent.ops[reg.start:reg.end], res.per_pc[reg.start:reg.end]):
            if row["mnemonic"] == "cc.host":
                continue
            if op.category != "CC":
                extra += max(row["count"] * (op.depth - 1) - row["stall"], 0)
            counts = dict(op.counts)
            for a, k in dyn.get(op.pc, {}).items():
                counts[a] = counts.get(a, 0) + k / max(row["count"], 1)
            ops += row["count"] * sum(counts.get(a, 0) for a in ARITHMETIC)
        clk = res.clock_hz * 1e-12 * 1e3
        out[phase] = {"iterations": it, "cycles": pi["cycles"], "energy_pj": pi["energy_pj"],
                      "starts": starts[PHASES.index(phase)] if vu else None,
                      "no_overlap": pi["cycles"] + extra / it if it else 0.0,
                      "arith_ops_per_cycle": ops / (pi["cycles"] * it) if it else 0.0,
                      "power_mw": {u: pi["power_by_unit_mw"][u] for u in ("arithmetic",
                                                                          "synapse")},
                      "power_total_mw": pi["power_mw"],
                      "power_no_clock_mw": pi["power_mw"] - s.arch.extra["energy"]["clock"]
                      * clk}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--L", default="2,3,4,6,10,100", help="iterations per step to fix")
    p.add_argument("--json", default="out/adhdp_causes.json")
    p.add_argument("--directions", action="store_true",
                   help="instead: the model's Fig. 12 directions on all three sizes (arithmetic "
                        "operations per cycle, arithmetic and synapse power without the clock "
                        "term, base -> VU, per phase)")
    a = p.parse_args(argv)
    if a.directions:
        print(f"{'network':16s} {'phase':6s} {'arith ops/cycle':>16s} {'arith mW':>14s} "
              f"{'SRAM mW':>14s} {'power mW (with clock)':>22s} {'VU iterations per start':>24s}")
        for size in SIZES:
            b, v = (profile(vu, {}, [], a.trials, a.seed, size) for vu in (False, True))
            for ph in PHASES:
                x, y = b[ph], v[ph]
                print(f"{size.label:16s} {ph:6s} {x['arith_ops_per_cycle']:7.2f}->"
                      f"{y['arith_ops_per_cycle']:<7.2f} "
                      f"{x['power_mw']['arithmetic']:6.2f}->{y['power_mw']['arithmetic']:<6.2f} "
                      f"{x['power_mw']['synapse']:6.2f}->{y['power_mw']['synapse']:<6.2f} "
                      f"{x['power_total_mw']:9.2f}->{y['power_total_mw']:<9.2f} "
                      f"{y['iterations'] / max(y['starts'], 1):10.1f} ({y['starts']} starts)",
                      flush=True)
        return 0
    ls = [int(x) for x in a.L.split(",") if x]
    print(f"seed (triple link, combined): {SEED_SPEEDUP['cycles']}x cycles, "
          f"{SEED_SPEEDUP['energy']}x energy")
    print(f"{'variant':24s} {'critic base/VU':>14s} {'gain':>6s} {'actor base/VU':>14s} "
          f"{'gain':>6s} {'comb.':>6s} {'energy':>6s} | {'no-overlap':>10s} | arith ops/cycle "
          f"critic, actor (base->VU) | arith mW, SRAM mW actor (base->VU) | actor "
          f"iterations per start")
    rows = []
    for name, arch_set, sets in variants(ls):
        b, v = (profile(vu, arch_set, sets, a.trials, a.seed) for vu in (False, True))
        row = {"variant": name, "arch_overrides": arch_set, "overrides": sets,
               "base": b, "vu": v}
        for key, field in (("cycles", "cycles"), ("energy", "energy_pj"),
                           ("no_overlap", "no_overlap")):
            row[key] = {ph: b[ph][field] / v[ph][field] for ph in PHASES}
            tb, tv = (sum(r[ph][field] * r[ph]["iterations"] for ph in PHASES)
                      / sum(r[ph]["iterations"] for ph in PHASES) for r in (b, v))
            row[key]["combined"] = tb / tv
        rows.append(row)
        c, ac = b["critic"], b["actor"]
        print(f"{name:24s} {c['cycles']:6.1f}/{v['critic']['cycles']:<7.1f} "
              f"{row['cycles']['critic']:5.2f}x {ac['cycles']:6.1f}/{v['actor']['cycles']:<7.1f} "
              f"{row['cycles']['actor']:5.2f}x {row['cycles']['combined']:5.2f}x "
              f"{row['energy']['combined']:5.2f}x | {row['no_overlap']['combined']:9.2f}x | "
              f"{c['arith_ops_per_cycle']:.2f}->{v['critic']['arith_ops_per_cycle']:.2f}, "
              f"{ac['arith_ops_per_cycle']:.2f}->{v['actor']['arith_ops_per_cycle']:.2f} | "
              f"{ac['power_mw']['arithmetic']:.2f}->{v['actor']['power_mw']['arithmetic']:.2f}, "
              f"{ac['power_mw']['synapse']:.2f}->{v['actor']['power_mw']['synapse']:.2f} | "
              f"{v['actor']['iterations'] / max(v['actor']['starts'], 1):.1f}", flush=True)
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps({"trials": a.trials, "seed": a.seed, "rows": rows},
                                       indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
