"""The float reference MADDPG on the real MPE tasks: learning curves, and the CPU-only
baseline's times (the MADDPG paper, Fig. 7 and eq. 7).

    python machines/maddpg/bench/reference.py learn [--envs E ...] [--seeds 1 2 3] [--episodes N]
                                           [--random-episodes M] [--window W] [--json F]
    python machines/maddpg/bench/reference.py speed [--envs E ...] [--batches 64 128 256 512 1024]
                                           [--rounds R] [--steps S] [--json F]

``learn``: for every task and seed, trains ``machines/maddpg/reference.py`` for N episodes
with the reference hyper-parameters (openai/maddpg: 25-step episodes, batch 1024, an update
every 100 steps) and plays M episodes of the uniformly random policy with the same seed;
prints and writes (JSON) the learning curve (mean episode reward per window of W episodes),
the final mean over the last W episodes, Predator-Prey's touches per episode, the random
policy's figures, T_SG and the learner's time per round, and wall time per environment step.

``speed``: the CPU-only baseline of Fig. 7 on this machine, one training thread (the paper
uses one; BLAS is pinned to one thread before numpy loads, ``--threads`` changes it): T_SG
per environment step (every agent's inference, the environment step, storing the
transition; inference apart), and per update round for every batch size: drawing the batch
(replay sampling) and the learners' training time; then IPS = 1 / (T_SG + T_MU) (eq. 7) with
T_MU = sampling + training, an iteration being one step and one round as in Algorithm 1.
It also times sampling the way openai/maddpg's buffer does it (every agent keeps a Python
list of transition tuples and each agent's batch is assembled index by index), which the
paper's CPU baselines inherit and our array buffer avoids. Times are medians of wall
clock; the learners' process CPU time and the load average are recorded beside them, since
on a shared machine the wall clock includes waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from rlaccel.util.determinism import THREADS   # no numpy: the threads are set before it loads

ENVS = ("simple_speaker_listener_v4", "simple_tag_v3")


def _threads(argv) -> None:
    n = "1"
    if "--threads" in argv:
        n = argv[argv.index("--threads") + 1]
    for var in THREADS:
        os.environ[var] = n


_threads(sys.argv)

import numpy as np  # noqa: E402 - after pinning the BLAS threads

from rlaccel.machines.maddpg.baseline import _list_buffers, _list_sample  # noqa: E402
from rlaccel.machines.maddpg.config import MaddpgConfig  # noqa: E402
from rlaccel.machines.maddpg.reference import MaddpgReference  # noqa: E402
from rlaccel.machines.maddpg.training import RandomPolicy, Training  # noqa: E402


def _write(path, data) -> None:
    if path:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            json.dump(data, f, indent=1)


def learn_one(env: str, seed: int, episodes: int, window: int) -> dict:
    cfg = MaddpgConfig(env=env, seed=seed, episodes=episodes)
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    t0 = time.perf_counter()

    def progress(t):
        if t.episodes % window == 0:
            print(f"  {env} seed {seed}: episode {t.episodes}, mean reward of the last "
                  f"{window} {np.mean(t.curve.returns[-window:]):.2f}, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
    tr.run(ref, callback=progress)
    wall = time.perf_counter() - t0
    c = tr.curve
    out = {"episodes": episodes, "window": window, "curve": c.window_means(window),
           "final": float(np.mean(c.returns[-window:])),
           "final_agents": np.mean(np.asarray(c.agent_returns[-window:]), axis=0).tolist(),
           "wall_s": wall, "wall_per_step_s": wall / tr.steps, **tr.timing()}
    if c.touches:
        t = np.asarray(c.touches, dtype=np.float64)
        out["touches_curve"] = [float(t[j * window:(j + 1) * window].mean())
                                for j in range(len(t) // window)]
        out["final_touches"] = float(t[-window:].mean())
    return out


def random_one(env: str, seed: int, episodes: int) -> dict:
    tr = Training(MaddpgConfig(env=env, seed=seed, episodes=episodes))
    c = tr.run(RandomPolicy(tr.task))
    out = {"episodes": episodes, "mean": float(np.mean(c.returns)),
           "std": float(np.std(c.returns)),
           "agents": np.mean(np.asarray(c.agent_returns), axis=0).tolist()}
    if c.touches:
        out["touches"] = float(np.mean(c.touches))
    return out


def learn(args) -> dict:
    res = {"what": "reference MADDPG learning (machines/maddpg/bench/reference.py learn)",
           "episodes": args.episodes, "seeds": args.seeds, "window": args.window, "envs": {}}
    for env in args.envs:
        runs = res["envs"].setdefault(env, {"seeds": {}, "random": {}})
        for seed in args.seeds:
            runs["random"][str(seed)] = random_one(env, seed, args.random_episodes)
            print(f"{env} seed {seed}: random policy {runs['random'][str(seed)]}", flush=True)
            runs["seeds"][str(seed)] = learn_one(env, seed, args.episodes, args.window)
            r = runs["seeds"][str(seed)]
            print(f"{env} seed {seed}: final {r['final']:.2f} "
                  f"{'touches %.2f ' % r['final_touches'] if 'final_touches' in r else ''}"
                  f"({r['wall_s']:.0f} s, T_SG {r['t_sg_per_step'] * 1e6:.0f} us/step, "
                  f"learner {r['t_learn_per_round'] * 1e3:.2f} ms/round)", flush=True)
            _write(args.json, res)
        finals = [runs["seeds"][str(s)]["final"] for s in args.seeds]
        rnd = [runs["random"][str(s)]["mean"] for s in args.seeds]
        runs["summary"] = {"final_mean": float(np.mean(finals)), "final_min": min(finals),
                           "final_max": max(finals), "random_mean": float(np.mean(rnd))}
        if "final_touches" in runs["seeds"][str(args.seeds[0])]:
            runs["summary"]["touches_mean"] = float(np.mean(
                [runs["seeds"][str(s)]["final_touches"] for s in args.seeds]))
            runs["summary"]["random_touches"] = float(np.mean(
                [runs["random"][str(s)]["touches"] for s in args.seeds]))
        print(f"{env}: {runs['summary']}", flush=True)
        _write(args.json, res)
    return res


def speed_one(env: str, batches, rounds: int, steps: int, seed: int) -> dict:
    cfg = MaddpgConfig(env=env, seed=seed)
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    t_act = [0.0]

    def act(obs, rng):
        t0 = time.perf_counter()
        a = ref.act(obs, rng)
        t_act[0] += time.perf_counter() - t0
        return a
    c0 = time.process_time()
    while tr.steps < steps:
        tr.step(act)
    cpu_sg = time.process_time() - c0
    out = {"t_sg_per_step_s": tr.t_sg / tr.steps, "t_inference_per_step_s": t_act[0] / tr.steps,
           "cpu_sg_per_step_s": cpu_sg / tr.steps, "steps": tr.steps,
           "load_average": os.getloadavg()[0], "batches": {}}
    lists = _list_buffers(tr)
    list_rng = np.random.default_rng(seed)
    for B in batches:
        samp, learn_t, cpu_learn, cpu_samp = [], [], [], []
        for _ in range(rounds + 2):                       # two warm-up rounds
            t0, c0 = time.perf_counter(), time.process_time()
            b = tr.batches(B)
            cpu_samp.append(time.process_time() - c0)
            t1 = time.perf_counter()
            c1 = time.process_time()
            ref.update(b)
            cpu_learn.append(time.process_time() - c1)
            t2 = time.perf_counter()
            samp.append(t1 - t0)
            learn_t.append(t2 - t1)
        s, l_ = float(np.median(samp[2:])), float(np.median(learn_t[2:]))
        t_list, cpu_list = [], []
        for _ in range(max(3, rounds // 5)):
            t0, c0 = time.perf_counter(), time.process_time()
            _list_sample(lists, list_rng, B)
            cpu_list.append(time.process_time() - c0)
            t_list.append(time.perf_counter() - t0)
        t_mu = s + l_
        out["batches"][str(B)] = {
            "sampling_s": s, "training_s": l_, "t_mu_s": t_mu,
            "training_cpu_s": float(np.median(cpu_learn[2:])),
            "sampling_cpu_s": float(np.median(cpu_samp[2:])),
            "openai_list_sampling_cpu_s": float(np.median(cpu_list)),
            "openai_list_sampling_s": float(np.median(t_list)),
            "ips_eq7": 1.0 / (out["t_sg_per_step_s"] + t_mu),
            "steps_per_s_update_every_100": 1.0 / (out["t_sg_per_step_s"] + t_mu / 100)}
        print(f"{env} B={B}: training {l_ * 1e3:.2f} ms (CPU time "
              f"{np.median(cpu_learn[2:]) * 1e3:.2f} ms), sampling {s * 1e3:.2f} ms "
              f"(openai-style lists {np.median(t_list) * 1e3:.2f} ms, CPU time "
              f"{np.median(cpu_list) * 1e3:.2f} ms), "
              f"T_SG {out['t_sg_per_step_s'] * 1e6:.0f} us -> IPS "
              f"{out['batches'][str(B)]['ips_eq7']:.1f}", flush=True)
    return out


def speed(args) -> dict:
    res = {"what": "CPU-only baseline (machines/maddpg/bench/reference.py speed)",
           "threads": os.environ["OPENBLAS_NUM_THREADS"], "rounds": args.rounds,
           "numpy": np.__version__, "envs": {}}
    for env in args.envs:
        res["envs"][env] = speed_one(env, args.batches, args.rounds, args.steps, args.seed)
        _write(args.json, res)
    return res


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    lp = sub.add_parser("learn")
    lp.add_argument("--envs", nargs="+", default=list(ENVS), choices=ENVS)
    lp.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    lp.add_argument("--episodes", type=int, default=25000)
    lp.add_argument("--random-episodes", type=int, default=1000)
    lp.add_argument("--window", type=int, default=1000)
    lp.add_argument("--json", default="out/maddpg_learning.json")
    sp = sub.add_parser("speed")
    sp.add_argument("--envs", nargs="+", default=list(ENVS), choices=ENVS)
    sp.add_argument("--batches", nargs="+", type=int, default=[64, 128, 256, 512, 1024])
    sp.add_argument("--rounds", type=int, default=30)
    sp.add_argument("--steps", type=int, default=5000)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--json", default="out/maddpg_speed.json")
    for q in (lp, sp):
        q.add_argument("--threads", default="1", help="BLAS threads (the paper's baseline: 1)")
    args = p.parse_args(argv)
    learn(args) if args.cmd == "learn" else speed(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
