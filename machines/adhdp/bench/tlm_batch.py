"""Batched runs: many seeds of one program as one simulation against the same runs one by one.

    python machines/adhdp/bench/tlm_batch.py [--manifest machines/adhdp/programs/cartpole.toml] [--seeds 1-50]
                              [--trials 20] [--arch adhdp] [--repeats R] [--cli] [--floor]
                              [--json FILE]

Runs the manifest for every seed as one batch (``programs.runner.run_batch``, what ``rlaccel
run --seeds`` does), then the same runs one after another in this process
(``programs.runner.run`` per seed) and, with ``--cli``, as one ``rlaccel run --seed S``
process per seed (each process pays its own start: imports and loading the compiled loop).
Prints wall and CPU seconds of each and their ratios, and checks that every batch member's
report equals its single run's (but the wall-clock figures). One short batch and one short
run come first, untimed, to load the compiled code. Not a test: the figures depend on the
machine and its load; CPU seconds are the steadier measure on a shared machine.

``--floor`` also measures the batch's arithmetic alone (:func:`kernel_floor`): the CPU seconds
of the compiled kernels of every instruction the members ran, without the loop's timing
bookkeeping, the hosts, set-up or reports. No batch of these runs costs less, so the single
runs' CPU over it bounds the speed-up any batch can reach.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from rlaccel.programs.runner import run, run_batch
from rlaccel.tlm.fast import batch as fast_batch
from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.dispatch import branch, run as kernel
from rlaccel.tlm.fast.jit import njit
from rlaccel.tlm.loader import BRANCH, EXEC


def _strip(o):
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items() if k != "timing"}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


def _seeds(spec: str) -> list[int]:
    from rlaccel.cli import _seeds as parse
    return parse(spec)


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


@njit(nrt=False)
def _repeat_kernel(pc, reps, P, U, S, K, T, B, IMM, FS):
    """Instruction ``pc``'s kernel ``reps`` times on memories ``U``, ``S``."""
    c = 0
    for _ in range(reps):
        c += kernel(P[pc, I.C_CODE], P, pc, I.C_ARGS, U, S, K, T, B, IMM[pc], FS)
    return c


@njit(nrt=False)
def _repeat_branch(pc, reps, P, U, K):
    """Branch ``pc``'s condition ``reps`` times on memory ``U``."""
    c = 0
    for _ in range(reps):
        taken, sats = branch(P[pc, I.C_CODE], P, pc, I.C_ARGS, U, K)
        c += taken + sats
    return c


class _Kept(fast_batch.Batch):
    """A Batch that keeps itself where :func:`kernel_floor` finds it."""

    last = None

    def run(self):
        _Kept.last = self
        return super().run()


