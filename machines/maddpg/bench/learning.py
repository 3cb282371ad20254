"""MADDPG learning THROUGH THE SIMULATOR on the real MPE tasks (the MADDPG paper's machine),
next to the float reference and a random policy.

    python machines/maddpg/bench/learning.py [--envs E ...] [--seeds 1 2 3] [--episodes N]
                                    [--window W] [--reference out/maddpg_learning.json]
                                    [--json out/maddpg_sim_learning.json] [--reuse]
                                    [--plot out/maddpg_sim_learning]
    python machines/maddpg/bench/learning.py --collect RUN.json ... [--random-episodes 1000]
                                    [--json J] [--plot BASE]

For every task and seed: ``rlaccel run machines/maddpg/<task>.toml --seed S --set
episodes=N`` (the learners on the simulated U200: machines/maddpg/programs/learner.s on every agent,
the host's sample generation, the shared buffer, the reference hyper-parameters), the mean
episode reward per window of W episodes, the final window's mean, Predator-Prey's touches,
and the run's eq. 7 figures. The float reference's curves and the random policy's means
come from ``machines/maddpg/bench/reference.py learn`` (its JSON, the same seeds and windows); the
final comparison uses the reference's window that ends at the same episode. The JSON is
written after every run. ``--reuse`` keeps the runs the JSON already holds for the same
task, seed, episodes and window (and only attaches the reference's figures to them), so a
reference measured later, or an interrupted bench, needs no new simulation. ``--plot BASE``
draws every task's curves (the seeds' mean, bars from the lowest to the highest seed; the
reference's likewise; the random policy's mean) as ``BASE_cc.png`` and ``BASE_pp.png`` (and
``.svg``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from rlaccel.programs.runner import run
from rlaccel.isa.machine import machine

ROOT = machine("maddpg").programs
MANIFESTS = {"simple_speaker_listener_v4": ROOT / "speaker_listener.toml",
             "simple_tag_v3": ROOT / "simple_tag.toml"}


def _write(path, data) -> None:
    if path:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        tmp = f"{path}.tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, path)


def one(env: str, seed: int, episodes: int, window: int) -> dict:
    t0 = time.perf_counter()

    def progress(line):
        print(f"  {env} seed {seed}: {line} ({time.perf_counter() - t0:.0f} s)", flush=True)
    r = run(MANIFESTS[env], [f"episodes={episodes}", f"window={window}"], seed=seed,
            progress=progress)
    learn, ips = r["learning"], r["ips"]
    out = {"episodes": learn["episodes"], "steps": learn["steps"], "rounds": learn["rounds"],
           "curve": learn["curve"], "final": learn["final"],
           "final_agents": learn["final_agents"], "wall_s": time.perf_counter() - t0,
           "ips": ips, "cycles": r["cycles"], "saturations": r["saturations"]}
    if "final_touches" in learn:
        out["touches_curve"] = learn["touches_curve"]
        out["final_touches"] = learn["final_touches"]
    return out


NAMES = {"simple_speaker_listener_v4": "Cooperative Communication",
         "simple_tag_v3": "Predator-Prey"}
TAGS = {"simple_speaker_listener_v4": "cc", "simple_tag_v3": "pp"}


def _band(curves, window):
    k = min(len(c) for c in curves)
    a = np.asarray([c[:k] for c in curves], dtype=np.float64)
    return {"x": [window * (j + 1) for j in range(k)], "y": a.mean(axis=0).tolist(),
            "lo": a.min(axis=0).tolist(), "hi": a.max(axis=0).tolist()}


def plot(res: dict, ref: dict, base: str) -> list[str]:
    """The simulated machine's curves next to the reference's, per task."""
    from rlaccel.util.plots import lines, save
    w, files = res["window"], []
    for env, e in res["envs"].items():
        seeds = sorted(e["seeds"], key=int)
        if not seeds:
            continue
        series = {f"simulated machine ({len(seeds)} seeds)":
                  _band([e["seeds"][s]["curve"] for s in seeds], w)}
        rr = ref.get("envs", {}).get(env, {})
        rc = [rr["seeds"][s]["curve"][:e["episodes"] // w] for s in seeds
              if s in rr.get("seeds", {})]
        if len(rc) == len(seeds) and ref.get("window") == w:
            series[f"float reference ({len(seeds)} seeds)"] = _band(rc, w)
        rnd = [e["seeds"][s].get("random") for s in seeds]
        f = lines(f"MADDPG on {NAMES[env]}: mean episode reward per {w} episodes",
                  "episodes", "episode reward (sum over agents)", series,
                  reference=(float(np.mean(rnd)) if None not in rnd else None),
                  reference_label="random policy")
        files += [str(x) for x in save(f, f"{base}_{TAGS[env]}")]
    return files


def summary(done: list) -> dict:
    """The seeds' means: final window, the reference's at the same budget and the random
    policy's (where every seed has them), Predator-Prey's touches likewise."""
    out = {
        "final_mean": float(np.mean([d["final"] for d in done])),
        "final_min": float(min(d["final"] for d in done)),
        "final_max": float(max(d["final"] for d in done)),
        "reference_mean": (float(np.mean([d["reference_at_budget"] for d in done]))
                           if all("reference_at_budget" in d for d in done) else None),
        "random_mean": (float(np.mean([d["random"] for d in done]))
                        if all("random" in d for d in done) else None)}
    if all("final_touches" in d for d in done):
        out["touches_mean"] = float(np.mean([d["final_touches"] for d in done]))
        if all("random_touches" in d for d in done):
            out["random_touches_mean"] = float(np.mean([d["random_touches"] for d in done]))
        if all("reference_touches_at_budget" in d for d in done):
            out["reference_touches_mean"] = float(np.mean(
                [d["reference_touches_at_budget"] for d in done]))
    return out


def collect(paths, random_episodes: int, previous: dict | None = None) -> dict:
    """One JSON from per-seed ones (``--json`` of separate runs): every task's seeds, with a
    random policy's mean over ``random_episodes`` episodes for each (taken from ``previous``,
    an earlier collection, or measured here), and the summary."""
    from rlaccel.machines.maddpg.bench.reference import random_one
    res = {"what": "MADDPG learning through the simulator (machines/maddpg/bench/learning.py)",
           "envs": {}}
    for path in paths:
        part = json.loads(Path(path).read_text())
        res.setdefault("window", part["window"])
        for env, e in part["envs"].items():
            t = res["envs"].setdefault(env, {"episodes": e["episodes"], "seeds": {}})
            if t["episodes"] != e["episodes"]:
                raise SystemExit(f"{path}: {env} ran {e['episodes']} episodes, the others "
                                 f"{t['episodes']}")
            t["seeds"].update(e["seeds"])
    for env, e in res["envs"].items():
        for seed, r in e["seeds"].items():
            old = (previous or {}).get("envs", {}).get(env, {}).get("seeds", {}).get(seed, {})
            if "random" not in r and old.get("random_episodes") == random_episodes:
                r.update({k: old[k] for k in ("random", "random_episodes", "random_touches")
                          if k in old})
            if "random" not in r and random_episodes:
                rnd = random_one(env, int(seed), random_episodes)
                r["random"], r["random_episodes"] = rnd["mean"], random_episodes
                if "touches" in rnd:
                    r["random_touches"] = rnd["touches"]
        e["seeds"] = dict(sorted(e["seeds"].items(), key=lambda kv: int(kv[0])))
        e["summary"] = summary(list(e["seeds"].values()))
    return res


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", nargs="+", default=list(MANIFESTS), choices=list(MANIFESTS))
    p.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    p.add_argument("--episodes", type=int, default=10000)
    p.add_argument("--window", type=int, default=1000)
    p.add_argument("--reference", default="out/maddpg_learning.json")
    p.add_argument("--json", default="out/maddpg_sim_learning.json")
    p.add_argument("--reuse", action="store_true",
                   help="keep the runs the JSON holds for the same seed, episodes and window")
    p.add_argument("--plot", metavar="BASE",
                   help="draw the curves as BASE_cc.png and BASE_pp.png (and .svg)")
    p.add_argument("--collect", nargs="+", metavar="JSON",
                   help="merge per-seed JSONs of separate runs into --json (and --plot), "
                        "with a random policy per seed, and stop")
    p.add_argument("--random-episodes", type=int, default=1000,
                   help="the random policy's episodes per seed for --collect")
    args = p.parse_args(argv)
    if args.collect:
        res = collect(args.collect, args.random_episodes,
                      json.loads(Path(args.json).read_text()) if Path(args.json).exists()
                      else None)
        _write(args.json, res)
        for env, e in res["envs"].items():
            print(f"{env}: {e['summary']}")
        if args.plot:
            print("plots: " + ", ".join(plot(res, {}, args.plot)))
        return 0
    ref = json.loads(Path(args.reference).read_text()) if Path(args.reference).exists() else {}
    res = json.loads(Path(args.json).read_text()) if Path(args.json).exists() else {}
    res.update({"what": "MADDPG learning through the simulator (machines/maddpg/bench/learning.py)",
                "window": args.window})
    envs = res.setdefault("envs", {})
    for env in args.envs:
        e = envs.setdefault(env, {"seeds": {}})
        old = e["seeds"] if e.get("episodes") == args.episodes else {}
        e["episodes"] = args.episodes
        e["seeds"] = {k: v for k, v in old.items() if len(v["curve"]) * args.window
                      == args.episodes}
        for seed in args.seeds:
            r = e["seeds"].get(str(seed)) if args.reuse else None
            if r is None:
                r = one(env, seed, args.episodes, args.window)
            rr = ref.get("envs", {}).get(env, {})
            k = args.episodes // args.window
            fr = rr.get("seeds", {}).get(str(seed), {})
            if fr.get("window") == args.window or ref.get("window") == args.window:
                if len(fr.get("curve", [])) >= k:
                    r["reference_at_budget"] = fr["curve"][k - 1]
                if len(fr.get("touches_curve", [])) >= k:
                    r["reference_touches_at_budget"] = fr["touches_curve"][k - 1]
            rnd = rr.get("random", {}).get(str(seed))
            if rnd:
                r["random"] = rnd["mean"]
                if "touches" in rnd:
                    r["random_touches"] = rnd["touches"]
            e["seeds"][str(seed)] = r
            print(f"{env} seed {seed}: simulated final {r['final']:.2f}"
                  + (f" (touches {r['final_touches']:.2f})" if "final_touches" in r else "")
                  + (f", reference {r['reference_at_budget']:.2f}"
                     if "reference_at_budget" in r else "")
                  + (f", random {r['random']:.2f}" if "random" in r else "")
                  + f"; {r['wall_s'] / 60:.1f} min", flush=True)
            _write(args.json, res)
        e["summary"] = summary([e["seeds"][str(s)] for s in args.seeds if str(s) in e["seeds"]])
        print(f"{env}: {e['summary']}", flush=True)
        _write(args.json, res)
    if args.plot:
        print("plots: " + ", ".join(plot(res, ref, args.plot)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
