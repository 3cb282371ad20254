"""Candidate causes of the triple link's VU cycle gain (ours 1.68x, the paper's 1.47x), each
isolated by one knob, with the gain it gives.

    python machines/adhdp/bench/causes.py [--trials 10] [--seed 1] [--json out/adhdp_causes.json]
    python machines/adhdp/bench/causes.py --table1          # the L of Table I's counts, written out
    python machines/adhdp/bench/causes.py --stages 10,100,300 [--arch-set machine.dtype=float64]
    python machines/adhdp/bench/causes.py --histogram 10,100,300   # a started loop's iterations
    python machines/adhdp/bench/causes.py --costs STAGES.json ... [--histogram-json H.json]
    python machines/adhdp/bench/causes.py --runs 1,2,3 [--trials 1000]   # whole learning runs
    python machines/adhdp/bench/causes.py --saturations base|vu [--trials 100]   # what saturates

The last five ask whether the paper's own data, or any stage of learning, put the loops'
iterations per time step (the named mechanism below) where the paper's 1.47x needs them:
``--stages`` runs both chips over prefixes of one run and differences them into bins of
trials; ``--costs`` prices both chips on one workload per bin (the two runs differ after the
first trials), and prints each file's whole run; ``--histogram`` spreads a started loop's
iterations (float64 golden model); ``--runs`` gives the gain over whole learning runs, each
chip run to the manifest's success (a trial of ``max_steps``) or its trial cap.
Their outputs are in ``machines/adhdp/bench/results/``, read in the README's "Fig. 11-13".

Every row runs the triple link (actor 8-20-1, critic 9-20-1) on both chips (``adhdp`` with
Fig. 2, ``adhdp-vu`` with Fig. 7; ``--trials`` trials from ``--seed``, ``stop_on_success``
off), with the regions `rlaccel report adhdp` uses, changing one thing:

* ``model``: the chips as they are (Q6.18, element-level forwarding, single-port SRAM);
* ``float64``: the number format (both chips then run the same plant steps);
* ``hazard per instruction``: a scheduler that checks an instruction's operands as a whole
  (``[datapath] forwarding = "instruction"``) instead of word by word;
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
iterations weighed by their counts, as the paper's single figure must; the paper: 1.47x and
1.64x), then three figures that are arithmetic on the run's per-instruction rows, not
separate runs: the combined gain if no instruction of the loops overlapped its predecessor
in the pipeline (each ``depth - 1`` cycles more, less the stall it already had), the
arithmetic unit's operations per cycle (the paper: VU raises its utilisation), and the actor
phase's arithmetic and synapse-SRAM power without the clock term (the paper's Fig. 12:
arithmetic up, memory down with VU).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rlaccel.machines.adhdp.report import PHASES, PAPER_SPEEDUP, SIZES

TRIPLE = next(s for s in SIZES if s.name == "triple_link")
#: its networks (triple_link.toml [network])
TRIPLE_NET = {"actor": (8, 20, 1), "critic": (9, 20, 1)}
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
    # the cited defaults where the manifest differs (Si & Wang 2001's code and He 2012): l(0) =
    # 0.3 (Si-lab code, He 2012), He 2012's floor 0.001, the Si-lab code's N_c = 50
    cited = ["learning.lr_critic=0.3", "learning.lr_actor=0.3"]
    rows += [("cited: rate 0.3", {}, cited),
             ("cited: rate 0.3 to 0.001", {}, [*cited, "learning.lr_floor=0.001"]),
             ("cited: 0.3, N_c = 50", {}, [*cited, "learning.Ic=50"])]
    return rows


def chip_run(vu: bool, arch_set: dict, sets: list[str], trials: int | None, seed: int, size,
             stop_on_success: bool = False, kernels: str = "compiled"):
    """One chip's run of a network size: its setup, the platform's result and the report.
    ``trials=None`` and ``stop_on_success`` run the manifest's learning run as it is."""
    from rlaccel.programs.runner import _Setup
    s = _Setup(size.manifest, [*sets, f"virtual_update={'true' if vu else 'false'}",
                                 f"stop_on_success={'true' if stop_on_success else 'false'}"],
               arch="adhdp-vu" if vu else "adhdp", seed=seed, trace=None, progress=None,
               datapath=None, kernels=kernels,
               options={} if trials is None else {"trials": trials},
               arch_overrides=arch_set or None)
    res = s.platform.run()
    return s, res, s.report(res)


