"""Fig. 7 of the FIXAR paper on the simulated machine: HalfCheetah-v5 learning curves of the
float32 reference, the machine in fixed32, with Algorithm 1's QAT, and with 16-bit
activations from the start, three seeds each.

    python machines/fixar/bench/fig7.py run [--steps 200000] [--seeds 1 2 3] [--arms ...]
    python machines/fixar/bench/fig7.py collect [--steps 200000]
    python machines/fixar/bench/fig7.py cost [--train-steps 300]
    python machines/fixar/bench/fig7.py kernels

``run`` trains every (arm, seed) pair one after another in this one process (run it with
``nohup nice -n 19``; a second ``run`` started beside it, one per core, skips the run the
first holds and takes the next): the float32 reference (``machines/fixar/reference.py``, its BLAS
pinned by :mod:`rlaccel.util.determinism`) and the simulated machine
(``rlaccel run machines/fixar/programs/halfcheetah.toml``: ``fixar`` for fixed32 and QAT,
``fixar-fixed16`` for 16 bits from the start). Every run evaluates every 5,000 steps with 10
episodes (the paper's VI-B), writes its curve to ``bench/results/fig7/<arm>_s<seed>.json`` at
every evaluation and saves itself to ``out/fig7/<arm>_s<seed>.ckpt`` (the reference at every
evaluation, the simulator every 10,000 host exchanges). **The same command resumes**: a
finished run is skipped, an interrupted one continues from its checkpoint, bit for bit. QAT's
delay is half the run (the paper does not state Fig. 7's; ours).

``collect`` writes ``machines/fixar/fig7.json`` -- ``{"steps": N, "runs": {arm: {"seeds",
"final_mean", ...}}}``, ``final_mean`` the mean over seeds of each run's mean evaluation
return over the last 10 % of the steps (evaluations at steps >= 0.9 N), with each run's
curve, and, for runs not yet at N, ``partial`` and the steps reached (their window is the
last 10 % of the steps reached) -- and draws ``machines/fixar/figures/fig7.png`` and ``.svg``
(per arm the mean over seeds and its 95 % band, Student's t, on an axis spanning the seeds'
returns) and the table
``machines/fixar/figures/fig7.md`` (each arm's final mean with its interval, per seed and over
float32's; QAT minus fixed32 paired by seed right after the delay and at the end).

``cost`` measures the wall and CPU seconds per training step of each arm (HalfCheetah, B =
64, after 1,000 warm-up steps). ``kernels`` runs a short float32 reference under three
OpenBLAS kernels, unpinned, to show what the pinning removes.
"""

from __future__ import annotations

import os
import sys

if "--kernel" in sys.argv:                      # kernels' children: one chosen kernel
    os.environ["OPENBLAS_CORETYPE"] = sys.argv[sys.argv.index("--kernel") + 1]
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
else:
    from rlaccel.util.determinism import pin
    pin()

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from rlaccel.util.stats import t_interval  # noqa: E402

HERE = Path(__file__).resolve().parent
MACHINE = HERE.parent
RESULTS = HERE / "results" / "fig7"
FIG7_JSON = MACHINE / "fig7.json"
FIGURE = MACHINE / "figures" / "fig7"
CHECKPOINTS = MACHINE.parents[1] / "out" / "fig7"
ENV = "HalfCheetah-v5"
#: the arms of Fig. 7, in the figure's order: (label, architecture or None for float32)
ARMS = {"float32": ("float32 reference (CPU)", None),
        "fixed32": ("FIXAR fixed32", "fixar"),
        "qat": ("FIXAR QAT (32 -> 16-bit activations)", "fixar"),
        "fixed16": ("FIXAR 16-bit activations from the start", "fixar-fixed16")}
RESUME = "nohup nice -n 19 .venv/bin/python machines/fixar/bench/fig7.py run"


def _manifest() -> str:
    from rlaccel.isa.machine import machine
    return str(machine("fixar").programs / "halfcheetah.toml")


def _curve_path(arm: str, seed: int) -> Path:
    return RESULTS / f"{arm}_s{seed}.json"


def _load_curve(arm: str, seed: int) -> dict | None:
    p = _curve_path(arm, seed)
    return json.loads(p.read_text()) if p.exists() else None


