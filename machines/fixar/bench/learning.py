"""FIXAR (the FIXAR paper) learning and speed through the simulator, beside the float reference.

    python machines/fixar/bench/learning.py learn --env halfcheetah --steps 50000 --seed 1 \
        [--qat-delay 25000 | --arch fixar-fixed16] [--tag NAME]
    python machines/fixar/bench/learning.py speed [--steps 300]
    python machines/fixar/bench/learning.py table NAME=SOURCE ...
    python machines/fixar/bench/learning.py plot NAME=SOURCE ... -o BASE [--delay D] [--title T]

``learn`` runs ``rlaccel run machines/fixar/<env>.toml`` (every DNN operation on the
simulated accelerator, evaluation every 5000 steps on it too) and writes
``out/fixar_learning_<tag>.json`` (the report) and, while it runs, one line per evaluation to
``out/fixar_learning_<tag>.log`` (so a run cut short still has its curve). It saves the run
to ``out/fixar_learning_<tag>.ckpt`` every ``--checkpoint-every`` host exchanges (10,000;
``rlaccel run --checkpoint``, ``programs/checkpoint.py``): the same command run again
resumes from there, bit for bit, and the finished run removes the file.

``speed`` measures, in one process on this machine, the wall time per environment step with
training at B = 64 on HalfCheetah after the warm-up: the simulator (``rlaccel run``) and the
float32 reference (``machines/fixar/reference.py``), same seed, same steps (the
simulator's target: at most 3x the reference), then the same in this process's CPU
seconds (``cpu_ratio``; on a shared machine the wall clock counts waiting for a core), with
the load average after each repeat and the medians over ``--repeats``, and writes
``out/fixar_speed.json``. ``table`` prints the evaluation returns of several runs side by
side as Markdown, from a learn run's log (``out/fixar_learning_<tag>.log``, complete or
not) or a reference JSON (``machines/fixar/bench/reference.py learn --json``); ``plot`` draws the same
curves as ``BASE.png`` and ``BASE.svg`` (``util/plots.lines``; ``--delay`` marks the
quantisation delay, as Fig. 7 of the paper does). Run long jobs with ``nice -n 10``.

numpy's BLAS is limited to one thread (``import rlaccel`` first: one thread unless a count is set), as in
``machines/fixar/bench/reference.py``: on this 2-core machine shared by several jobs, two BLAS threads
made the simulator's exact float64 products (``kernels.matmul_round``) 10-30x slower, not
faster (a 64x300 by 300x400 product: 1.1 ms on one thread, 39 ms on two, at load 3).
"""

from __future__ import annotations

import os

import rlaccel  # noqa: E402,F401  (before numpy: one BLAS thread unless set)

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from rlaccel.isa.machine import machine

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "out"
MANIFESTS = {"halfcheetah": "halfcheetah.toml", "hopper": "hopper.toml",
             "swimmer": "swimmer.toml", "pendulum": "pendulum.toml"}


def manifest(env: str) -> str:
    return str(machine("fixar").programs / MANIFESTS[env])