def profile(vu: bool, arch_set: dict, sets: list[str], trials: int, seed: int,
            size=TRIPLE) -> dict:
    """One chip's run of a network size (default the triple link): per update phase, the
    region's cycles, energy and iterations (as ``rlaccel report adhdp`` has them), the cycles if no instruction of the
    loops overlapped its predecessor (every non-control instruction ``depth - 1`` cycles
    more, less the stall it already had: an estimate), the arithmetic unit's operations per
    cycle (MACs, multiplies, adds, activations) and its power and the synapse SRAM's without
    the per-cycle clock term."""
    s, res, rep = chip_run(vu, arch_set, sets, trials, seed, size)
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


def totals(vu: bool, arch_set: dict, sets: list[str], trials: int | None, seed: int,
           size=TRIPLE, stop_on_success: bool = False) -> dict:
    """One chip's run as totals, not per iteration: per update phase the region's cycles,
    energy and iterations, and the loops that started (the VU program's ``vu.init`` count;
    ``None`` on the baseline, whose program has no instruction that runs once per start),
    and the plant steps. Runs from one seed are prefixes of each other (trial ``k`` is the
    same in a run of ``n >= k`` trials), so two runs' totals differenced give the trials
    between them exactly."""
    s, res, rep = chip_run(vu, arch_set, sets, trials, seed, size, stop_on_success)
    per_trial = rep["learning"]["steps_per_trial"]
    out = {"plant_steps": int(sum(per_trial)), "trials": len(per_trial),
           "trials_to_success": rep["learning"]["trials_to_success"]}
    for phase in PHASES:
        reg = s.regions[phase]
        pi = rep["per_iteration"][phase]
        starts = [row["count"] for row in res.per_pc[reg.start:reg.end]
                  if row["mnemonic"] == "vu.init"]
        out[phase] = {"iterations": pi["iterations"],
                      "cycles": pi["cycles"] * pi["iterations"],
                      "energy_pj": pi["energy_pj"] * pi["iterations"],
                      "starts": starts[0] if starts else None}
    return out


def stages(bounds: list[int], arch_set: dict, sets: list[str], seed: int, out: list) -> None:
    """The VU gain and the iterations per loop start as learning goes on: both chips run
    ``bounds[-1]`` trials as prefix runs of every bound, differenced into bins of trials."""
    print(f"{'trials':>11s} {'plant steps':>11s} {'per trial':>9s} | {'actor: starts/step':>19s} "
          f"{'it./start':>9s} {'gain':>6s} | {'critic: starts/step':>19s} {'it./start':>9s} "
          f"{'gain':>6s} | {'comb. cycles':>12s} {'energy':>6s}   (starts and it./start: the VU "
          f"chip's; gains: each chip's own run, which differ after the first trials -- "
          f"--costs prices both on one workload)")
    prev = None
    for n in bounds:
        cur = {vu: totals(vu, arch_set, sets, n, seed) for vu in (False, True)}
        out.append({"trials": n, "base": cur[False], "vu": cur[True]})
        if prev is None:
            lo = 0
            d = cur
        else:
            lo = prev[True]["trials"]
            d = {vu: _minus(cur[vu], prev[vu]) for vu in (False, True)}
        prev = cur
        b, v = d[False], d[True]
        steps = v["plant_steps"]
        cols = []
        for ph in ("actor", "critic"):
            it, st = v[ph]["iterations"], v[ph]["starts"]
            gain = (b[ph]["cycles"] / b[ph]["iterations"]) / (v[ph]["cycles"] / it) \
                if it and b[ph]["iterations"] else float("nan")
            cols.append(f"{st / max(steps, 1):19.3f} {it / max(st, 1):9.1f} {gain:5.2f}x")
        comb = {}
        for key in ("cycles", "energy_pj"):
            tb, tv = _per_iteration(b, key), _per_iteration(v, key)
            comb[key] = tb / tv if tv else float("nan")
        print(f"{lo + 1:5d}-{n:<5d} {steps:11d} {steps / max(n - lo, 1):9.1f} | {cols[0]} | "
              f"{cols[1]} | {comb['cycles']:11.2f}x {comb['energy_pj']:5.2f}x",
              flush=True)


