"""``rlaccel report maddpg``: the MADDPG paper's Fig. 7 and Table II on the simulator.

For both tasks and every batch size (64 .. 1024 by default) it simulates a few update rounds
of the machine (``machines/maddpg/<task>.toml`` with that batch, learning from the first
full batch; by default on the paper's design, :func:`paper_design_f`) and measures the CPU-only baseline here (:mod:`.baseline`: the float reference,
or with ``--baseline torch`` the same round in PyTorch, training every agent on one thread
of this CPU, the minimum over ``--baseline-rounds`` repeats with their spread), then writes

* Fig. 7(a, b): the learners' training time per round, simulated accelerator (whole round:
  host link, pipelines, gradients, the policy back; and the training alone) against the CPU
  baseline, and the speed-up -- numerator (CPU) and denominator (accelerator) per batch
  size, ``speedup_range`` per task and over both -- next to the paper's 3.6x - 24.3x;
* Fig. 7(c, d): system throughput IPS = 1 / (T_SG + T_MU) (eq. 7; one environment step and
  one update round per iteration), both systems with the T_SG and replay sampling measured
  here, next to the paper's "up to 1.99x"; and the same with openai/maddpg's list-based
  replay sampling, which the paper's baselines inherit;
* Table II next to the design-space exploration of each task;
* the pipelines as simulated (fill, steady state, bottleneck) and the ring (hidden or not);

as ``DIR/report.md``, ``DIR/report.json`` and PNG and SVG plots. Host-side times are CPU
time in a child process with one BLAS thread (the paper's single training thread; what an
idle core would take: the wall clock on a shared machine also counts waiting). A line for
every batch size and baseline as it finishes and, on a terminal, a bar of the runs done
(simulations and baseline halves; none with ``-q``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from rlaccel.machines.maddpg.results import describe_pipeline

__all__ = ["add_arguments", "cmd_report", "paper_design_f", "PAPER"]

ROOT = Path(__file__).parent / "programs"
MANIFESTS = {"simple_speaker_listener_v4": ROOT / "speaker_listener.toml",
             "simple_tag_v3": ROOT / "simple_tag.toml"}
NAMES = {"simple_speaker_listener_v4": "Cooperative Communication",
         "simple_tag_v3": "Predator-Prey"}

#: the paper's headline figures (abstract, section V-D)
PAPER = {"speedup_min": 3.6, "speedup_max": 24.3, "ips_gain_max": 1.99}
#: how far a speed-up end may lie from the paper's and still count as reproduced
TOLERANCE = 0.20


#: what report.json keeps under ``timing``: the CPU baseline and every figure that compares
#: with it (all measured on this host), the host's per-step times, wall clocks
TIMING = ("envs.*.baseline", "envs.*.figures", "envs.*.simulated.*.t_sg_cpu_s",
          "envs.*.simulated.*.t_sample_cpu_s", "envs.*.simulated.*.sim_wall_s", "wall_s",
          "blas_threads", "speedup_range", "against_paper")


def inputs(args) -> list[tuple[str, str]]:
    """The files the report reads: the tasks' manifests and every file they name."""
    from rlaccel.programs.runner import manifest_inputs
    return [i for env in args.envs for i in manifest_inputs(MANIFESTS[env], args.set)]


