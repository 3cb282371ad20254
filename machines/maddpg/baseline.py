"""The CPU-only baseline of the MADDPG paper's Fig. 7, measured on this machine so that two
runs give the same figures.

The learner is the float reference (:class:`~.reference.MaddpgReference`, float32 numpy;
``backend="numpy"``) or the same round in PyTorch (:class:`~.torch_maddpg.TorchMaddpg`,
``backend="torch"``, the paper's software stack, an optional extra). :func:`measure` runs in
a child process started with one BLAS and OpenMP thread (the paper's single training thread,
whatever the caller's environment says: an unpinned OpenBLAS spin-waits for its second
thread, and on a loaded machine that spinning is CPU time, 10-20x the round), and there

* steps the task with the reference's policies: T_SG is every agent's inference, the
  environment step and storing the transition, timed over chunks of ``CHUNK`` steps;
* then for ``WARMUP + repeats`` passes draws a round's batch for every batch size (replay
  sampling) and runs one update round on it, the batch sizes in a rotated order each pass so
  that a change of load falls on all of them alike; the warm-up passes are dropped;
* also times sampling the way openai/maddpg's buffer does it (every agent a Python list of
  transition tuples, every agent's batch assembled element by element), which the paper's
  baselines inherit.

Every time is this process's CPU time (``time.process_time``: the wall clock on a shared
machine also counts waiting for a core). Other processes still slow a round down by sharing
the core's caches and its sibling hyper-thread, never speed it up, so the figure a speed-up
uses is the **minimum** over the repeats (what the least disturbed round took); the median,
the maximum and ``spread = (median - min) / min`` say how disturbed the rest were, and the
load average is recorded before and after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from rlaccel.util.determinism import THREADS
from rlaccel.util.errors import RlaccelError

__all__ = ["measure", "merge", "blas_threads", "host_cpu", "stats", "BACKENDS"]

#: the learners a baseline can time
BACKENDS = ("numpy", "torch")
#: steps per T_SG chunk: one whole 25-step episode, its reset included
CHUNK = 25
#: dropped passes before the timed ones
WARMUP = 2


def blas_threads() -> str:
    """The BLAS thread setting of this process (the child of :func:`measure`: 1)."""
    return os.environ.get("OPENBLAS_NUM_THREADS", os.environ.get("OMP_NUM_THREADS",
                                                                 "default (all cores)"))


def _blas_core() -> str | None:
    """The kernel set numpy's OpenBLAS chose for this CPU (``Haswell``, ``SkylakeX``, ...;
    OpenBLAS picks it at load time from the CPU's instruction sets), or None where numpy's
    BLAS is not a bundled OpenBLAS."""
    import ctypes
    import glob
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*"))
    for lib in libs:
        try:
            dll = ctypes.CDLL(lib)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename"):
            f = getattr(dll, name, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                return f().decode()
    return None


def host_cpu() -> dict:
    """The CPU the baseline ran on: its name, family and model (``/proc/cpuinfo``), the
    vector instruction sets numpy found (AVX2, AVX-512) and OpenBLAS's kernel set. A CPU
    round's time, the speed-up's numerator, depends on all of them."""
    import platform
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                if not line.strip():
                    break                          # the first logical CPU is enough
                info.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:                            # pragma: no cover - another numpy
        feats = {}
    return {"name": info.get("model name") or platform.processor() or platform.machine(),
            "family": info.get("cpu family"), "model": info.get("model"),
            "simd": [k for k in ("AVX2", "FMA3", "AVX512F") if feats.get(k)],
            "blas_core": _blas_core()}


def stats(xs) -> dict:
    """Minimum, median, maximum of ``xs`` and ``spread = (median - min) / min``."""
    a = np.asarray(xs, dtype=np.float64)
    lo, med = float(a.min()), float(np.median(a))
    return {"min": lo, "median": med, "max": float(a.max()),
            "spread": (med - lo) / lo if lo > 0 else 0.0, "n": int(a.size)}


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


def _cpu() -> float:
    return time.process_time()


def _learner(backend: str, ref):
    """``(update, prepare)``: the round to time and what turns a round's batches into its
    input (outside the timed part)."""
    if backend == "numpy":
        return ref.update, lambda batches: batches
    from rlaccel.machines.maddpg.torch_maddpg import TorchMaddpg, available
    if not available():
        raise RlaccelError("the torch baseline needs PyTorch: pip install 'rlaccel[torch]'")
    t = TorchMaddpg(ref)
    return t.update, lambda batches: [t.tensors(b) for b in batches]


def _measure(env: str, batches, repeats: int, steps: int, seed: int, policies: dict,
             hidden, backend: str, openai_lists: bool, env_kwargs: dict) -> dict:
    """The measurement itself, in this process (see :func:`measure`)."""
    from rlaccel.machines.maddpg.config import MaddpgConfig
    from rlaccel.machines.maddpg.reference import MaddpgReference
    from rlaccel.machines.maddpg.training import Training
    cfg = MaddpgConfig(env=env, seed=seed, policies=dict(policies or {}), hidden=tuple(hidden),
                       env_kwargs=dict(env_kwargs or {}))
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    load0 = os.getloadavg()
    chunks = []
    steps = -(-max(steps, max(batches), CHUNK) // CHUNK) * CHUNK
    while tr.steps < steps:
        c0 = _cpu()
        for _ in range(CHUNK):
            tr.step(ref.act)
        chunks.append((_cpu() - c0) / CHUNK)
    update, prepare = _learner(backend, ref)
    lists = _list_buffers(tr) if openai_lists else None
    list_rng = np.random.default_rng(seed)
    times = {B: {"training": [], "sampling": [], "openai_list_sampling": []} for B in batches}
    for p in range(WARMUP + repeats):
        k = p % len(batches)
        for B in list(batches[k:]) + list(batches[:k]):
            c0 = _cpu()
            b = tr.batches(B)
            c1 = _cpu()
            x = prepare(b)
            c2 = _cpu()
            update(x)
            c3 = _cpu()
            if lists is not None and p >= WARMUP and (p - WARMUP) % 3 == 0:
                _list_sample(lists, list_rng, B)
                times[B]["openai_list_sampling"].append(_cpu() - c3)
            if p >= WARMUP:
                times[B]["training"].append(c3 - c2)
                times[B]["sampling"].append(c1 - c0)
    out = {"env": env, "backend": backend, "steps": tr.steps,
           "load_average": [load0[0], os.getloadavg()[0]], "blas_threads": blas_threads(),
           "cpu": host_cpu(),
           "samples": {"t_sg": chunks,
                       "batches": {str(B): {k: v for k, v in t.items() if v}
                                   for B, t in times.items()}}}
    if backend == "torch":
        import torch
        out["torch"] = {"version": torch.__version__, "threads": torch.get_num_threads()}
    return _summarise(out)


def _summarise(out: dict) -> dict:
    """Every figure of ``out["samples"]`` as its :func:`stats` and its minimum."""
    smp = out["samples"]
    out["t_sg"] = stats(smp["t_sg"])
    out["t_sg_cpu_s"] = out["t_sg"]["min"]
    out["repeats"] = min(len(t["training"]) for t in smp["batches"].values())
    out["batches"] = {}
    for B, t in smp["batches"].items():
        row = {}
        for name, xs in t.items():
            row[f"{name}_cpu"] = stats(xs)
            row[f"{name}_cpu_s"] = row[f"{name}_cpu"]["min"]
        out["batches"][B] = row
    return out


def merge(first: dict, *more: dict) -> dict:
    """One baseline from measurements of the same task taken at different times: their
    samples pooled (so a stretch of heavy load during one of them does not set the
    minimum), their load averages listed in order."""
    out = json.loads(json.dumps(first))
    for m in more:
        out["samples"]["t_sg"] += m["samples"]["t_sg"]
        for B, t in m["samples"]["batches"].items():
            for name, xs in t.items():
                out["samples"]["batches"][B].setdefault(name, []).extend(xs)
        out["load_average"] += m["load_average"]
    return _summarise(out)


def measure(env: str, batches, repeats: int = 100, steps: int = 2000, seed: int = 1,
            policies: dict | None = None, hidden=(64, 64), backend: str = "numpy",
            openai_lists: bool = True, env_kwargs: dict | None = None) -> dict:
    """T_SG per step and, per batch size, the learner's training and the replay sampling per
    round (CPU seconds; ``*_cpu_s`` the minimum over ``repeats``, ``*_cpu`` its
    :func:`stats`, ``samples`` every time taken, for :func:`merge`), measured in a child
    process with one BLAS thread; ``steps`` environment steps (at least the largest batch)
    fill the buffer first and time T_SG; ``env_kwargs`` go to the environment (e.g.
    Predator-Prey's ``num_adversaries``)."""
    if backend not in BACKENDS:
        raise RlaccelError(f"CPU baseline: backend must be one of {', '.join(BACKENDS)}, "
                           f"not {backend!r}")
    args = {"env": env, "batches": [int(b) for b in batches], "repeats": int(repeats),
            "steps": int(steps), "seed": int(seed), "policies": dict(policies or {}),
            "hidden": list(hidden), "backend": backend, "openai_lists": bool(openai_lists),
            "env_kwargs": dict(env_kwargs or {})}
    child_env = dict(os.environ, **{v: "1" for v in THREADS})
    p = subprocess.run([sys.executable, "-m", __name__, json.dumps(args)], env=child_env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        raise RlaccelError(f"CPU baseline ({backend}, {env}) failed: {why}")
    return json.loads(p.stdout)


if __name__ == "__main__":
    print(json.dumps(_measure(**json.loads(sys.argv[1]))))
