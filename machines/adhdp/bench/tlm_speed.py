"""Simulator speed: TLM instructions/s and simulated cycles/s, and wall time against the golden
model.

    python machines/adhdp/bench/tlm_speed.py [--manifest machines/adhdp/programs/cartpole.toml] [--trials 10]
                              [--repeats 3] [--vu] [--reference-kernels] [--json FILE]

Runs the manifest's program for a fixed workload (``--trials`` trials from the manifest's
seed, ``stop_on_success`` off) on the ``adhdp`` (Q6.18) and ``adhdp-f64`` simulators, and the
same trials on the float64 golden model (``machines/adhdp/reference.py``), ``--repeats``
times each, interleaved, and prints medians. "sim" is the simulator's own loop
(``Platform.run``, the environment included, as the host steps it); "run" adds assembly,
loading and the report (``programs.runner.run``); "ref" is ``AdhdpReference(...).run(Trials
(cfg))`` (the same environment) after the same assembly. ``ratio_vs_reference`` is the median
sim time over the median reference time. One short run per architecture comes first and is
not timed: it loads the compiled loop (numba's cache, about a second per process, reported as
``startup_s``). adhdp-f64 and the reference do the same arithmetic bit for bit, so their
steps must agree; the Q6.18 machine learns along its own trajectory. ``--json`` writes, per
architecture, ``ratio_vs_reference``, ``instructions_per_s``, ``cycles_per_s`` and the raw
medians, and ``run_cpu_ratio_vs_reference``: the CPU seconds of the whole run (assembly
included) over the reference's (steadier than wall time on a shared machine).
``--trace-cost TRACE`` instead times whole runs with and without ``--trace TRACE``,
interleaved (wall and CPU medians, the trace's extra cost). Not a test: the figures depend
on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from rlaccel.assembler.assemble import assemble_file
from rlaccel.isa.arch import load_arch
from rlaccel.machines.adhdp.host import Trials
from rlaccel.machines.adhdp.plugin import defines, learning_config, program_path
from rlaccel.machines.adhdp.reference import AdhdpReference
from rlaccel.programs.runner import configure, run

ARCHS = ("adhdp", "adhdp-f64")


def tlm(manifest: str, overrides: list[str], arch: str, trials: int, kernels: str,
        trace: str | None = None) -> dict:
    t, c = time.perf_counter(), time.process_time()
    r = run(manifest, overrides, arch=arch, trials=trials, kernels=kernels, trace_path=trace)
    total, cpu = time.perf_counter() - t, time.process_time() - c
    return {"run_s": total, "run_cpu_s": cpu, "sim_s": r["timing"]["sim"]["wall_s"],
            "instructions": r["instructions"], "cycles": r["cycles"],
            "steps": r["learning"]["steps_per_trial"]}


def reference(manifest: str, overrides: list[str], trials: int) -> dict:
    _, m = configure(manifest, overrides, arch="adhdp-f64", trials=trials)
    arch = load_arch("adhdp-f64")
    t, c = time.perf_counter(), time.process_time()
    a = assemble_file(program_path(m), arch=arch, defines=defines(m))
    ref = AdhdpReference.from_binary(a.binary, arch, m["virtual_update"])
    t_model, c_model = time.perf_counter(), time.process_time()
    learn = ref.run(Trials(learning_config(m)))
    end, c_end = time.perf_counter(), time.process_time()
    return {"run_s": end - t, "model_s": end - t_model, "run_cpu_s": c_end - c,
            "model_cpu_s": c_end - c_model, "steps": learn["steps_per_trial"]}


def trace_cost(manifest: str, trials: int, repeats: int, path: str) -> dict:
    """``rlaccel run`` with and without ``--trace`` (to ``path``) on the same workload (the
    manifest's own settings, ``trials`` trials, seed 1, Q6.18), interleaved: medians of
    wall and CPU seconds of the whole run (assembly, simulation, report, trace file) and
    the trace's extra cost over the run without it."""
    run(manifest, ["max_steps=5"], trials=1, trace_path=path)          # untimed: loading
    rows: dict[str, list[dict]] = {"plain": [], "trace": []}
    for _ in range(repeats):
        for mode in rows:
            rows[mode].append(tlm(manifest, [], "adhdp", trials, "compiled",
                                  path if mode == "trace" else None))
    med = lambda m, k: statistics.median(r[k] for r in rows[m])  # noqa: E731
    out = {"manifest": manifest, "trials": trials, "repeats": repeats,
           "instructions": rows["plain"][0]["instructions"]}
    for k in ("run_s", "run_cpu_s"):
        out[k] = {m: med(m, k) for m in rows}
        out[k]["extra"] = out[k]["trace"] / out[k]["plain"] - 1.0
        out[k]["extra_each"] = sorted(t[k] / p[k] - 1.0 for p, t in zip(rows["plain"],
                                                                          rows["trace"]))
    return out


def measure(manifest: str, trials: int, repeats: int, vu: bool, kernels: str,
            log=None) -> dict:
    """The medians of ``repeats`` interleaved runs (see the module docstring)."""
    overrides = ["stop_on_success=false", f"virtual_update={'true' if vu else 'false'}"]
    startup = {}
    for arch in ARCHS:                      # untimed: loads the compiled loop
        t = time.perf_counter()
        run(manifest, overrides + ["max_steps=5"], arch=arch, trials=1, kernels=kernels)
        startup[arch] = time.perf_counter() - t
    runs: dict[str, list[dict]] = {a: [] for a in (*ARCHS, "reference")}
    for i in range(repeats):
        for arch in ARCHS:
            runs[arch].append(tlm(manifest, overrides, arch, trials, kernels))
        runs["reference"].append(reference(manifest, overrides, trials))
        if log:
            log(f"repeat {i + 1}/{repeats} done")
    med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
    ref = runs["reference"]
    out = {"manifest": manifest, "program": "Fig. 7" if vu else "Fig. 2", "trials": trials,
           "repeats": repeats, "kernels": kernels,
           "reference": {"steps": sum(ref[0]["steps"]), "model_s": med(ref, "model_s"),
                         "run_s": med(ref, "run_s"), "run_cpu_s": med(ref, "run_cpu_s")},
           "f64_steps_equal_reference": runs["adhdp-f64"][0]["steps"] == ref[0]["steps"]}
    for arch in ARCHS:
        rows = runs[arch]
        out[arch] = {
            "steps": sum(rows[0]["steps"]), "instructions": rows[0]["instructions"],
            "cycles": rows[0]["cycles"], "sim_s": med(rows, "sim_s"), "run_s": med(rows, "run_s"),
            "instructions_per_s": statistics.median(r["instructions"] / r["sim_s"] for r in rows),
            "cycles_per_s": statistics.median(r["cycles"] / r["sim_s"] for r in rows),
            "ratio_vs_reference": med(rows, "sim_s") / med(ref, "model_s"),
            "run_ratio_vs_reference": med(rows, "run_s") / med(ref, "run_s"),
            "run_cpu_ratio_vs_reference": med(rows, "run_cpu_s") / med(ref, "run_cpu_s"),
            "startup_s": startup[arch]}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", default="machines/adhdp/programs/cartpole.toml")
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--vu", action="store_true", help="the virtual-update program (Fig. 7)")
    p.add_argument("--reference-kernels", action="store_true",
                   help="measure the Python loop with the reference semantics")
    p.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    p.add_argument("--trace-cost", metavar="TRACE",
                   help="instead: time runs with and without --trace TRACE (the manifest's "
                        "own settings, --trials trials)")
    a = p.parse_args(argv)
    if a.trace_cost:
        r = trace_cost(a.manifest, a.trials, a.repeats, a.trace_cost)
        print(f"{a.manifest}, {a.trials} trials, {r['instructions']:,} instructions; medians "
              f"of {a.repeats} interleaved runs")
        for k, what in (("run_s", "wall"), ("run_cpu_s", "CPU")):
            x = r[k]
            print(f"  {what:4} {x['plain']:7.3f} s without the trace, {x['trace']:7.3f} s with "
                  f"it: +{100 * x['extra']:.0f} % (each pair: "
                  f"{', '.join(f'{100 * e:+.0f} %' for e in x['extra_each'])})")
        if a.json:
            from rlaccel.util.files import atomic_write
            atomic_write(a.json, json.dumps(r, indent=1))
        return 0
    r = measure(a.manifest, a.trials, a.repeats, a.vu,
                "reference" if a.reference_kernels else "compiled",
                log=lambda s: print(s, file=sys.stderr, flush=True))
    if not r["f64_steps_equal_reference"]:
        print("warning: adhdp-f64 and the reference disagree on the steps per trial",
              file=sys.stderr)
    print(f"{a.manifest} ({r['program']}), {a.trials} trials, stop_on_success off, "
          f"{r['kernels']} kernels; medians of {a.repeats} interleaved runs")
    print(f"{'':10} {'steps':>6} {'instr':>9} {'cycles':>11} {'sim s':>7} {'run s':>7} "
          f"{'instr/s':>10} {'cycles/s':>11} {'vs ref':>7} {'CPU vs':>7} {'startup':>8}")
    for name in ARCHS:
        x = r[name]
        print(f"{name:10} {x['steps']:6d} {x['instructions']:9,d} {x['cycles']:11,d} "
              f"{x['sim_s']:7.3f} {x['run_s']:7.3f} {x['instructions_per_s']:10,.0f} "
              f"{x['cycles_per_s']:11,.0f} {x['ratio_vs_reference']:6.2f}x "
              f"{x['run_cpu_ratio_vs_reference']:6.2f}x {x['startup_s']:7.2f}s")
    ref = r["reference"]
    print(f"{'reference':10} {ref['steps']:6d} {'':9} {'':11} {ref['model_s']:7.3f} "
          f"{ref['run_s']:7.3f}")
    if a.json:
        from rlaccel.util.files import atomic_write
        atomic_write(a.json, json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