def _save_curve(c: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    p = _curve_path(c["arm"], c["seed"])
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(c, indent=1) + "\n")
    tmp.replace(p)


def _record(c: dict, step: int, ret: float) -> None:
    evals = dict(zip(c["eval_steps"], c["returns"]))
    evals[step] = ret
    c["eval_steps"] = sorted(evals)
    c["returns"] = [evals[s] for s in c["eval_steps"]]
    c["steps_reached"] = max(c["steps_reached"], step)
    _save_curve(c)


#: the paper's protocol (VI-B) and our warm-up (machines/fixar/config.py); ``run``'s options
#: change them only for a trial run
PROTOCOL = {"eval_every": 5000, "eval_episodes": 10, "start_steps": 10_000}


def run_one(arm: str, seed: int, steps: int, every: int, protocol: dict = PROTOCOL) -> dict:
    """Train (or resume, or skip if finished) one run; returns its curve record."""
    c = _load_curve(arm, seed)
    if c and c.get("finished") and c["steps"] == steps:
        return c
    c = c if c and c["steps"] == steps else {
        "arm": arm, "seed": seed, "steps": steps, "env": ENV, "eval_steps": [], "returns": [],
        "steps_reached": 0, "finished": False, "wall_s": 0.0, "cpu_s": 0.0}
    CHECKPOINTS.mkdir(parents=True, exist_ok=True)
    ckpt = CHECKPOINTS / f"{arm}_s{seed}.ckpt"
    print(f"{time.strftime('%H:%M:%S')} {arm} seed {seed}: {steps:,} steps"
          + (f" (resuming from {ckpt.name})" if ckpt.exists() else ""), flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    base_wall, base_cpu = c["wall_s"], c["cpu_s"]

    def on_eval(step, mean):
        c["wall_s"] = base_wall + time.perf_counter() - t0
        c["cpu_s"] = base_cpu + time.process_time() - c0
        _record(c, int(step), float(mean))
        print(f"  {time.strftime('%H:%M:%S')} {arm} s{seed} step {step:>7,}: {mean:8.1f}",
              flush=True)

    if arm == "float32":
        from rlaccel.machines.fixar.config import DdpgConfig
        from rlaccel.machines.fixar.reference import run
        cfg = DdpgConfig(env_id=ENV, seed=seed, steps=steps, numerics="float32", **protocol)
        out = run(cfg, on_eval=on_eval, checkpoint=ckpt)
        c["resumed_at"] = out["resumed_at"]
    else:
        from rlaccel.programs.runner import run

        def progress(line):
            if line.startswith("step ") and "evaluation return" in line:
                step, ret = line[5:].split(": evaluation return ")
                on_eval(int(step), float(ret))
        sets = [f"learning.qat_delay={steps // 2 if arm == 'qat' else -1}",
                *(f"learning.{k}={v}" for k, v in protocol.items())]
        out = run(_manifest(), sets, arch=ARMS[arm][1], seed=seed, steps=steps,
                  progress=progress, checkpoint=ckpt, checkpoint_every=every)
        c["resumed_at"] = out["sim"]["checkpoint"]["resumed_at"]
        c["quantized_at"] = out.get("quantized_at")
        c["ips"] = out.get("ips")
        c["saturations"] = out.get("saturations")
        for s, r in zip(out["learning"]["eval_steps"], out["learning"]["returns"]):
            _record(c, int(s), float(r))
    c["wall_s"] = base_wall + time.perf_counter() - t0
    c["cpu_s"] = base_cpu + time.process_time() - c0
    c["finished"] = True
    _save_curve(c)
    if ckpt.exists():
        ckpt.unlink()
    return c


def cmd_run(a) -> None:
    from rlaccel.util.lock import exclusive
    for seed in a.seeds:
        for arm in a.arms:
            with exclusive(CHECKPOINTS / f"{arm}_s{seed}.lock", wait=False) as mine:
                if not mine:
                    print(f"{arm} s{seed}: running in another process; skipped", flush=True)
                    continue
                run_one(arm, seed, a.steps, a.checkpoint_every,
                        {"eval_every": a.eval_every, "eval_episodes": a.eval_episodes,
                         "start_steps": a.start_steps})
    cmd_collect(a)


# ---- fig7.json and the figure ----------------------------------------------------------
def _interval(xs: list[float]) -> tuple[float, float | None, float | None]:
    """Mean and its 95 % interval (Student's t; none for one value)."""
    m, h = t_interval(xs)
    return (m, None, None) if h is None else (m, m - h, m + h)


def final_window(c: dict, steps: int) -> float | None:
    """The mean evaluation return over the last 10 % of ``steps`` (evaluations at steps >=
    0.9 ``steps``)."""
    tail = [r for s, r in zip(c["eval_steps"], c["returns"]) if s >= 0.9 * steps]
    return sum(tail) / len(tail) if tail else None


def collect(steps: int) -> dict:
    runs = {}
    for arm in ARMS:
        curves = [c for c in (_load_curve(arm, s) for s in range(1, 100)) if c
                  and c["steps"] == steps and c["returns"]]
        finals = {}
        for c in curves:
            reached = steps if c["finished"] else c["steps_reached"]
            finals[c["seed"]] = final_window(c, reached)
        # the finished seeds' mean; while none has finished, the partial runs' (so a run
        # just started does not pull a finished seed's figure towards its first returns)
        counted = [c["seed"] for c in curves if c["finished"]] or [c["seed"] for c in curves]
        done = [finals[k] for k in counted if finals[k] is not None]
        runs[arm] = {
            "seeds": [c["seed"] for c in curves],
            "final_mean": sum(done) / len(done) if done else None,
            "final_mean_seeds": [k for k in counted if finals[k] is not None],
            "final_by_seed": {str(k): v for k, v in finals.items()},
            "partial": any(not c["finished"] for c in curves) or not curves,
            "steps_reached": {str(c["seed"]): (steps if c["finished"] else c["steps_reached"])
                              for c in curves},
            "curves": {str(c["seed"]): {"eval_steps": c["eval_steps"], "returns": c["returns"]}
                       for c in curves},
            "wall_s": {str(c["seed"]): round(c["wall_s"], 1) for c in curves},
            "label": ARMS[arm][0]}
    for arm, r in runs.items():
        done = [r["final_by_seed"][str(k)] for k in r["final_mean_seeds"]]
        r["final_interval"] = list(_interval(done)[1:]) if done else [None, None]
        ref = runs["float32"]["final_mean"]
        r["final_over_float32"] = (r["final_mean"] / ref if ref and r["final_mean"] is not None
                                   else None)
    return {"steps": steps, "env": ENV, **PROTOCOL,
            "qat_delay": steps // 2,
            "qat_minus_fixed32": _after_delay(runs, steps // 2, steps),
            "final_window": "mean evaluation return over evaluations at steps >= 0.9 N "
                            "(a partial run: of the steps it reached), then the mean over "
                            "the finished seeds (over the partial ones while none has "
                            "finished): final_mean_seeds",
            "command": "python machines/fixar/bench/fig7.py run  (then: fig7.py collect)",
            "runs": runs}


def _after_delay(runs: dict, delay: int, steps: int) -> dict:
    """QAT's return minus fixed32's, paired by seed (the two are the same run up to the
    delay), over the evaluations of two windows: the eighth of the run right after the delay
    (where a dip would show) and the last tenth; mean over the seeds both reached and its 95 %
    interval."""
    q, f = runs["qat"]["curves"], runs["fixed32"]["curves"]
    out = {}
    for name, lo, hi in (("after_delay", delay, delay + steps // 8),
                         ("final", 0.9 * steps - 1, steps)):
        diffs, used = {}, set()
        for seed in sorted(set(q) & set(f), key=int):
            a = dict(zip(q[seed]["eval_steps"], q[seed]["returns"]))
            b = dict(zip(f[seed]["eval_steps"], f[seed]["returns"]))
            both = [s for s in a if s in b and lo < s <= hi]
            if both and max(both) >= hi - steps // 40:     # the window reached
                diffs[seed] = sum(a[s] - b[s] for s in both) / len(both)
                used.update(both)
        m, lo95, hi95 = _interval(list(diffs.values())) if diffs else (None, None, None)
        out[name] = {"evaluations": [min(used), max(used)] if used else None,
                     "by_seed": diffs, "mean": m,
                     "interval": [lo95, hi95]}
    return out


def _num(x: float | None, fmt: str = ",.1f") -> str:
    return "-" if x is None else format(x, fmt)


def markdown(fig: dict) -> str:
    """The table of ``figures/fig7.md``: each arm's final mean with its 95 % interval over
    the finished seeds, per seed, over float32's, and QAT against fixed32 after the delay."""
    rows = ["| arm | seeds (finished) | final mean (95 % interval) | per seed | "
            "over float32 | wall per run |", "|---|---|---:|---|---:|---:|"]
    for arm, r in fig["runs"].items():
        lo, hi = r["final_interval"]
        band = f" ({_num(lo)} to {_num(hi)})" if lo is not None else ""
        per = " / ".join(_num(r["final_by_seed"][str(k)]) for k in r["seeds"])
        walls = [r["wall_s"][str(k)] for k in r["final_mean_seeds"]]
        wall = f"{sum(walls) / len(walls) / 60:.0f} min" if walls else "-"
        rows.append(f"| {arm} | {', '.join(map(str, r['final_mean_seeds'])) or '-'} | "
                    f"{_num(r['final_mean'])}{band} | {per} | "
                    f"{_num(r['final_over_float32'], '.2f')} | {wall} |")
    rows.append("")
    d = fig["qat_minus_fixed32"]
    for name, what in (("after_delay", "right after the delay"), ("final", "at the end")):
        w = d[name]
        lo, hi = w["interval"]
        band = f" (95 %: {_num(lo)} to {_num(hi)})" if lo is not None else ""
        at = (f", evaluations at {w['evaluations'][0]:,}-{w['evaluations'][1]:,} steps"
              if w["evaluations"] else "")
        rows.append(f"QAT minus fixed32 {what}{at}, paired by seed: {_num(w['mean'])}{band}; "
                    f"per seed " + (", ".join(f"{k}: {_num(v)}" for k, v in w["by_seed"].items())
                                    or "-") + ".")
        rows.append("")
    partial = [f"{arm} seed {k} at {v:,} steps" for arm, r in fig["runs"].items()
               for k, v in r["steps_reached"].items() if v < fig["steps"]]
    if partial:
        rows.append("Partial: " + "; ".join(partial) + ".")
        rows.append("")
    return "\n".join(rows)


def plot(fig: dict) -> list:
    from rlaccel.util.plots import lines, save
    series = {}
    for arm, r in fig["runs"].items():
        by_step: dict[int, list[float]] = {}
        for cur in r["curves"].values():
            for s, v in zip(cur["eval_steps"], cur["returns"]):
                by_step.setdefault(s, []).append(v)
        xs = sorted(by_step)
        stats = [_interval(by_step[x]) for x in xs]
        n = len(r["seeds"])
        label = f"{r['label']} ({n} seed{'s' if n != 1 else ''}" + (
            ", partial)" if r["partial"] else ")")
        series[label] = {"x": [x / 1000 for x in xs], "y": [m for m, _, _ in stats],
                         "lo": [lo for _, lo, _ in stats], "hi": [hi for _, _, hi in stats]}
    # the axis spans the returns the seeds gave: with three seeds a Student-t band can reach
    # far beyond them, and it is cut at the frame rather than squeeze the curves
    seen = [v for r in fig["runs"].values() for c in r["curves"].values() for v in c["returns"]]
    pad = 0.05 * (max(seen) - min(seen)) if seen else 1.0
    f = lines(f"Fig. 7 on the simulated FIXAR ({ENV}): mean and 95 % band over seeds",
              "time steps (thousands)", "evaluation return (10 episodes)", series,
              marks=[(fig["qat_delay"] / 1000, "QAT: quantisation delay")], bands=True,
              ylim=(min(seen) - pad, max(seen) + pad) if seen else None, legend="lower right")
    return save(f, FIGURE)


def cmd_collect(a) -> None:
    from rlaccel.util.files import atomic_write
    from rlaccel.util.lock import exclusive, lock_for
    with exclusive(lock_for(FIG7_JSON, "rlaccel-fig7")):      # sets running in parallel
        fig = collect(a.steps)
        atomic_write(FIG7_JSON, json.dumps(fig, indent=1) + "\n")
        atomic_write(FIGURE.with_suffix(".md"), markdown(fig))
        plot(fig)
    for arm, r in fig["runs"].items():
        print(f"{arm:8s} seeds {r['seeds']} final_mean {r['final_mean']} "
              f"steps reached {r['steps_reached']}")


# ---- cost per step and the BLAS kernels -------------------------------------------------
def cmd_cost(a) -> None:
    """Wall and CPU seconds per training step of each arm (B = 64, HalfCheetah)."""
    warm = 1000
    steps = warm + a.train_steps
    out = {}
    for arm, (_, arch) in ARMS.items():
        t0, c0 = time.perf_counter(), time.process_time()
        if arch is None:
            from rlaccel.machines.fixar.config import DdpgConfig
            from rlaccel.machines.fixar.reference import run
            run(DdpgConfig(env_id=ENV, seed=1, steps=steps, start_steps=warm,
                           eval_every=10 ** 9))
        else:
            from rlaccel.programs.runner import run
            run(_manifest(), [f"learning.start_steps={warm}", "learning.eval_every=1000000000",
                              f"learning.qat_delay={warm + 1 if arm == 'qat' else -1}"],
                arch=arch, seed=1, steps=steps)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        out[arm] = {"wall_s_per_step": wall / a.train_steps, "cpu_s_per_step": cpu / a.train_steps}
        print(f"{arm:8s} {wall / a.train_steps * 1e3:7.1f} ms wall, "
              f"{cpu / a.train_steps * 1e3:7.1f} ms CPU per training step "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    print(json.dumps(out))


KERNELS = ("SkylakeX", "Haswell", "Sandybridge")


def _kernel_run() -> None:
    import hashlib

    from rlaccel.machines.fixar.config import DdpgConfig
    from rlaccel.machines.fixar.host import DdpgHost, train
    from rlaccel.machines.fixar.reference import DdpgReference
    cfg = DdpgConfig(env_id=ENV, seed=1, steps=2000, start_steps=500, eval_every=1000,
                     eval_episodes=1)
    host = DdpgHost(cfg)
    agent = DdpgReference(cfg, host.state_dim, host.action_dim)
    out = train(agent, host)
    digest = hashlib.sha256(agent.actor.tobytes() + agent.critic.tobytes()).hexdigest()[:16]
    print(json.dumps({"returns": out["learning"]["returns"], "weights_sha256": digest}))


def cmd_kernels(a) -> None:
    for k in KERNELS:
        r = subprocess.run([sys.executable, __file__, "kernel-run", "--kernel", k],
                           capture_output=True, text=True, check=True)
        print(f"{k:12s} {r.stdout.strip()}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--steps", type=int, default=200_000)
    r.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    r.add_argument("--arms", nargs="+", default=list(ARMS), choices=list(ARMS))
    r.add_argument("--checkpoint-every", type=int, default=10_000)
    r.add_argument("--eval-every", type=int, default=PROTOCOL["eval_every"])
    r.add_argument("--eval-episodes", type=int, default=PROTOCOL["eval_episodes"])
    r.add_argument("--start-steps", type=int, default=PROTOCOL["start_steps"])
    c = sub.add_parser("collect")
    c.add_argument("--steps", type=int, default=200_000)
    k = sub.add_parser("cost")
    k.add_argument("--train-steps", type=int, default=300)
    sub.add_parser("kernels")
    kr = sub.add_parser("kernel-run")
    kr.add_argument("--kernel", required=True)
    for p in (r, c):
        p.add_argument("--out", help="keep every file in this folder instead (a trial run)")
    a = ap.parse_args(argv)
    if getattr(a, "out", None):
        global RESULTS, FIG7_JSON, FIGURE, CHECKPOINTS
        out = Path(a.out)
        RESULTS, FIG7_JSON, FIGURE, CHECKPOINTS = out, out / "fig7.json", out / "fig7", out
    if a.cmd == "run":
        cmd_run(a)
    elif a.cmd == "collect":
        cmd_collect(a)
    elif a.cmd == "cost":
        cmd_cost(a)
    elif a.cmd == "kernels":
        cmd_kernels(a)
    else:
        _kernel_run()


if __name__ == "__main__":
    main()
