"""FIXAR's exact float64 products against the float32 products of its reference: the part of
the simulator's CPU per training step that no change around the products can remove.

    python machines/fixar/bench/products.py [--steps 100] [--repeats 5] [--json F]

First one run of FIXAR's speed workload (``machines/fixar/speed.py``: HalfCheetah, B = 64,
its warm-up and then ``--steps`` training steps) with the AAP instructions' product kernels
(``tlm/kernels.py`` ``product_into``, ``gradient_into``) counted by operand shape and timed
in the run (process time, what they cost among the step's other memory traffic, every call
but a shape's first, which loads the compiled code); then, for
every shape, alone and interleaved over ``--repeats`` rounds: the simulator's kernel on
random raw words of the workload's magnitudes (conversion, float64 BLAS product, rounding
and saturation: the exact single-product path), float64 BLAS alone (``numpy.dot``) and the
float32 product the reference forms (``numpy.dot`` on float32 arrays). Sums per training
step weighted by the counts; ``float64 / float32`` is the products' floor on the
simulator-to-reference ratio of ``bench/speed.py``: the exact path keeps every sum of up to
400 products of 32-bit words (about 2**49) exactly, which float32's 24-bit mantissa cannot.
One BLAS thread, as every bench here. Not a test: the figures depend on the computer.
"""

from __future__ import annotations

import rlaccel  # noqa: F401  (first: one BLAS thread, the pinned kernel)

import argparse  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

#: raw magnitudes of the random operands: activations of fixed32 (q16.16) up to 16, weights of
#: q4.28 up to 1/16 -- the workload's range, every sum inside the exact single product
X_BITS, W_BITS = 20, 24


def _count(steps: int) -> tuple[dict, float]:
    """``({(kind, a_shape, b_shape, transpose): [calls, cpu_s, shift, out]}, training steps)``
    of one run (``cpu_s`` of every call but the first; ``shift`` and ``out``, the rounding's
    shift and the output format, as the first call passed them)."""
    from rlaccel.isa.machine import machine
    from rlaccel.machines.fixar.speed import WARM
    from rlaccel.machines.fixar.tlm import models
    from rlaccel.programs.runner import run
    m = machine("fixar")
    w = m.resolve(m.speed)
    seen: dict = collections.defaultdict(lambda: [0, 0.0, None, None])
    product, gradient = models.product_into, models.gradient_into

    def timed(kind, key, fn, a, *args, **k):
        c = time.process_time()
        try:
            return fn(*args, **k)
        finally:
            s = seen[(kind,) + key]
            s[0] += 1
            if s[0] > 1:                    # the first call loads the compiled code
                s[1] += time.process_time() - c
            else:
                s[2:] = a[:2]               # the kernels' shift and output format

    models.product_into = lambda X, xf, W, tr, *a, **k: timed(
        "product", (X.shape, W.raw.shape, tr), product, a, X, xf, W, tr, *a, **k)
    models.gradient_into = lambda E, ef, X, xf, *a, **k: timed(
        "gradient", (E.shape, X.shape, False), gradient, a, E, ef, X, xf, *a, **k)
    try:
        r = run(str(m.programs / w.manifest), list(w.overrides), arch=w.arch, seed=1,
                steps=WARM + steps)
    finally:
        models.product_into, models.gradient_into = product, gradient
    return dict(seen), w.steps(r) - WARM