def learning_runs(seeds: list[int], arch_set: dict, sets: list[str],
                  trials: int | None) -> dict:
    """The VU gain over whole learning runs: for every seed each chip runs the manifest's
    run as it is (until a trial balances ``max_steps``, or its trial cap, or ``trials``), and
    the gain is the baseline run's region cycles (energy) per update iteration over the VU
    run's, critic and actor together. The two runs are each chip's own: they play different
    trials after the first ones, and may succeed at different trials."""
    print(f"triple link, both chips, each to the manifest's success or "
          f"{trials or 'its'} trial cap; settings: {sets or 'the manifest'}"
          + (f", architecture: {arch_set}" if arch_set else ""))
    print(f"{'seed':>4s} | {'trials: base':>12s} {'VU':>5s} | {'plant steps: base':>17s} "
          f"{'VU':>8s} | {'actor it./start (VU)':>20s} | {'cycles':>7s} {'energy':>7s}")
    rows = []
    for seed in seeds:
        run = {vu: totals(vu, arch_set, sets, trials, seed, stop_on_success=True)
               for vu in (False, True)}
        b, v = run[False], run[True]
        gain = {key: _per_iteration(b, key) / _per_iteration(v, key)
                for key in ("cycles", "energy_pj")}
        rows.append({"seed": seed, "base": b, "vu": v, "gain": gain})

        def tr(r):
            return (f"{r['trials_to_success']}" if r["trials_to_success"] is not None
                    else f"({r['trials']})")
        print(f"{seed:4d} | {tr(b):>12s} {tr(v):>5s} | {b['plant_steps']:17d} "
              f"{v['plant_steps']:8d} | "
              f"{v['actor']['iterations'] / max(v['actor']['starts'], 1):20.1f} | "
              f"{gain['cycles']:6.2f}x {gain['energy_pj']:6.2f}x", flush=True)
    mean = {key: sum(r["gain"][key] for r in rows) / len(rows) for key in ("cycles",
                                                                             "energy_pj")}
    print(f"mean of {len(rows)} seeds: cycles {mean['cycles']:.2f}x, energy "
          f"{mean['energy_pj']:.2f}x   (trials: the one that succeeded; in brackets, the run "
          f"ended at its cap without success)")
    return {"seeds": seeds, "sets": sets, "arch_set": arch_set, "trials": trials,
            "runs": rows, "mean": mean}


def _per_iteration(run: dict, key: str) -> float:
    """A chip run's region ``key`` (cycles or energy) per update iteration, both phases."""
    return sum(run[ph][key] for ph in PHASES) / max(sum(run[ph]["iterations"]
                                                        for ph in PHASES), 1)


def _minus(a: dict, b: dict) -> dict:
    out = {"plant_steps": a["plant_steps"] - b["plant_steps"], "trials": a["trials"]}
    for ph in PHASES:
        out[ph] = {k: (None if a[ph][k] is None else a[ph][k] - b[ph][k]) for k in a[ph]}
    return out


