"""The FIXAR DDPG reference on MuJoCo: learning curves, wall time per step, environment cost.

    python machines/fixar/bench/reference.py learn [--env HalfCheetah-v5] [--steps 100000] [--seed 1]
        [--numerics float32|float64|fixed] [--batch 64] [--qat-delay D] [--act-format F]
        [--set KEY=VALUE ...] [--json FILE]
    python machines/fixar/bench/reference.py speed [--numerics float32 fixed] [--batch 64 ...]
        [--train-steps 300] [--json FILE]
    python machines/fixar/bench/reference.py env [--steps 20000] [--json FILE]

``learn`` trains machines/fixar/reference.py for a budget of environment steps, evaluating
every 5,000 steps (10 deterministic episodes from fixed start states, the FIXAR paper's VI-B), and
prints one line per evaluation, then the final figures. ``speed`` measures the wall time of a
training time step (sample a batch, train, act, step the environment) at each batch size
after filling the buffer with random steps. ``env`` measures each environment's step cost
with random actions (resets included). All write JSON with ``--json``.

numpy's BLAS runs one thread on one fixed kernel (:mod:`rlaccel.util.determinism`,
set before numpy loads): a float32 run's bits then depend on its seed only.
"""

from __future__ import annotations

import os

from rlaccel.util.determinism import PINNED, pin

pin()

import argparse  # noqa: E402
import ast  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rlaccel.machines.fixar.config import DdpgConfig  # noqa: E402
from rlaccel.machines.fixar.host import DdpgHost, make_env  # noqa: E402
from rlaccel.machines.fixar.reference import DdpgReference, run  # noqa: E402

ENVS = ("HalfCheetah-v5", "Hopper-v5", "Swimmer-v5")


def _overrides(pairs) -> dict:
    out = {}
    for pair in pairs:
        key, _, text = pair.partition("=")
        try:
            out[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            out[key] = text
    return out


def _machine() -> dict:
    return {"python": platform.python_version(), "numpy": np.__version__,
            "cpus": os.cpu_count(), "load_avg": os.getloadavg(),
            "blas": {k: os.environ.get(k) for k in PINNED}}


def learn(a) -> dict:
    cfg = DdpgConfig().with_(env_id=a.env, steps=a.steps, seed=a.seed, numerics=a.numerics,
                             batch=a.batch, qat_delay=a.qat_delay, act_format=a.act_format,
                             **_overrides(a.set))
    print(f"{cfg.env_id} seed {cfg.seed}, {cfg.steps:,} steps ({cfg.start_steps:,} random), "
          f"B={cfg.batch}, {cfg.numerics}"
          + (f", QAT at {cfg.qat_delay:,}" if cfg.qat else "")
          + (f", activations {cfg.act_format}" if cfg.numerics == "fixed" else ""), flush=True)
    start = time.perf_counter()

    def show(step, mean):
        wall = time.perf_counter() - start
        print(f"  step {step:>8,}: eval return {mean:9.1f}   ({wall:7.0f} s)", flush=True)

    out = run(cfg, on_eval=show)
    r = out["learning"]["returns"]
    out["final"] = {"last_eval": r[-1] if r else None, "best_eval": max(r) if r else None,
                    "mean_last3": float(np.mean(r[-3:])) if r else None}
    out["machine"] = _machine()
    w = out["wall_s"]
    f, ps = out["final"], {k: v * 1e3 for k, v in out["per_train_step_s"].items()}
    print(f"final: last eval {f['last_eval']:.1f}, best {f['best_eval']:.1f}, "
          f"mean of last 3 {f['mean_last3']:.1f}")
    print(f"wall: {w['total']:.0f} s total; per training step {ps['step']:.2f} ms "
          f"(agent {ps['agent']:.2f}, env {ps['env']:.3f}, sample {ps['sample']:.3f}); "
          f"evaluation {w['evaluate']:.0f} s")
    print(f"agent: {out['agent']}")
    return out


def speed(a) -> dict:
    rows = []
    for numerics in a.numerics:
        for batch in a.batch:
            cfg = DdpgConfig(env_id=a.env, numerics=numerics, batch=batch, seed=1,
                             start_steps=0)
            host = DdpgHost(cfg)
            agent = DdpgReference(cfg, host.state_dim, host.action_dim)
            while host.replay.size < max(batch, 1000):
                host.apply(host.random_action())
            for _ in range(5):                            # warm the caches
                agent.step(host.t, host.state, host.batch())
            t_agent = t_env = t_sample = 0.0
            for _ in range(a.train_steps):
                t0 = time.perf_counter()
                b = host.batch()
                t1 = time.perf_counter()
                act = agent.step(host.t, host.state, b)
                t2 = time.perf_counter()
                host.apply(act)
                t3 = time.perf_counter()
                t_sample, t_agent, t_env = t_sample + t1 - t0, t_agent + t2 - t1, t_env + t3 - t2
            n = a.train_steps
            row = {"numerics": numerics, "batch": batch, "steps": n,
                   "step_ms": (t_agent + t_env + t_sample) / n * 1e3,
                   "agent_ms": t_agent / n * 1e3, "env_ms": t_env / n * 1e3,
                   "sample_ms": t_sample / n * 1e3, "load_avg": os.getloadavg()[0]}
            rows.append(row)
            print(f"{numerics:8s} B={batch:4d}: {row['step_ms']:8.2f} ms per step "
                  f"(agent {row['agent_ms']:.2f}, env {row['env_ms']:.3f}, sample "
                  f"{row['sample_ms']:.3f}); load {row['load_avg']:.1f}", flush=True)
    return {"env": a.env, "rows": rows, "machine": _machine()}


def env_cost(a) -> dict:
    rows = []
    for env_id in ENVS:
        env = make_env(env_id)
        env.reset(seed=0)
        env.action_space.seed(0)
        acts = [env.action_space.sample() for _ in range(a.steps)]
        resets = 0
        t0 = time.perf_counter()
        for act in acts:
            _, _, term, trunc, _ = env.step(act)
            if term or trunc:
                env.reset()
                resets += 1
        dt = time.perf_counter() - t0
        rows.append({"env": env_id, "steps": a.steps, "resets": resets,
                     "us_per_step": dt / a.steps * 1e6})
        print(f"{env_id:16s} {dt / a.steps * 1e6:8.1f} us per step ({resets} resets)", flush=True)
    return {"rows": rows, "machine": _machine()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser("learn")
    pl.add_argument("--env", default="HalfCheetah-v5")
    pl.add_argument("--steps", type=int, default=100_000)
    pl.add_argument("--seed", type=int, default=1)
    pl.add_argument("--numerics", default="float32")
    pl.add_argument("--batch", type=int, default=64)
    pl.add_argument("--qat-delay", type=int, default=None)
    pl.add_argument("--act-format", default="fixed32")
    pl.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ps = sub.add_parser("speed")
    ps.add_argument("--env", default="HalfCheetah-v5")
    ps.add_argument("--numerics", nargs="+", default=["float32", "fixed"])
    ps.add_argument("--batch", type=int, nargs="+", default=[64])
    ps.add_argument("--train-steps", type=int, default=300)
    pe = sub.add_parser("env")
    pe.add_argument("--steps", type=int, default=20_000)
    for q in (pl, ps, pe):
        q.add_argument("--json", default=None)
    a = p.parse_args(argv)
    out = {"learn": learn, "speed": speed, "env": env_cost}[a.cmd](a)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