def _operands(kind: str, a: tuple, b: tuple, tr: bool, shift: int, acc, rng):
    """The three ways of one shape: the simulator's kernel (the run's ``shift`` and output
    format ``acc``), float64 and float32 BLAS."""
    from rlaccel.machines.fixar.tlm.kernels import Operand, gradient_into, product_into
    A = rng.integers(-2 ** X_BITS, 2 ** X_BITS, a)
    if kind == "product":
        W = Operand(rng.integers(-2 ** W_BITS, 2 ** W_BITS, b))
        n = b[0] if tr else b[1]
        xf, work, D = np.empty(a), np.empty((a[0], n)), np.empty((a[0], n), np.int64)
        add = np.zeros(n, np.int64)
        B64 = W.f64.T if tr else W.f64
        out64 = np.empty((a[0], n))

        def exact():
            if product_into(A, xf, W, tr, shift, acc, D, work, add=add) is None:
                raise SystemExit(f"products.py: {a} x {b} left the single-product path")
        a64 = A.astype(np.float64)
    else:
        X = rng.integers(-2 ** X_BITS, 2 ** X_BITS, b)
        ef, xf = np.empty(a), np.empty(b)
        G, work = np.empty((a[1], b[1]), np.int64), np.empty((a[1], b[1]))
        B64 = X.astype(np.float64)
        out64 = np.empty((a[1], b[1]))

        def exact():
            if not gradient_into(A, ef, X, xf, shift, acc, G, work):
                raise SystemExit(f"products.py: {a}' x {b} left the single-product path")
        a64 = A.astype(np.float64).T
    a32, b32 = a64.astype(np.float32), B64.astype(np.float32)
    out32 = np.empty(out64.shape, np.float32)
    return {"kernel": exact, "float64": lambda: np.dot(a64, B64, out64),
            "float32": lambda: np.dot(a32, b32, out32)}


def _time(fn, calls: int) -> float:
    c = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - c) / calls


def measure(steps: int, repeats: int, log=print) -> dict:
    counted, trained = _count(steps)
    rng = np.random.default_rng(1)
    ways = {k: _operands(*k, *counted[k][2:], rng) for k in counted}
    for w in ways.values():                 # compile and warm every way once
        for fn in w.values():
            fn()
    rounds = collections.defaultdict(list)
    for _ in range(repeats):
        for key, w in ways.items():
            for name, fn in w.items():
                rounds[key + (name,)].append(_time(fn, 20))
    rows, total = [], collections.Counter()
    for key, (calls, cpu, shift, _) in sorted(counted.items(), key=lambda kv: -kv[1][1]):
        per = calls / trained
        in_run = 1e3 * cpu / (calls - 1) if calls > 1 else float("nan")
        row = {"kind": key[0], "a": list(key[1]), "b": list(key[2]), "transpose": key[3],
               "shift": shift, "per_step": per, "in_run_ms": in_run}
        for name in ("kernel", "float64", "float32"):
            row[f"{name}_ms"] = 1e3 * statistics.median(rounds[key + (name,)])
            total[name] += per * row[f"{name}_ms"]
        total["in_run"] += per * in_run
        rows.append(row)
    totals = {f"{k}_ms_per_step": v for k, v in total.items()}
    totals["float64_over_float32"] = total["float64"] / total["float32"]
    totals["kernel_over_float32"] = total["kernel"] / total["float32"]
    log(f"{'shape':32s} {'per step':>8s} {'in run':>8s} {'kernel':>8s} {'float64':>8s} "
        f"{'float32':>8s}  (ms a call)")
    for r in rows:
        shape = f"{r['kind'][0]} {tuple(r['a'])}x{tuple(r['b'])}{'T' if r['transpose'] else ''}"
        log(f"{shape:32s} {r['per_step']:8.0f} {r['in_run_ms']:8.3f} {r['kernel_ms']:8.3f} "
            f"{r['float64_ms']:8.3f} {r['float32_ms']:8.3f}")
    log(f"per training step: in the run {total['in_run']:.2f} ms, the kernels alone "
        f"{total['kernel']:.2f}, float64 BLAS {total['float64']:.2f}, float32 BLAS "
        f"{total['float32']:.2f} ms; float64 / float32 {totals['float64_over_float32']:.2f}x, "
        f"kernels / float32 {totals['kernel_over_float32']:.2f}x")
    return {"training_steps": trained, "repeats": repeats, "shapes": rows, "totals": totals,
            "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
            "load": list(os.getloadavg())}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=100, help="training steps counted (100)")
    ap.add_argument("--repeats", type=int, default=5, help="interleaved timing rounds (5)")
    ap.add_argument("--json", help="write the figures to this JSON file")
    args = ap.parse_args(argv)
    if args.steps < 1 or args.repeats < 1:
        ap.error("--steps and --repeats must be at least 1")
    out = measure(args.steps, args.repeats)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
