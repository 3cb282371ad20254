"""Training time and throughput against the number of agents: the MADDPG paper's scaling
claim (section V-D: the speed-up grows with the agents, from "agent-level parallelism" and
"fine-grained inter-agent communication"; section III-A: the ring's O(N) hops "hidden by the
computations").

    python machines/maddpg/bench/agents.py [--agents 2 3 4 5 6 7 8] [--batch 512] [--rounds 2]
        [--baseline-rounds 30] [--design manifest|paper]
        [--json machines/maddpg/bench/results/agents.json]
        [--plot machines/maddpg/figures/agents]

The task is Predator-Prey (``simple_tag_v3``) with ``N - 1`` MADDPG predators and the DDPG
prey (``[task] num_adversaries = N - 1``; the paper's has N = 4) on the U200 with N learners
(``maddpg-pp`` with ``machine.agents = N``, the PCIe link's 10 words per cycle shared
equally; the N learners placed and sized on the three SLRs by the manifest's design search,
the cost model's LUT, flip-flop, DSP and BRAM budgets (``--design manifest``, the default),
or by the paper's eqs. 5-6 alone, DSPs and banks (``--design paper``,
:func:`~..report.paper_design_f`)). For every N:

* the simulated update round (``rlaccel run``, ``--rounds`` rounds at batch ``--batch``) with
  the architecture's ring, and again with a free ring (``interconnect.latency = 0`` and
  ``interconnect.words_per_cycle`` the largest message): **the ring's cost** is the
  difference of the two rounds, beside the ring's per-sample all-gather cycles against the
  slowest stage, the time the ring is busy in a round (``B`` all-gathers) and the cycles the
  critics waited for the other learners' actions;
* the CPU-only baseline (:mod:`..baseline`: the float reference on one thread, the minimum
  CPU time over ``--baseline-rounds`` rounds, its spread), T_SG and replay sampling;
* the speed-up (CPU training / simulated round), throughput in trained agent-samples per
  second (``N B / round``) on both, and system IPS (eq. 7) on both.

The default batch is 512: a round's host exchange of six learners at 1,024 samples is longer
than ``cc.host``'s 18-bit length field. The JSON (``--json``) is written after every N;
``--plot BASE`` draws ``BASE.png`` and ``.svg`` from it (``--plot-only`` redraws from the
JSON without measuring).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rlaccel.isa.machine import machine
from rlaccel.programs.runner import run

MANIFEST = machine("maddpg").programs / "simple_tag.toml"
ENV = "simple_tag_v3"
#: the U200's PCIe words per cycle, shared equally by the learners (maddpg.toml [hostlink])
LINK_WORDS = 10.0


def _write(path, data) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


#: the design searches a sweep may simulate (as ``rlaccel report maddpg --design``)
DESIGNS = ("manifest", "paper")


def simulate(n: int, batch: int, rounds: int, seed: int, free_ring: bool,
             design: str = "manifest") -> dict:
    """``rounds`` simulated update rounds of Predator-Prey with ``n`` agents on ``design``'s
    unroll factors (:data:`DESIGNS`)."""
    every = 100
    first = -(-batch // every) * every
    arch = {"machine.agents": n, "hostlink.words_per_cycle": LINK_WORDS / n}
    if free_ring:
        arch.update({"interconnect.latency": 0, "interconnect.words_per_cycle": 5 * n})
    from rlaccel.machines.maddpg.report import paper_design_f
    task = [f"task.num_adversaries={n - 1}"]
    if design == "paper":
        task.append(f"dse.f={paper_design_f(MANIFEST, task)}")
    r = run(MANIFEST, [*task,
                       f"learning.batch={batch}", f"learning.learning_starts={batch}",
                       f"learning.update_every={every}", "window=10"],
            seed=seed, steps=first + (rounds - 1) * every, arch_overrides=arch)
    ips, ring, d = r["ips"], r["ring"], r["dse"]
    return {"rounds": ips["rounds"], "learner_s": ips["learner_s"],
            "compute_s": ips["compute_s"], "transfer_s": ips["transfer_s"],
            "ring": {k: ring[k] for k in ("per_sample_allgather_cycles", "slowest_stage_cycles",
                                          "hidden_by_formula", "exposed_cycles_per_round")},
            "dse": {"f": d["f"], "search": d["search"], "stage_cycles": d["stage_cycles"],
                    "dsp_used": d["dsp_used"], "bram_used": d["bram_used"],
                    "cost_model": {k: v for k, v in (d.get("cost_model") or {}).items()
                                   if k != "bram_parts"},
                    "over_guideline": d.get("over_guideline", []),
                    "placement": [s["agents"] for s in d["slr"]]}}


def load_manifest_arch() -> str:
    """The architecture the manifest names (its clock is the learners')."""
    import tomllib
    return tomllib.loads(MANIFEST.read_text())["arch"]


def one(n: int, batch: int, rounds: int, baseline_rounds: int, seed: int,
        design: str = "manifest") -> dict:
    from rlaccel.isa.arch import load_arch
    t0 = time.perf_counter()
    clock = load_arch(load_manifest_arch()).knobs.clock_mhz * 1e6
    sim = simulate(n, batch, rounds, seed, free_ring=False, design=design)
    free = simulate(n, batch, rounds, seed, free_ring=True, design=design)
    row = {"agents": n, "batch": batch, "simulated": sim, "free_ring": free,
           "ring_cost_s": sim["learner_s"] - free["learner_s"],
           "ring_busy_s": batch * sim["ring"]["per_sample_allgather_cycles"] / clock}
    cpu(row, baseline_rounds, seed)
    row["wall_s"] = time.perf_counter() - t0
    return row


def cpu(row: dict, repeats: int, seed: int) -> None:
    """Measure the CPU baseline of ``row``'s N and batch (again: the samples of every pass
    pooled, so a stretch of heavy load during one pass does not set the minimum) and derive
    the speed-up and throughputs."""
    from rlaccel.machines.maddpg.baseline import measure, merge
    n, batch = row["agents"], row["batch"]
    base = measure(ENV, [batch], repeats, steps=batch + 100, seed=seed,
                   policies={"agent_0": "ddpg"}, env_kwargs={"num_adversaries": n - 1},
                   openai_lists=False)
    if "samples" in row.get("cpu", {}):
        base = merge({**base, "samples": row["cpu"]["samples"],
                      "load_average": row["cpu"]["load_average"]}, base)
    c = base["batches"][str(batch)]
    t_sg, samp = base["t_sg_cpu_s"], c["sampling_cpu_s"]
    cpu_s, acc = c["training_cpu_s"], row["simulated"]["learner_s"]
    row["cpu"] = {"training_s": cpu_s, "training": c["training_cpu"], "sampling_s": samp,
                  "t_sg_s": t_sg, "load_average": base["load_average"],
                  "samples": base["samples"]}
    row["speedup"] = cpu_s / acc
    row["samples_per_s"] = {"cpu": n * batch / cpu_s, "acc": n * batch / acc}
    row["ips"] = {"cpu": 1.0 / (t_sg + samp + cpu_s), "acc": 1.0 / (t_sg + samp + acc)}


def plot(res: dict, base: str) -> list[str]:
    """Training time per round (CPU, simulated round, its ring's cost) and the speed-up and
    throughput against the number of agents."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted(res["rows"], key=lambda r: r["agents"])
    n = [r["agents"] for r in rows]
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(15, 4.4))
    a.plot(n, [1e3 * r["cpu"]["training_s"] for r in rows], "o-", label="CPU only (measured)")
    a.plot(n, [1e3 * r["simulated"]["learner_s"] for r in rows], "s-",
           label="CPU-FPGA round (simulated)")
    a.plot(n, [1e3 * r["free_ring"]["learner_s"] for r in rows], "^--",
           label="CPU-FPGA round, free ring")
    hidden = all(r["simulated"]["ring"]["hidden_by_formula"] for r in rows)
    a.plot(n, [1e3 * r["ring_busy_s"] for r in rows], "x:",
           label=f"the ring busy (all-gathers{', hidden' if hidden else ''})")
    cost = max(abs(r["ring_cost_s"]) for r in rows)
    a.text(0.02, 0.02, f"round with the ring - round with a free ring: at most "
           f"{cost * 1e9:.0f} ns", transform=a.transAxes, fontsize=8)
    a.set_yscale("log")
    a.set_xlabel("agents N")
    a.set_ylabel(f"ms per update round (batch {rows[0]['batch']})")
    a.set_title("learner training time per round")
    a.legend(fontsize=8)
    b.plot(n, [r["speedup"] for r in rows], "o-", color="C3")
    for r in rows:                     # the design: base factor and learners per SLR
        d = r["simulated"]["dse"]
        b.annotate(f"f={d['f']}\n" + "/".join(str(len(a)) for a in d["placement"]),
                   (r["agents"], r["speedup"]), textcoords="offset points", xytext=(0, 6),
                   ha="center", fontsize=7)
    b.margins(y=0.2)
    b.set_xlabel("agents N")
    b.set_ylabel("CPU training / simulated round")
    b.set_title("training speed-up (f; learners per SLR)")
    c.plot(n, [r["samples_per_s"]["cpu"] / 1e6 for r in rows], "o-", label="CPU only")
    c.plot(n, [r["samples_per_s"]["acc"] / 1e6 for r in rows], "s-", label="CPU-FPGA")
    c.set_yscale("log")
    c.set_xlabel("agents N")
    c.set_ylabel("M agent-samples trained per s")
    c.set_title("training throughput (N B / round)")
    c.legend(fontsize=8)
    for ax in (a, b, c):
        ax.set_xticks(n)
        ax.grid(alpha=0.3)
    design = {"manifest": "the design search within the cost model's budgets",
              "paper": "the paper's eqs. 5-6"}[res.get("design", "paper")]
    fig.suptitle("MADDPG on Predator-Prey with N - 1 predators and a prey, U200 with N "
                 f"learners ({design})")
    fig.tight_layout()
    files = []
    for ext in ("png", "svg"):
        p = f"{base}.{ext}"
        os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
        fig.savefig(p, dpi=110)
        files.append(p)
    plt.close(fig)
    return files


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", nargs="+", type=int, default=[2, 3, 4, 5, 6, 7, 8])
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--baseline-rounds", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--design", choices=DESIGNS, default="manifest",
                   help="the learners' unroll factors: the manifest's design search within "
                        "the cost model's budgets (default) or the paper's eqs. 5-6")
    p.add_argument("--json", default="machines/maddpg/bench/results/agents.json")
    p.add_argument("--plot", metavar="BASE", default="machines/maddpg/figures/agents")
    p.add_argument("--plot-only", action="store_true", help="redraw from the JSON")
    p.add_argument("--cpu-again", action="store_true",
                   help="measure the JSON's CPU baselines once more (pooled with the "
                        "samples it holds), then redraw")
    args = p.parse_args(argv)
    if args.cpu_again:
        res = json.loads(Path(args.json).read_text())
        for row in res["rows"]:
            cpu(row, args.baseline_rounds, res["seed"])
            print(f"N = {row['agents']}: CPU {row['cpu']['training_s'] * 1e3:.2f} ms, "
                  f"speed-up {row['speedup']:.1f}x", flush=True)
            _write(args.json, res)
    if args.plot_only or args.cpu_again:
        print("plots: " + ", ".join(plot(json.loads(Path(args.json).read_text()), args.plot)))
        return 0
    res = {"what": "MADDPG training time and throughput against the number of agents "
                   "(machines/maddpg/bench/agents.py)",
           "command": "python machines/maddpg/bench/agents.py"
                      + ("" if args.design == "manifest" else f" --design {args.design}"),
           "design": args.design, "batch": args.batch, "rounds": args.rounds,
           "baseline_rounds": args.baseline_rounds, "seed": args.seed, "rows": []}
    for n in args.agents:
        r = one(n, args.batch, args.rounds, args.baseline_rounds, args.seed, args.design)
        res["rows"].append(r)
        print(f"N = {n}: CPU {r['cpu']['training_s'] * 1e3:.2f} ms, simulated round "
              f"{r['simulated']['learner_s'] * 1e3:.3f} ms (free ring "
              f"{r['free_ring']['learner_s'] * 1e3:.3f} ms, ring cost "
              f"{r['ring_cost_s'] * 1e6:.1f} us), speed-up {r['speedup']:.1f}x, f = "
              f"{r['simulated']['dse']['f']} ({r['wall_s']:.0f} s)", flush=True)
        _write(args.json, res)
    if args.plot:
        print("plots: " + ", ".join(plot(res, args.plot)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
