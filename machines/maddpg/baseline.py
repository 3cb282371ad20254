"""The CPU-only baseline of seed 003's Fig. 7, measured on this machine: the float reference
(:class:`~.reference.MaddpgReference`, float32 numpy, one training thread when BLAS is
pinned to one) training every agent on the CPU, agent after agent.

:func:`measure` steps the task with the reference's policies (T_SG: every agent's inference,
the environment step, storing the transition), then for every batch size draws a round's
batch (replay sampling) and runs the reference's update round on it, ``rounds`` times after
two warm-up rounds, and keeps the medians -- wall clock and this process's CPU time (on a
shared machine the wall clock also counts waiting for a core). It also times sampling the
way openai/maddpg's buffer does it (every agent a Python list of transition tuples, every
agent's batch assembled element by element), which the seed's baselines inherit.
"""

from __future__ import annotations

import os
import time

import numpy as np

from rlaccel.machines.maddpg.config import MaddpgConfig
from rlaccel.machines.maddpg.reference import MaddpgReference
from rlaccel.machines.maddpg.training import Training

__all__ = ["measure", "blas_threads"]


def blas_threads() -> str:
    """The BLAS thread setting this process was started with (the seed's baseline: 1)."""
    return os.environ.get("OPENBLAS_NUM_THREADS", os.environ.get("OMP_NUM_THREADS",
                                                                 "default (all cores)"))


def _list_buffers(tr) -> list:
    """The stored transitions as openai/maddpg keeps them: per agent a list of
    (obs, act, rew, next_obs, done) tuples."""
    r = tr.replay
    b = r.gather(np.arange(len(r)), np.random.default_rng(0))
    return [[(b.obs[i][k], b.act[i][k], float(b.rew[i][k]), b.next_obs[i][k],
              float(b.done[i][k])) for k in range(len(r))] for i in range(r.n)]


def _list_sample(buffers, rng, B) -> list:
    """One round's batches the openai way: an index list per agent (each agent samples its
    own), then every agent's five arrays built element by element."""
    out = []
    for _ in buffers:                                  # each agent draws its own indices
        idx = [int(i) for i in rng.integers(0, len(buffers[0]), size=B)]
        for buf in buffers:                            # ... and reads every agent's buffer
            cols = ([], [], [], [], [])
            for i in idx:
                for c, v in zip(cols, buf[i]):
                    c.append(v)
            out.append(tuple(np.array(c) for c in cols))
    return out


def _median(xs) -> float:
    return float(np.median(xs))


def measure(env: str, batches, rounds: int = 10, steps: int = 2000, seed: int = 1,
            policies: dict | None = None, hidden=(64, 64), openai_lists: bool = True) -> dict:
    """T_SG per step and, per batch size, the reference's training and replay sampling per
    round (seconds; wall and CPU); ``steps`` environment steps fill the buffer first (at
    least the largest batch)."""
    cfg = MaddpgConfig(env=env, seed=seed, policies=dict(policies or {}), hidden=tuple(hidden))
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    steps = max(steps, max(batches))
    c0 = time.process_time()
    while tr.steps < steps:
        tr.step(ref.act)
    out = {"env": env, "steps": tr.steps, "t_sg_s": tr.t_sg / tr.steps,
           "t_sg_cpu_s": (time.process_time() - c0) / tr.steps,
           "load_average": os.getloadavg()[0], "blas_threads": blas_threads(),
           "batches": {}}
    lists = _list_buffers(tr) if openai_lists else None
    list_rng = np.random.default_rng(seed)
    for B in batches:
        samp, samp_cpu, learn, learn_cpu = [], [], [], []
        for _ in range(rounds + 2):                       # two warm-up rounds
            t0, c0 = time.perf_counter(), time.process_time()
            b = tr.batches(B)
            t1, c1 = time.perf_counter(), time.process_time()
            ref.update(b)
            t2, c2 = time.perf_counter(), time.process_time()
            samp.append(t1 - t0)
            samp_cpu.append(c1 - c0)
            learn.append(t2 - t1)
            learn_cpu.append(c2 - c1)
        row = {"training_s": _median(learn[2:]), "training_cpu_s": _median(learn_cpu[2:]),
               "sampling_s": _median(samp[2:]), "sampling_cpu_s": _median(samp_cpu[2:])}
        if lists is not None:
            t_list = []
            for _ in range(max(3, rounds // 3)):
                c0 = time.process_time()
                _list_sample(lists, list_rng, B)
                t_list.append(time.process_time() - c0)
            row["openai_list_sampling_cpu_s"] = _median(t_list)
        out["batches"][str(B)] = row
    return out