def learn(args) -> dict:
    from rlaccel.programs.runner import run
    OUT = Path(args.out)
    OUT.mkdir(exist_ok=True)
    tag = args.tag or f"{args.env}_{args.arch}_d{args.qat_delay}_s{args.seed}_{args.steps}"
    log = OUT / f"fixar_learning_{tag}.log"
    ckpt = OUT / f"fixar_learning_{tag}.ckpt"
    t0 = time.perf_counter()
    with log.open("a") as f:            # a resumed run adds to its log
        if ckpt.exists():
            f.write(f"resuming from {ckpt.name}\n")
            f.flush()
        def progress(line):
            f.write(f"{time.perf_counter() - t0:9.1f} s  {line}\n")
            f.flush()
        sets = [f"learning.qat_delay={args.qat_delay}"]
        if args.start_steps is not None:
            sets.append(f"learning.start_steps={args.start_steps}")
        if args.eval_every is not None:
            sets.append(f"learning.eval_every={args.eval_every}")
        if args.eval_episodes is not None:
            sets.append(f"learning.eval_episodes={args.eval_episodes}")
        r = run(manifest(args.env), sets, arch=args.arch, seed=args.seed, steps=args.steps,
                progress=progress, checkpoint=ckpt, checkpoint_every=args.checkpoint_every,
                json_path=str(OUT / f"fixar_learning_{tag}.json"))
    wall = time.perf_counter() - t0
    out = {"tag": tag, "env": r["config"]["env_id"], "arch": r["arch"], "seed": args.seed,
           "steps": args.steps, "qat_delay": args.qat_delay, "quantized_at": r["quantized_at"],
           "eval_steps": r["learning"]["eval_steps"], "returns": r["learning"]["returns"],
           "wall_s": wall, "train_steps": r["train_steps"],
           "ips_accelerator": r["ips"]["accelerator"], "qat": r.get("qat"),
           "resumed_at": r["sim"]["checkpoint"]["resumed_at"],
           "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS")}
    (OUT / f"fixar_learning_{tag}.summary.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return out


def speed(args) -> dict:
    """Wall time per environment step (training at B = 64), simulator and float reference."""
    from dataclasses import replace

    import numpy as np

    from rlaccel.machines.fixar.config import DdpgConfig
    from rlaccel.machines.fixar.reference import run as ref_run
    from rlaccel.programs.runner import run
    warm = 1000
    steps = warm + args.steps
    cfg = DdpgConfig(env_id="HalfCheetah-v5", seed=1, steps=steps, start_steps=warm,
                     eval_every=10 ** 9)
    res = {}
    for rep in range(args.repeats):
        t0 = time.perf_counter()
        ref = ref_run(cfg)
        t_ref = time.perf_counter() - t0
        t0 = time.perf_counter()
        r = run(manifest("halfcheetah"), [f"learning.start_steps={warm}",
                                          "learning.eval_every=1000000000"],
                seed=1, steps=steps)
        t_sim = time.perf_counter() - t0
        # per training step (sample, train, act) plus the environment's mean step, as the
        # reference's per_train_step_s["step"] counts it; the simulator's wall excludes
        # assembling the program and building the platform
        env = r["host_wall_s"]["environment"]
        n = r["train_steps"]
        sim_step = (r["timing"]["sim"]["wall_s"] - env) / n + env / steps
        res[rep] = {"reference_s_per_step": ref["per_train_step_s"]["step"],
                    "simulator_s_per_step": sim_step,
                    "reference_total_s": t_ref, "simulator_total_s": t_sim,
                    "simulator_platform_wall_s": r["timing"]["sim"]["wall_s"], "train_steps": n}
        res[rep]["ratio"] = res[rep]["simulator_s_per_step"] / res[rep]["reference_s_per_step"]
        # this process's CPU seconds per time step (a shared machine's wall clock also counts
        # waiting for a core): each side run twice, warm-up only and warm-up plus the N
        # training steps, the difference over N (setup, assembly and loading the compiled
        # loop cancel; a first warm-up-only run fills numba's and the OS's caches, then the
        # longer run goes first, so any remaining caching favours the shorter one and the
        # simulator's figure is, if anything, high)
        cpu = {}
        for side, go in (("reference", lambda n: ref_run(replace(cfg, steps=n))),
                         ("simulator", lambda n: run(
                             manifest("halfcheetah"), [f"learning.start_steps={warm}",
                                                       "learning.eval_every=1000000000"],
                             seed=1, steps=n))):
            c = []
            go(warm)
            for n in (steps, warm):
                c0 = time.process_time()
                go(n)
                c.append(time.process_time() - c0)
            cpu[side] = (c[0] - c[1]) / args.steps
        res[rep]["reference_cpu_s_per_step"] = cpu["reference"]
        res[rep]["simulator_cpu_s_per_step"] = cpu["simulator"]
        res[rep]["cpu_ratio"] = cpu["simulator"] / cpu["reference"]
        res[rep]["load_average"] = os.getloadavg()[0]
        print(json.dumps(res[rep]), flush=True)
    out = {"steps": args.steps, "warmup": warm, "batch": 64, "runs": res,
           "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
           "median": {k: float(np.median([r[k] for r in res.values()]))
                      for k in ("reference_cpu_s_per_step", "simulator_cpu_s_per_step",
                                "cpu_ratio", "ratio", "load_average")}}
    print(json.dumps(out["median"]), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "fixar_speed.json").write_text(json.dumps(out, indent=1))
    return out


def curve(source: str) -> dict[int, float]:
    """Evaluation step -> return, from a learn log or a reference / run JSON."""
    path = Path(source)
    if path.suffix == ".log":
        out = {}
        for line in path.read_text().splitlines():
            if "evaluation return" in line:
                step = int(line.split("step ")[1].split(":")[0])
                out[step] = float(line.rsplit(" ", 1)[1])
        return out
    d = json.loads(path.read_text())
    lr = d["learning"]
    return dict(zip(lr["eval_steps"], lr["returns"]))


def table(args) -> str:
    runs = {}
    for item in args.runs:
        name, _, src = item.rpartition("=")
        runs[name] = curve(src)
    steps = sorted({s for c in runs.values() for s in c})
    lines = ["| step | " + " | ".join(runs) + " |", "|---:|" + "---:|" * len(runs)]
    for st in steps:
        cells = [f"{c[st]:.1f}" if st in c else "" for c in runs.values()]
        lines.append(f"| {st} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    print(text)
    return text


def plot(args) -> list:
    from rlaccel.util.plots import lines, save
    series = {}
    for item in args.runs:
        name, _, src = item.rpartition("=")
        c = curve(src)
        xs = sorted(c)
        series[name] = {"x": xs, "y": [c[x] for x in xs], "lo": [None] * len(xs),
                        "hi": [None] * len(xs)}
    marks = [(args.delay, f"quantisation delay ({args.delay:,} steps)")] if args.delay else []
    fig = lines(args.title, "environment steps", "evaluation return", series, marks=marks)
    paths = save(fig, args.o)
    print("\n".join(str(p) for p in paths))
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lp = sub.add_parser("learn")
    lp.add_argument("--env", choices=list(MANIFESTS), default="halfcheetah")
    lp.add_argument("--steps", type=int, default=50000)
    lp.add_argument("--seed", type=int, default=1)
    lp.add_argument("--arch", default="fixar")
    lp.add_argument("--qat-delay", type=int, default=-1)
    lp.add_argument("--start-steps", type=int, default=None)
    lp.add_argument("--eval-every", type=int, default=None)
    lp.add_argument("--eval-episodes", type=int, default=None)
    lp.add_argument("--tag", default="")
    lp.add_argument("--checkpoint-every", type=int, default=10_000,
                    help="host exchanges between checkpoints")
    lp.add_argument("--out", default=str(OUT), help="folder of the log, checkpoint and reports")
    sp = sub.add_parser("speed")
    sp.add_argument("--steps", type=int, default=300)
    sp.add_argument("--repeats", type=int, default=1)
    tp = sub.add_parser("table")
    tp.add_argument("runs", nargs="+", metavar="NAME=SOURCE")
    pp = sub.add_parser("plot")
    pp.add_argument("runs", nargs="+", metavar="NAME=SOURCE")
    pp.add_argument("-o", required=True, metavar="BASE", help="writes BASE.png and BASE.svg")
    pp.add_argument("--delay", type=int, default=0, help="mark the quantisation delay")
    pp.add_argument("--title", default="HalfCheetah-v5: evaluation return over training")
    args = ap.parse_args(argv)
    {"learn": learn, "speed": speed, "table": table, "plot": plot}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