def kernel_floor(manifest, sets, seeds, kw, reps: int = 20000) -> dict:
    """The CPU seconds of a batch's arithmetic alone: the batch run once more (its Batch
    kept), then every instruction with a compiled kernel or condition timed alone, ``reps``
    times on a copy of member 0's memories as the batch left them (best of three), times how
    often the members ran it. Warm caches and predicted branches make it a lower bound."""
    saved, fast_batch.Batch = fast_batch.Batch, _Kept
    try:
        run_batch(manifest, sets, seeds=seeds, **kw)
    finally:
        fast_batch.Batch = saved
    b = _Kept.last
    _Kept.last = None
    counts = b.STATS[:, 0, :].sum(axis=0)
    p0 = b.progs[0]
    ops = b.platforms[0].agent.ops
    total, rows = 0.0, {}
    for pc in np.flatnonzero(counts).tolist():
        kind = int(p0.P[pc, I.C_KIND])
        if kind not in (EXEC, BRANCH):
            continue
        U, S = b.Us[0].copy(), b.Ss[0].copy()
        if kind == EXEC:
            def once(n):
                return _repeat_kernel(pc, n, p0.P, U, S, p0.K, p0.T, p0.B, p0.IMM, p0.FS)
        else:
            def once(n):
                return _repeat_branch(pc, n, p0.P, U, p0.K)
        once(1)
        best = float("inf")
        for _ in range(3):
            c = time.process_time()
            once(reps)
            best = min(best, (time.process_time() - c) / reps)
        s = best * int(counts[pc])
        total += s
        mn = ops[pc].mnemonic
        rows[mn] = rows.get(mn, 0.0) + s
    n = int(counts.sum())
    return {"cpu_s": total, "instructions": n, "ns_per_instruction": total / n * 1e9,
            "by_mnemonic_s": dict(sorted(rows.items(), key=lambda kv: -kv[1]))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", default="machines/adhdp/programs/cartpole.toml")
    p.add_argument("--seeds", default="1-50")
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--arch", default=None)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--repeats", type=int, default=1,
                   help="interleaved repeats of batch and single runs (medians)")
    p.add_argument("--cli", action="store_true", help="also time one process per seed")
    p.add_argument("--floor", action="store_true",
                   help="also time the batch's compiled kernels alone (kernel_floor)")
    p.add_argument("--json", metavar="FILE")
    a = p.parse_args(argv)
    seeds = _seeds(a.seeds)
    kw = {"arch": a.arch, "trials": a.trials}
    run_batch(a.manifest, a.set + ["max_steps=5"], seeds=seeds[:2], **kw)      # untimed
    run(a.manifest, a.set + ["max_steps=5"], seed=seeds[0], **kw)
    load = [os.getloadavg()]
    rows = []
    equal = True
    for i in range(a.repeats):                # interleaved: a batch, then the single runs
        b, bw, bc = _timed(lambda: run_batch(a.manifest, a.set, seeds=seeds, **kw))
        print(f"batch:   {bw:8.2f} s wall {bc:8.2f} s CPU", file=sys.stderr, flush=True)
        singles, sw, sc = _timed(lambda: [run(a.manifest, a.set, seed=s, **kw) for s in seeds])
        print(f"singles: {sw:8.2f} s wall {sc:8.2f} s CPU", file=sys.stderr, flush=True)
        equal = equal and all(_strip(x) == _strip(y) for x, y in zip(b["members"], singles))
        t = b["timing"]["sim"]
        rows.append({"batch_wall_s": bw, "batch_cpu_s": bc, "setup_s": t["setup_s"],
                     "run_s": t["run_s"], "singles_wall_s": sw, "singles_cpu_s": sc,
                     "speedup_wall": sw / bw, "speedup_cpu": sc / bc})
    load.append(os.getloadavg())
    med = lambda k: statistics.median(r[k] for r in rows)  # noqa: E731
    bw, bc, sw, sc = (med(k) for k in ("batch_wall_s", "batch_cpu_s", "singles_wall_s",
                                       "singles_cpu_s"))
    out = {"manifest": a.manifest, "seeds": seeds, "trials": a.trials, "arch": a.arch,
           "set": a.set, "members_equal_single_runs": equal,
           "instructions": b["sim"]["instructions"],
           "steps": sum(sum(m["learning"]["steps_per_trial"]) for m in b["members"])
           if "learning" in b["members"][0] else None,
           "repeats": a.repeats, "load_average_before_after": load,
           "batch": {"wall_s": bw, "cpu_s": bc, "setup_s": med("setup_s"),
                     "run_s": med("run_s")},
           "singles_in_process": {"wall_s": sw, "cpu_s": sc},
           "speedup_wall": med("speedup_wall"), "speedup_cpu": med("speedup_cpu"),
           "each": rows}
    if a.floor:
        f = out["kernel_floor"] = kernel_floor(a.manifest, a.set, seeds, kw)
        out["speedup_cpu_bound"] = sc / f["cpu_s"]
    if a.cli:
        cmd = [sys.executable, "-m", "rlaccel", "run", a.manifest, "-q", "--trials",
               str(a.trials)] + (["--arch", a.arch] if a.arch else [])
        for s in a.set:
            cmd += ["--set", s]
        w = time.perf_counter()
        for s in seeds:
            subprocess.run(cmd + ["--seed", str(s)], check=True, capture_output=True)
        out["singles_cli"] = {"wall_s": time.perf_counter() - w}
        out["speedup_cli_wall"] = out["singles_cli"]["wall_s"] / bw
    print(f"{a.manifest}: {len(seeds)} seeds x {a.trials} trials, {out['instructions']:,} "
          f"instructions; members equal single runs: {equal}")
    print(f"  medians of {a.repeats} interleaved repeats; load average "
          f"{load[0][0]:.1f} before, {load[1][0]:.1f} after")
    print(f"  batch                 {bw:8.2f} s wall {bc:8.2f} s CPU")
    each = ", ".join(f"{r['speedup_cpu']:.1f}x" for r in rows)
    print(f"  single runs, in turn  {sw:8.2f} s wall {sc:8.2f} s CPU   "
          f"speedup {out['speedup_wall']:.1f}x wall, {out['speedup_cpu']:.1f}x CPU "
          f"(each repeat: {each} CPU)")
    if a.floor:
        f = out["kernel_floor"]
        print(f"  kernels alone (floor)          {f['cpu_s']:8.2f} s CPU   "
              f"({f['ns_per_instruction']:.0f} ns an instruction): no batch beats "
              f"{out['speedup_cpu_bound']:.1f}x CPU")
    if a.cli:
        print(f"  one process per seed  {out['singles_cli']['wall_s']:8.2f} s wall"
              f"                 speedup {out['speedup_cli_wall']:.1f}x wall")
    if a.json:
        from rlaccel.util.files import atomic_write
        atomic_write(a.json, json.dumps(out, indent=1))
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