def table1(gain: float = PAPER_SPEEDUP["cycles"]) -> None:
    """What the paper's Table I says about L, with the arithmetic written out (no run)."""
    ni_a, nh_a = TRIPLE_NET["actor"][:2]
    ni_c, nh_c = TRIPLE_NET["critic"][:2]
    print("Table I (the ADHDP paper, IV-A), operations per time step on an input layer of N_i inputs "
          "and N_h hidden units\nwith L iterations: regular 2 N_i N_h L; virtual update "
          "2 (L + N_i - 1) N_h + N_i.")
    layers = {}
    for name, ni, nh in (("actor", ni_a, nh_a), ("critic", ni_c, nh_c)):
        reg, vl, vc = 2 * ni * nh, 2 * nh, 2 * (ni - 1) * nh + ni
        layers[name] = (reg, vl, vc)
        print(f"  {name} input layer {ni}x{nh}: regular 2*{ni}*{nh}*L = {reg} L; VU "
              f"2*(L+{ni}-1)*{nh}+{ni} = {vl} L + {vc}")
    # the operations of one iteration that the virtual update leaves in place (the programs'
    # instructions, fig2.inc: MACs, one per weight and pass)
    other = {"actor": (ni_c * nh_c + nh_c) + (nh_c + nh_c) + (nh_a + 2 * nh_a),
             "critic": 2 * nh_c + nh_c}
    print(f"  Table I gives no value of L (only L in [1, I_c] or [1, I_a]) and does not count "
          f"the operations the virtual\n  update leaves in place; per iteration these are, "
          f"actor: critic forward {ni_c}*{nh_c}+{nh_c}, BP to the action {nh_c}+{nh_c}, "
          f"actor output layer\n  FF {nh_a} + BP_WU 2*{nh_a} = {other['actor']}; critic: "
          f"output layer BP_WU 2*{nh_c} + FF {nh_c} = {other['critic']}.")
    print(f"  {'L':>4s} " + " ".join(f"{n + ' input layer':>19s} {n + ' iteration':>17s}"
                                      for n in layers))
    for L in (1, 2, 3, 3.5, 4, 6, 10, 50, 100):
        cells = []
        for name, (reg, vl, vc) in layers.items():
            o = other[name]
            whole = (reg + o) * L / ((vl + o) * L + vc)
            cells.append(f"{reg * L / (vl * L + vc):18.2f}x {whole:16.2f}x")
        print(f"  {L:>4} " + " ".join(cells))
    for name, (reg, vl, vc) in layers.items():
        o = other[name]
        a, b = reg + o, vl + o
        print(f"  {name}: gain (L) = {a} L / ({b} L + {vc}); = {gain} at L = {gain}*{vc} / "
              f"({a} - {gain}*{b}) = {gain * vc:.1f} / {a - gain * b:.1f} = "
              f"{gain * vc / (a - gain * b):.2f}; for many iterations {a}/{b} = {a / b:.2f}x")
    print("  So L near 3.5 (actor) is the L at which Table I's counts meet the paper's "
          f"{gain}x: the residual restated as an\n  L, not a value the paper gives. The paper's "
          "own words put L high: 'the maximum number of internal loops\n  ... is typically "
          "in the range of 10 to 100. In other words, many iterations are carried out for "
          "the\n  same input vector' (IV-A).")