def add_arguments(parser) -> None:
    from rlaccel.util.args import file_name, int_in, seed
    parser.add_argument("-o", "--output", metavar="DIR", type=file_name,
                        default="out/report_maddpg", help="output folder")
    parser.add_argument("--envs", nargs="+", choices=list(MANIFESTS), default=list(MANIFESTS),
                        help="the tasks (default: both)")
    parser.add_argument("--batches", nargs="+", type=int_in(1, 65_536),
                        default=[64, 128, 256, 512, 1024],
                        metavar="B", help="batch sizes (default 64 .. 1024)")
    parser.add_argument("--rounds", type=int_in(1, 1_000_000), default=5, metavar="R",
                        help="simulated update rounds per batch size (default 5)")
    parser.add_argument("--baseline-rounds", type=int_in(1, 1_000_000), default=100, metavar="R",
                        help="CPU baseline rounds per batch size; the speed-up uses the "
                             "minimum (default 100)")
    parser.add_argument("--baseline", choices=["numpy", "torch"], default="numpy",
                        help="the CPU baseline's learner: the float reference (numpy, "
                             "default) or the same round in PyTorch (the paper's stack; needs "
                             "the torch extra)")
    parser.add_argument("--steps", type=int_in(1, 100_000_000), default=2000, metavar="N",
                        help="environment steps that measure T_SG (default 2000)")
    parser.add_argument("--design", choices=["paper", "manifest"], default="paper",
                        help="the simulated design: the paper's search (eq. 6: DSPs and "
                             "banks, what Fig. 7 measured; default) or the manifest's own "
                             "(with the cost model's LUT and FF budgets)")
    parser.add_argument("--seed", type=seed, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a manifest key of every run (e.g. learning.hidden=[8,8])")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def paper_design_f(manifest, extra=()) -> int:
    """The base factor f of the paper's design search (section IV: eqs. 5-6, each SLR's DSPs
    and banks, no LUT or flip-flop budget) for a manifest's task and device: the design the
    paper's Fig. 7 measured (Table II's DSPs), which the simulations of this report force
    with ``dse.f`` unless ``--design manifest`` asks for the manifest's own search."""
    from dataclasses import replace

    from rlaccel.isa.arch import load_arch
    from rlaccel.machines.maddpg.plugin import config, learners
    from rlaccel.machines.maddpg.task import make_task
    from rlaccel.machines.maddpg.tlm.device import device_of
    from rlaccel.machines.maddpg.tlm.dse import explore
    from rlaccel.programs.runner import configure
    _, m = configure(manifest, list(extra))
    cfg = config(m)
    task = make_task(cfg.env, max_cycles=cfg.max_episode_len, policies=cfg.policies,
                     env_kwargs=cfg.env_kwargs)
    dev = replace(device_of(load_arch(m["arch"])), fabric=None)
    return explore(learners(task, cfg.hidden), dev, bram_per_bank=dev.bram_per_bank,
                   search=m["dse"]["search"] or dev.search).f


def _simulate(env: str, B: int, rounds: int, seed: int, extra, meter=None) -> dict:
    from rlaccel.programs.runner import run
    every = 100
    first = -(-B // every) * every                     # the first due step, buffer >= B
    from rlaccel.tlm.results import with_timing
    r = with_timing(run(MANIFESTS[env], [f"learning.batch={B}", f"learning.learning_starts={B}",
                                         f"learning.update_every={every}", "window=10",
                                         *extra],
                        seed=seed, steps=first + (rounds - 1) * every, meter=meter))
    ips, pipes = r["ips"], r["pipelines"]
    units = [u for lr in r["learners"] for u in lr["units"] if not u["stage"].startswith("head")]
    return {"rounds": ips["rounds"], "learner_s": ips["learner_s"],
            "compute_s": ips["compute_s"], "transfer_s": ips["transfer_s"],
            "t_sg_cpu_s": ips["t_sg_cpu_s"], "t_sample_cpu_s": ips["t_sample_cpu_s"],
            "pipelines": pipes, "ring": r["ring"],
            "cu_utilization_mean": float(np.mean([u["utilization"] for u in units])),
            "cu_utilization_max": float(np.max([u["utilization"] for u in units])),
            "dse": {k: r["dse"][k] for k in ("f", "stage_cycles", "dsp_used", "bram_used")},
            "cycles": r["cycles"], "sim_wall_s": r["sim"]["run_wall_s"]}


def _figures(env: str, sim: dict, base: dict, batches) -> dict:
    t_sg = base["t_sg_cpu_s"]
    rows = []
    for B in batches:
        s, c = sim[str(B)], base["batches"][str(B)]
        cpu_mu = c["sampling_cpu_s"] + c["training_cpu_s"]
        acc_mu = c["sampling_cpu_s"] + s["learner_s"]
        spread = c["training_cpu"]
        row = {"batch": B, "cpu_training_s": c["training_cpu_s"],
               "cpu_training_median_s": spread["median"],
               "cpu_training_max_s": spread["max"], "cpu_training_spread": spread["spread"],
               "acc_learner_s": s["learner_s"], "acc_compute_s": s["compute_s"],
               "acc_transfer_s": s["transfer_s"],
               "speedup": c["training_cpu_s"] / s["learner_s"],
               "speedup_median": spread["median"] / s["learner_s"],
               "speedup_compute_only": c["training_cpu_s"] / s["compute_s"],
               "sampling_s": c["sampling_cpu_s"], "t_sg_s": t_sg,
               "ips_cpu": 1.0 / (t_sg + cpu_mu), "ips_acc": 1.0 / (t_sg + acc_mu)}
        row["ips_gain"] = row["ips_acc"] / row["ips_cpu"]
        if "openai_list_sampling_cpu_s" in c:
            ls = c["openai_list_sampling_cpu_s"]
            row["ips_cpu_openai_sampling"] = 1.0 / (t_sg + ls + c["training_cpu_s"])
            row["ips_acc_openai_sampling"] = 1.0 / (t_sg + ls + s["learner_s"])
            row["ips_gain_openai_sampling"] = (row["ips_acc_openai_sampling"]
                                               / row["ips_cpu_openai_sampling"])
        rows.append(row)
    first = rows[0]
    implied = first["cpu_training_s"] / PAPER["speedup_min"]
    return {"rows": rows,
            "speedup_range": [min(r["speedup"] for r in rows), max(r["speedup"] for r in rows)],
            "ips_gain_max": max(r["ips_gain"] for r in rows),
            "ips_gain_max_openai_sampling": max((r.get("ips_gain_openai_sampling", 0.0)
                                                 for r in rows), default=None),
            "implied_fixed": {"batch": first["batch"], "paper_speedup": PAPER["speedup_min"],
                              "fpga_round_s": implied,
                              "fixed_s": implied - first["acc_compute_s"]}}


def against_paper(lo: float, hi: float) -> dict:
    """The speed-up range's ends against the paper's: each end's ratio to the paper's and
    whether it lies within :data:`TOLERANCE` of it."""
    ratio = [lo / PAPER["speedup_min"], hi / PAPER["speedup_max"]]
    return {"paper": [PAPER["speedup_min"], PAPER["speedup_max"]], "ratio": ratio,
            "within_tolerance": [abs(r - 1.0) <= TOLERANCE for r in ratio],
            "tolerance": TOLERANCE}


def _plots(out: Path, env: str, fig: dict) -> list[str]:
    from rlaccel.util.plots import lines, save
    rows = fig["rows"]
    xs = [r["batch"] for r in rows]
    none = [None] * len(xs)
    tag = "cc" if env.startswith("simple_speaker") else "pp"
    files = []

    def series(**kw):
        return {name: {"x": xs, "y": [r[key] * scale for r in rows], "lo": none, "hi": none}
                for name, (key, scale) in kw.items()}
    f = lines(f"Fig. 7({'a' if tag == 'cc' else 'b'}) {NAMES[env]}: learner training time "
              f"per round", "batch size", "ms per round",
              series(**{"CPU only (measured here)": ("cpu_training_s", 1e3),
                        "CPU-FPGA, simulated (round)": ("acc_learner_s", 1e3),
                        "CPU-FPGA, simulated (training only)": ("acc_compute_s", 1e3)}),
              xticks=xs)
    ax = f.axes[0]
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(xs, [str(x) for x in xs])
    files += [str(p) for p in save(f, out / f"fig7_{tag}_training_time")]
    f = lines(f"Fig. 7({'c' if tag == 'cc' else 'd'}) {NAMES[env]}: system throughput "
              f"(eq. 7)", "batch size", "iterations per second",
              series(**{"CPU only": ("ips_cpu", 1.0), "CPU-FPGA (simulated)": ("ips_acc", 1.0),
                        "CPU only, openai list sampling": ("ips_cpu_openai_sampling", 1.0),
                        "CPU-FPGA, openai list sampling": ("ips_acc_openai_sampling", 1.0)}),
              xticks=xs)
    ax = f.axes[0]
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [str(x) for x in xs])
    files += [str(p) for p in save(f, out / f"fig7_{tag}_ips")]
    return files


def _ms(x) -> str:
    return f"{x * 1e3:.3f}"


def _cpu(base: dict) -> str:
    """The CPU a baseline ran on, as a phrase."""
    c = base.get("cpu")
    if not c:
        return "CPU not recorded"
    return (f"CPU {c['name']} (family {c['family']}, model {c['model']}; "
            f"{', '.join(c['simd']) or 'no AVX'}; OpenBLAS kernels "
            f"{c['blas_core'] or 'unknown'})")


def _markdown(doc: dict) -> str:
    learner = {"numpy": "the float reference (numpy)",
               "torch": "the same round in PyTorch"}[doc["baseline"]]
    lo, hi = doc["speedup_range"]
    cmp_ = doc["against_paper"]
    design = {"paper": "the paper's design search (eq. 6: DSPs and banks)",
              "manifest": "the manifest's design search"}[doc["design"]]
    L = ["# The MADDPG paper on the simulator: Fig. 7 and Table II (`rlaccel report maddpg`)",
         "",
         f"Simulated: {doc['rounds']} update rounds per batch size on the `maddpg` machines "
         f"(fp32, 300 MHz, the unroll factors of {design}, PCIe and ring of the "
         f"architecture files). CPU-only baseline: {learner} on one thread of this machine, the minimum "
         f"CPU time over {doc['baseline_rounds']} rounds per batch size (the median and the "
         f"spread beside it). An iteration is one environment step and one update round "
         f"(eq. 7).", "",
         f"**Speed-up {lo:.1f}x - {hi:.1f}x over both tasks** (paper: "
         f"{PAPER['speedup_min']}x - {PAPER['speedup_max']}x; ends at "
         f"{cmp_['ratio'][0]:.2f} and {cmp_['ratio'][1]:.2f} of the paper's).", ""]
    for env, e in doc["envs"].items():
        fig = e["figures"]
        L += [f"## {NAMES[env]} (`{env}`)", "",
              f"T_SG (every agent's inference, the environment step, storing) "
              f"{e['baseline']['t_sg_cpu_s'] * 1e3:.3f} ms per step; load average "
              + ", ".join(f"{x:.1f}" for x in e["baseline"]["load_average"])
              + " before and after the baseline's two halves; " + _cpu(e["baseline"]) + ".",
              "",
              "| batch | CPU training (ms): min, median, spread | accelerator round (ms) | "
              "of which host link | training only | speed-up | speed-up, training only | "
              "replay sampling (ms) | IPS CPU | IPS CPU-FPGA | IPS gain | "
              "IPS gain, openai sampling |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in fig["rows"]:
            L.append(f"| {r['batch']} | {_ms(r['cpu_training_s'])}, "
                     f"{_ms(r['cpu_training_median_s'])}, "
                     f"{100 * r['cpu_training_spread']:.0f} % | {_ms(r['acc_learner_s'])} "
                     f"| {_ms(r['acc_transfer_s'])} | {_ms(r['acc_compute_s'])} | "
                     f"{r['speedup']:.1f}x | {r['speedup_compute_only']:.1f}x | "
                     f"{_ms(r['sampling_s'])} | {r['ips_cpu']:.1f} | {r['ips_acc']:.1f} | "
                     f"{r['ips_gain']:.2f}x | "
                     f"{r.get('ips_gain_openai_sampling', float('nan')):.2f}x |")
        imp = fig["implied_fixed"]
        L += ["", f"Speed-up {fig['speedup_range'][0]:.1f}x - {fig['speedup_range'][1]:.1f}x "
                  f"(paper: {PAPER['speedup_min']}x - {PAPER['speedup_max']}x over both tasks); "
                  f"IPS gain up to {fig['ips_gain_max']:.2f}x, "
                  f"{fig['ips_gain_max_openai_sampling']:.2f}x with openai/maddpg's list "
                  f"sampling (paper: up to {PAPER['ips_gain_max']}x).",
              f"Had our CPU baseline been the paper's, its {imp['paper_speedup']}x at batch "
              f"{imp['batch']} would put the FPGA round at {imp['fpga_round_s'] * 1e3:.3f} ms, "
              f"{imp['fixed_s'] * 1e3:.3f} ms more than our simulated training of that batch: "
              f"fixed costs (launch, transfers, host) that large.", ""]
        s = e["simulated"][str(max(int(b) for b in e["simulated"]))]
        for name, p in s["pipelines"].items():
            if p:
                L.append(f"* batch {max(int(b) for b in e['simulated'])}, "
                         f"{describe_pipeline(name, p)}.")
        ring = s["ring"]
        L.append(f"* ring: a sample's all-gather takes {ring['per_sample_allgather_cycles']} "
                 f"cycles against a {ring['slowest_stage_cycles']}-cycle slowest stage: "
                 f"{'hidden' if ring['hidden_by_formula'] else 'NOT hidden'}; the learners' "
                 f"critics waited " + ", ".join(f"{x:.0f}" for x in
                                                ring["exposed_cycles_per_round"])
                 + " cycles per round for the other learners' actions (their pipelines and "
                   "the ring).")
        d, t = e["dse"], e["dse"]["table_ii"]
        L += ["", "| Table II | DSP | BRAM | FF | LUT |", "|---|---:|---:|---:|---:|",
              f"| paper (post-synthesis) | {t['dsp']} ({t['dsp_percent']} %) | {t['bram']} "
              f"({t['bram_percent']} %) | {t['ff']:,} ({t['ff_percent']} %) | {t['lut']:,} "
              f"({t['lut_percent']} %) |",
              f"| our DSE (eq. 6: CUs only), f = {d['f']} | {d['dsp_used']} "
              f"({d['dsp_percent']:.1f} %) | {d['bram_used']:g} ({d['bram_percent']:.1f} %) | "
              f"- | - |", "",
              "Per SLR: " + "; ".join(f"{s['name']} ({', '.join(s['agents']) or '-'}): "
                                      f"{s['dsp_used']}/{s['dsp_budget']} DSP, "
                                      f"{s['bram_used']:g}/{s['bram_budget']:g} BRAM"
                                      for s in d["slr"]), ""]
    L += ["Plots: " + ", ".join(Path(f).name for f in doc["plots"] if f.endswith(".png")), ""]
    return "\n".join(L)


def _env(args, env: str, doc: dict, out: Path, bar, done: int, total: int) -> dict:
    """One task of the report into ``doc`` (its baseline, simulations, figures, design and
    plots), ``bar`` at the runs done (``done`` before the task, of ``total``), a line for
    each; returns the task's baseline."""
    from rlaccel.machines.maddpg.baseline import measure, merge
    from rlaccel.machines.maddpg.dse import explore_manifest
    from rlaccel.machines.maddpg.plugin import config
    from rlaccel.programs.runner import configure

    def tick(*_):
        bar.position(done, total, "runs")
    _, m = configure(MANIFESTS[env], args.set)
    cfg = config(m)
    bar.output(f"{NAMES[env]}: CPU baseline ...")
    tick()

    def baseline(repeats):
        nonlocal done
        b = measure(env, args.batches, repeats, args.steps, args.seed,
                    policies=cfg.policies, hidden=cfg.hidden, backend=args.baseline)
        done += 1
        tick()
        return b
    # half the repeats before the simulations and half after: a stretch of heavy load
    # from other processes during one half does not set the minimum
    first = baseline(max(1, args.baseline_rounds // 2))
    extra = list(args.set)
    if args.design == "paper":
        extra.append(f"dse.f={paper_design_f(MANIFESTS[env], args.set)}")
    sim = {}
    for B in args.batches:
        sim[str(B)] = _simulate(env, B, args.rounds, args.seed, extra,
                                meter=tick if bar.shown else None)
        done += 1
        tick()
        bar.output(f"  batch {B}: accelerator {sim[str(B)]['learner_s'] * 1e3:.3f} ms per "
                  f"round")
    base = (merge(first, baseline(args.baseline_rounds - args.baseline_rounds // 2))
            if args.baseline_rounds > 1 else first)
    del base["samples"]
    bar.output("  CPU " + ", ".join(f"{base['batches'][str(B)]['training_cpu_s'] * 1e3:.3f}"
                                   for B in args.batches) + " ms per round")
    fig = _figures(env, sim, base, args.batches)
    doc["envs"][env] = {"baseline": base, "simulated": sim, "figures": fig,
                        "dse": explore_manifest(MANIFESTS[env], args.set)}
    doc["plots"] += _plots(out, env, fig)
    return base


def cmd_report(args) -> int:
    from rlaccel.programs.runner import write_json
    from rlaccel.util.files import atomic_write
    from rlaccel.util.progress import ProgressBar

    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    doc = {"rounds": args.rounds, "baseline_rounds": args.baseline_rounds,
           "batches": args.batches, "seed": args.seed, "baseline": args.baseline,
           "design": args.design,
           "paper_figures": PAPER, "envs": {}, "plots": []}
    # the runs of a task: its simulations and the baseline's one or two halves (_env)
    runs = len(args.batches) + (2 if args.baseline_rounds > 1 else 1)
    with ProgressBar("maddpg report", quiet=args.quiet) as bar:
        for i, env in enumerate(args.envs):
            base = _env(args, env, doc, out, bar, i * runs, len(args.envs) * runs)
    ranges = [e["figures"]["speedup_range"] for e in doc["envs"].values()]
    doc["speedup_range"] = [min(r[0] for r in ranges), max(r[1] for r in ranges)]
    doc["against_paper"] = against_paper(*doc["speedup_range"])
    doc["blas_threads"] = base["blas_threads"]
    doc["wall_s"] = time.perf_counter() - t0
    import copy
    from rlaccel.tlm.results import move_timing
    write_json(out / "report.json", move_timing(copy.deepcopy(doc), TIMING))
    atomic_write(out / "report.md", _markdown(doc))
    lo, hi = doc["speedup_range"]
    print(f"speed-up {lo:.1f}x - {hi:.1f}x (paper {PAPER['speedup_min']}x - "
          f"{PAPER['speedup_max']}x)")
    print(f"wrote {out / 'report.md'}, {out / 'report.json'} and {len(doc['plots'])} plot "
          f"files ({doc['wall_s']:.0f} s)")
    return 0