def histogram(bounds: list[int], sets: list[str], seed: int) -> dict:
    """How the iterations of a started loop are distributed, by stage of learning: one run
    of the float64 golden model (``machines/adhdp/reference.py``, Fig. 2; it runs the
    simulator's ``adhdp-f64`` steps bit for bit) over ``bounds[-1]`` trials, its per-step
    loop iterations binned by trial."""
    import numpy as np

    from rlaccel.assembler.assemble import assemble_file
    from rlaccel.isa.arch import load_arch
    from rlaccel.machines.adhdp.host import Trials
    from rlaccel.machines.adhdp.plugin import defines, learning_config, program_path
    from rlaccel.machines.adhdp.reference import AdhdpReference
    from rlaccel.programs.runner import configure
    _, m = configure(TRIPLE.manifest, ["stop_on_success=false", *sets], arch="adhdp-f64",
                     seed=seed, trials=bounds[-1])
    arch = load_arch("adhdp-f64")
    ref = AdhdpReference.from_binary(assemble_file(program_path(m), arch=arch,
                                                   defines=defines(m)).binary, arch)
    trials = Trials(learning_config(m))
    ref.run(trials)
    its = np.array(ref.loop_iterations).reshape(-1, 2)
    ends = np.cumsum(trials.steps)          # a trial of n steps has n learning steps
    caps = {"critic": m["learning"]["Ic"], "actor": m["learning"]["Ia"]}
    print(f"float64 golden model, Fig. 2, seed {seed}, settings: {sets or 'the manifest'}; "
          f"per started loop: iterations (mean, median, 90th percentile), starts that end at "
          f"the cap I, starts of at most 5 iterations")
    print(f"{'trials':>11s} {'steps':>7s} | {'phase':6s} {'starts/step':>11s} {'mean':>6s} "
          f"{'median':>6s} {'p90':>5s} {'at cap':>7s} {'<= 5':>6s}")
    out, lo = {"seed": seed, "sets": sets, "bins": []}, 0
    for n in bounds:
        a, b = (int(ends[k - 1]) if k else 0 for k in (lo, min(n, len(ends))))
        row = {"trials": [lo + 1, n], "steps": b - a}
        for k, ph in enumerate(PHASES):
            x = its[a:b, k]
            st = x[x > 0]
            if not len(st):
                print(f"{lo + 1:5d}-{n:<5d} {b - a:7d} | {ph:6s} no loop started")
                continue
            row[ph] = {"starts": int(len(st)), "iterations": int(st.sum()),
                       "mean": float(st.mean()), "median": float(np.median(st)),
                       "p90": float(np.percentile(st, 90)),
                       "at_cap": float(np.mean(st == caps[ph])),
                       "at_most_5": float(np.mean(st <= 5))}
            r = row[ph]
            print(f"{lo + 1:5d}-{n:<5d} {b - a:7d} | {ph:6s} {len(st) / max(b - a, 1):11.3f} "
                  f"{r['mean']:6.1f} {r['median']:6.0f} {r['p90']:5.0f} {100 * r['at_cap']:6.1f}% "
                  f"{100 * r['at_most_5']:5.1f}%", flush=True)
        out["bins"].append(row)
        lo = n
    return out


def _knob(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--arch-set {text!r}: expected TABLE.KEY=VALUE")
    for kind in (int, float):
        try:
            return key, kind(value)
        except ValueError:
            pass
    return key, value


def costs(stage_files: list[str], histogram_file: str | None = None) -> dict:
    """Both chips' region cycles and energy on ONE workload. After the first trials the two
    chips' runs differ (Q6.18 rounds differently; in float64 the Fig. 7 program differs in the
    last bits and the plant amplifies it), so a bin's per-iteration figures of the two runs
    compare different loops. A region's cycles and energy are linear in the run's plant
    steps, loop starts and iterations (the instructions' timing does not depend on the
    values); the coefficients are fitted by least squares on the prefix totals of the
    ``--stages`` JSON files, with the largest relative residual printed (the baseline
    program has no instruction that runs once per start, so its fit has no start term).
    Each bin is then priced on the VU run's workload (its starts are counted), and with
    ``histogram_file`` (``--histogram`` JSON: the float64 golden model, which runs the
    baseline's float64 steps) on the baseline run's."""
    import numpy as np
    points = []
    for f in stage_files:
        points += [row for row in json.loads(Path(f).read_text())["stages"]]
    terms = {"base": ("plant_steps", "iterations"),
             "vu": ("plant_steps", "starts", "iterations")}

    def x(run: dict, ph: str, chip: str) -> list[float]:
        return [float(run[t] if t == "plant_steps" else run[ph][t]) for t in terms[chip]]
    model = {}
    print("fit: cycles (energy, pJ) per plant step, per loop start, per iteration; largest "
          "relative residual over the prefix runs")
    for chip in ("base", "vu"):
        for ph in PHASES:
            X = np.array([x(r[chip], ph, chip) for r in points])
            for key in ("cycles", "energy_pj"):
                y = np.array([r[chip][ph][key] for r in points])
                c = np.linalg.lstsq(X, y, rcond=None)[0]
                model[chip, ph, key] = c
                res = float(np.max(np.abs(X @ c - y) / y))
                print(f"  {chip:4s} {ph:6s} {key:9s} " + ", ".join(
                    f"{t.replace('plant_steps', 'step').rstrip('s')} {v:.2f}"
                    for t, v in zip(terms[chip], c)) + f"  (residual {res:.1e}, "
                    f"{len(points)} runs)")

    def price(chip: str, load: dict) -> dict:
        return {key: {ph: float(np.dot(model[chip, ph, key], x(load, ph, chip)))
                      for ph in PHASES} for key in ("cycles", "energy_pj")}

    def line(label: str, load: dict, show: bool = True) -> dict:
        b, v = price("base", load), price("vu", load)
        row = {"bin": label, "workload": load, "actor": b["cycles"]["actor"]
               / v["cycles"]["actor"], "critic": b["cycles"]["critic"] / v["cycles"]["critic"]}
        for key in ("cycles", "energy_pj"):
            row[key] = sum(b[key].values()) / sum(v[key].values())
        a = load["actor"]
        if show:
            print(f"  {label:30s} {load['plant_steps']:7d} "
                  f"{a['starts'] / load['plant_steps']:8.3f} "
                  f"{a['iterations'] / max(a['starts'], 1):7.1f} {row['actor']:6.2f}x "
                  f"{load['critic']['iterations'] / max(load['critic']['starts'], 1):7.1f} "
                  f"{row['critic']:6.2f}x {row['cycles']:8.2f}x {row['energy_pj']:6.2f}x")
        return row
    out = {"model": {f"{c} {p} {k}": list(v) for (c, p, k), v in model.items()}, "bins": []}
    print("both chips priced on one workload: steps, actor starts per step, actor iterations "
          "per start, actor gain, critic iterations per start, critic gain, combined cycles, "
          "energy")
    for f in stage_files:
        data = json.loads(Path(f).read_text())
        rows = data["stages"]
        fmt = data.get("arch_set", {}).get("machine.dtype", "f64" in Path(f).name and "float64"
                                           or "Q6.18")
        prev = None
        run = f"{fmt} s{data.get('seed', '?')} VU run"
        for r in rows:
            load = r["vu"] if prev is None else _minus(r["vu"], prev["vu"])
            lo = 0 if prev is None else prev["trials"]
            out["bins"].append(line(f"{run} {lo + 1}-{r['trials']}", load))
            prev = r
        if rows:   # the whole run: every trial of the longest prefix
            whole = line(f"{run} 1-{rows[-1]['trials']}, all", rows[-1]["vu"],
                         show=len(rows) > 1)
            own = {key: _per_iteration(rows[-1]["base"], key)
                   / _per_iteration(rows[-1]["vu"], key) for key in ("cycles", "energy_pj")}
            out.setdefault("whole", []).append({**whole, "format": fmt, "own_runs": own,
                                                "seed": data.get("seed")})
    by_format: dict[str, list[dict]] = {}
    for w in out.get("whole", []):
        by_format.setdefault(w["format"], []).append(w)
    for fmt, ws in by_format.items():
        def mean(get):
            return sum(get(w) for w in ws) / len(ws)
        print(f"  {fmt}, whole runs, seeds {', '.join(str(w['seed']) for w in ws)}: combined "
              f"cycles " + ", ".join(f"{w['cycles']:.2f}x" for w in ws)
              + f" (mean {mean(lambda w: w['cycles']):.2f}x), energy mean "
              f"{mean(lambda w: w['energy_pj']):.2f}x; each chip's own run: cycles "
              + ", ".join(f"{w['own_runs']['cycles']:.2f}x" for w in ws)
              + f" (mean {mean(lambda w: w['own_runs']['cycles']):.2f}x), energy mean "
              f"{mean(lambda w: w['own_runs']['energy_pj']):.2f}x")
    if histogram_file:
        h = json.loads(Path(histogram_file).read_text())
        for b in h["bins"]:
            load = {"plant_steps": b["steps"],
                    **{ph: {"starts": b[ph]["starts"], "iterations": b[ph]["iterations"]}
                       if ph in b else {"starts": 0, "iterations": 0} for ph in PHASES}}
            lo, hi = b["trials"]
            out["bins"].append(line(f"float64 base run {lo}-{hi}", load))
    return out


def saturations(vu: bool, arch_set: dict, sets: list[str], trials: int, seed: int) -> list:
    """Which values saturate in one chip's run of the triple link, by call site: every
    ``FixedType._saturate`` call is counted (the reference kernels, which call it; the
    compiled loop does not) with the first call's largest magnitude and how many elements
    had saturated by then. Most first."""
    import collections
    import traceback

    import numpy as np

    from rlaccel.isa.dtypes import fixed
    hits: collections.Counter = collections.Counter()
    first: dict = {}
    orig = fixed.FixedType._saturate

    def traced(self, y, counter=None):
        y = np.asarray(y)
        n = int(np.count_nonzero((y > self.max_raw) | (y < self.min_raw)))
        if n:
            stack = traceback.extract_stack(limit=6)[:-1]
            site = " <- ".join(f"{f.name}:{f.lineno}" for f in reversed(stack[-4:]))
            hits[site] += n
            first.setdefault(site, (sum(hits.values()),
                                    float(np.max(np.abs(y))) * 2.0 ** -self.frac_bits))
        return orig(self, y, counter)

    fixed.FixedType._saturate = traced
    try:
        chip_run(vu, arch_set, sets, trials, seed, TRIPLE, kernels="reference")
    finally:
        fixed.FixedType._saturate = orig
    return [{"elements": n, "site": site, "saturated_by_first_call": first[site][0],
             "first_call_max_abs": first[site][1]} for site, n in hits.most_common()]


def _save(path: str, doc) -> None:
    """``doc`` as JSON at ``path``, its directory made if need be."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(doc, indent=1))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=None,
                   help="trials per run (default 10; with --runs, the manifest's cap)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--L", default="2,3,4,6,10,100", help="iterations per step to fix")
    p.add_argument("--json", default="out/adhdp_causes.json")
    p.add_argument("--directions", action="store_true",
                   help="instead: the model's Fig. 12 directions on all three sizes (arithmetic "
                        "operations per cycle, arithmetic and synapse power without the clock "
                        "term, base -> VU, per phase)")
    p.add_argument("--stages", default="",
                   help="instead: the gain and the iterations per loop start by stage of "
                        "learning, e.g. 10,30,100,300 (prefix runs of that many trials, "
                        "differenced into bins)")
    p.add_argument("--set", action="append", default=[], dest="sets", metavar="KEY=VALUE",
                   help="a manifest setting for --stages and --histogram (e.g. "
                        "learning.lr_actor=0.3)")
    p.add_argument("--table1", action="store_true",
                   help="instead: the L that the paper's Table I operation counts give for "
                        "the paper's 1.47x, arithmetic written out (no run)")
    p.add_argument("--rows", default="",
                   help="only the variants whose name starts with one of these "
                        "(comma-separated), e.g. 'model,cited'")
    p.add_argument("--histogram", default="",
                   help="instead: the distribution of a started loop's iterations by stage of "
                        "learning, e.g. 10,100 (float64 golden model, trials binned)")
    p.add_argument("--arch-set", action="append", default=[], metavar="TABLE.KEY=VALUE",
                   help="an architecture knob for --stages (e.g. machine.dtype=float64)")
    p.add_argument("--costs", nargs="+", metavar="STAGES_JSON",
                   help="instead: both chips priced on one workload per bin, from saved "
                        "--stages JSON files (no run); --histogram-json adds the baseline "
                        "run's float64 bins")
    p.add_argument("--histogram-json", help="a --histogram JSON for --costs")
    p.add_argument("--runs", default="",
                   help="instead: the gain over whole learning runs of these seeds, e.g. "
                        "1,2,3 (each chip runs the manifest to its success or trial cap; "
                        "--trials caps it lower)")
    p.add_argument("--saturations", choices=("base", "vu"),
                   help="instead: which values saturate in that chip's run of --trials trials "
                        "from --seed, by call site (the reference kernels: slow, about 130 s "
                        "per 100 trials)")
    a = p.parse_args(argv)
    if a.saturations:
        trials = 10 if a.trials is None else a.trials
        rows = saturations(a.saturations == "vu", dict(_knob(x) for x in a.arch_set), a.sets,
                           trials, a.seed)
        print(f"triple link, {a.saturations} chip, seed {a.seed}, {trials} trials: "
              f"{sum(r['elements'] for r in rows):,} saturated elements")
        for r in rows:
            print(f"{r['elements']:>9,}  (first call: {r['saturated_by_first_call']:,} so far, "
                  f"max |y| {r['first_call_max_abs']:.1f})  {r['site']}")
        _save(a.json, {"chip": a.saturations, "seed": a.seed, "trials": trials, "sites": rows})
        return 0
    if a.runs:
        r = learning_runs([int(x) for x in a.runs.split(",") if x],
                          dict(_knob(x) for x in a.arch_set), a.sets,
                          a.trials)
        _save(a.json, r)
        return 0
    if a.trials is None:
        a.trials = 10
    if a.costs:
        c = costs(a.costs, a.histogram_json)
        _save(a.json, c)
        return 0
    if a.histogram:
        h = histogram([int(x) for x in a.histogram.split(",") if x], a.sets, a.seed)
        _save(a.json, h)
        return 0
    if a.table1:
        table1()
        return 0
    if a.stages:
        rows: list = []
        arch_set = dict(_knob(x) for x in a.arch_set)
        print(f"triple link, both chips, seed {a.seed}, settings: {a.sets or 'the manifest'}"
              f"{', architecture: ' + str(arch_set) if arch_set else ''}")
        stages([int(x) for x in a.stages.split(",") if x], arch_set, a.sets, a.seed, rows)
        _save(a.json, {"seed": a.seed, "sets": a.sets, "arch_set": arch_set, "stages": rows})
        return 0
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
    print(f"paper (triple link, combined): {PAPER_SPEEDUP['cycles']}x cycles, "
          f"{PAPER_SPEEDUP['energy']}x energy")
    print(f"{'variant':24s} {'critic base/VU':>14s} {'gain':>6s} {'actor base/VU':>14s} "
          f"{'gain':>6s} {'comb.':>6s} {'energy':>6s} | {'no-overlap':>10s} | arith ops/cycle "
          f"critic, actor (base->VU) | arith mW, SRAM mW actor (base->VU) | actor "
          f"iterations per start")
    rows = []
    pick = tuple(x for x in a.rows.split(",") if x)
    for name, arch_set, sets in variants(ls):
        if pick and not name.startswith(pick):
            continue
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
    _save(a.json, {"trials": a.trials, "seed": a.seed, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
