"""Simulator speed against each machine's float reference, per environment step, and the
batch speed-ups of ``rlaccel run --seeds``.

    python bench/speed.py [--quick] [--json F] [--machines adhdp darl ...] [--repeats N]
                          [--no-batch] [--markdown F]

For every machine (its workload found through its descriptor, ``Machine.speed``, a
:class:`rlaccel.programs.speed.Workload`) in one process: one untimed run of each side at
the small budget first (imports, numba's cache, the environments), then ``--repeats``
rounds, interleaved, of the simulator (``rlaccel run`` as a library call: assembly,
platform, simulation, report) and the float reference, each at the workload's large and
small budget. Per round and side the CPU seconds (``time.process_time``) of the large run
minus the small run's, over the environment steps of the large minus the small, are the
CPU per environment step with set-up subtracted; ``ratio`` is the simulator's over the
reference's (the median of the rounds' ratios). ``batch``: the workload's seeds as one
``rlaccel run --seeds`` batch against as many single runs, CPU of each (``speedup``: single
over batch), and whether every member's report equals its single run's outside the
``timing`` key; a machine whose batch is refused says why.

``--commands``: the whole commands instead, each its own process, as a user starts them:
``rlaccel --help``, ``rlaccel run`` of the workload at its large budget (``-q``) and the
float reference for the same budget as its own command (``python -c``: the workload's
``reference``); CPU seconds (user and system, from the operating system) and wall seconds,
medians of ``--repeats`` interleaved rounds after an untimed one, and ``command_ratio``, the
run's CPU over the reference's. The commands keep their bytecode caches in a temporary
folder (``PYTHONPYCACHEPREFIX``), as an installed package has them.

``--quick`` takes each workload's quick budgets (about a minute a machine); ``--json F``
writes ``{"machines": {"adhdp": {"ratio": R, ...}, ...}, ...}``. numpy's BLAS runs one
thread (``import rlaccel`` first: one thread unless a count is set), as every bench here. Not a test: the
figures depend on the computer and its load (the load average is recorded).
"""

from __future__ import annotations

import os

import rlaccel  # noqa: E402,F401  (before numpy: one BLAS thread unless set)

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402


def _cpu(fn) -> tuple[float, object]:
    c = time.process_time()
    out = fn()
    return time.process_time() - c, out


def _stable(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "timing"}


def measure(name: str, quick: bool, repeats: int, batch: bool, log=print) -> dict:
    """One machine's figures (module docstring)."""
    from rlaccel.isa.machine import machine
    from rlaccel.programs.runner import run
    m = machine(name)
    w = m.resolve(m.speed)
    mode = "quick" if quick else "full"
    small, large = w.budgets[mode]
    manifest = str(m.programs / w.manifest)

    def sim(budget, seed=1):
        r = run(manifest, list(w.overrides), arch=w.arch, seed=seed, **{w.option: budget})
        return w.steps(r)

    def ref(budget, seed=1):
        return w.reference(budget, seed)

    t0 = time.perf_counter()
    warm = {"simulator": _cpu(lambda: sim(small))[0], "reference": _cpu(lambda: ref(small))[0]}
    rounds = []
    for i in range(repeats):
        row = {}
        for side, go in (("simulator", sim), ("reference", ref)):
            cl, nl = _cpu(lambda: go(large))
            cs, ns = _cpu(lambda: go(small))
            row[side] = {"cpu_s": [cs, cl], "steps": [ns, nl],
                         "ms_per_step": 1e3 * (cl - cs) / max(nl - ns, 1)}
        row["ratio"] = row["simulator"]["ms_per_step"] / row["reference"]["ms_per_step"]
        rounds.append(row)
        log(f"  {name} round {i + 1}/{repeats}: simulator "
            f"{row['simulator']['ms_per_step']:.3f} ms/step, reference "
            f"{row['reference']['ms_per_step']:.3f} ms/step, ratio {row['ratio']:.2f}x")
    med = lambda side: statistics.median(r[side]["ms_per_step"] for r in rounds)  # noqa: E731
    out = {"workload": w.title, "manifest": w.manifest, "option": w.option,
           "budgets": [small, large], "overrides": list(w.overrides),
           "ratio": statistics.median(r["ratio"] for r in rounds),
           "simulator_ms_per_step": med("simulator"), "reference_ms_per_step": med("reference"),
           "first_run_cpu_s": warm, "rounds": rounds}
    if batch and mode in w.seeds:
        out["batch"] = measure_batch(m, w, manifest, *w.seeds[mode], log=log)
    out["wall_s"] = time.perf_counter() - t0
    return out


def measure_batch(m, w, manifest: str, members: int, budget: int, log=print) -> dict:
    """``members`` seeds as one batch against as many single runs (CPU seconds), after an
    untimed batch of two members at the small quick budget."""
    from rlaccel.programs.runner import run, run_batch
    from rlaccel.util.errors import RlaccelError
    seeds = list(range(1, members + 1))
    opts = {w.option: budget}
    out = {"members": members, w.option: budget}
    try:            # untimed: the batch loop's compiled code for this machine loaded first
        run_batch(manifest, list(w.overrides), seeds=seeds[:2], arch=w.arch,
                  **{w.option: w.budgets["quick"][0]})
        cpu_b, got = _cpu(lambda: run_batch(manifest, list(w.overrides), seeds=seeds,
                                            arch=w.arch, **opts))
    except RlaccelError as exc:
        out["refused"] = str(exc)
        log(f"  {m.name} batch refused: {exc}")
        return out
    cpu_s, singles = _cpu(lambda: [run(manifest, list(w.overrides), arch=w.arch, seed=s,
                                       **opts) for s in seeds])
    out.update(single_cpu_s=cpu_s, batch_cpu_s=cpu_b, speedup=cpu_s / cpu_b,
               members_equal_single_runs=all(
                   _stable(a) == _stable(b) for a, b in zip(got["members"], singles)))
    log(f"  {m.name} batch of {members} x {budget} {w.option}: {cpu_s:.2f} s single, "
        f"{cpu_b:.2f} s batched: {out['speedup']:.2f}x")
    return out


def _command(cmd: list[str], env: dict) -> tuple[float, float]:
    """CPU (user and system, the process and its children) and wall seconds of a command."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - w
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, wall


#: the float reference of a machine's workload as its own command (argv: machine, budget)
_REFERENCE = ("import sys; from rlaccel.isa.machine import machine; m = machine(sys.argv[1]); "
              "w = m.resolve(m.speed); w.reference(int(sys.argv[2]), 1)")


def measure_commands(name: str, quick: bool, repeats: int, log=print) -> dict:
    """``rlaccel --help``, the workload's ``rlaccel run`` and its reference as commands
    (module docstring)."""
    from rlaccel.isa.machine import machine
    m = machine(name)
    w = m.resolve(m.speed)
    budget = w.budgets["quick" if quick else "full"][1]
    run = [sys.executable, "-m", "rlaccel", "run", str(m.programs / w.manifest), "-q",
           f"--{w.option}", str(budget)]
    for o in w.overrides:
        run += ["--set", o]
    if w.arch:
        run += ["--arch", w.arch]
    cmds = {"help": [sys.executable, "-m", "rlaccel", "--help"], "run": run,
            "reference": [sys.executable, "-c", _REFERENCE, name, str(budget)]}
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        for cmd in cmds.values():                # untimed: bytecode and numba's caches
            _command(cmd, env)
        rounds = []
        for i in range(repeats):
            row = {k: dict(zip(("cpu_s", "wall_s"), _command(c, env))) for k, c in cmds.items()}
            row["command_ratio"] = row["run"]["cpu_s"] / row["reference"]["cpu_s"]
            rounds.append(row)
            log(f"  {name} commands round {i + 1}/{repeats}: help {row['help']['cpu_s']:.2f} s, "
                f"run {row['run']['cpu_s']:.2f} s, reference {row['reference']['cpu_s']:.2f} s "
                f"of CPU: {row['command_ratio']:.2f}x")
    med = lambda k, f: statistics.median(r[k][f] for r in rounds)  # noqa: E731
    return {"workload": w.title, w.option: budget,
            "commands": {k: " ".join(c[1:]) for k, c in cmds.items()},
            **{f"{k}_{f}": med(k, f) for k in cmds for f in ("cpu_s", "wall_s")},
            "command_ratio": statistics.median(r["command_ratio"] for r in rounds),
            "rounds": rounds}


def table(res: dict) -> str:
    """The Markdown table of a result."""
    lines = ["| machine | workload | simulator ms/step | reference ms/step | CPU ratio | "
             "batch (members x budget) | batch speed-up |",
             "|---|---|---:|---:|---:|---|---:|"]
    for name, r in res["machines"].items():
        b = r.get("batch", {})
        if "speedup" in b:
            bs, bx = f"{b['members']} x {b.get('trials', b.get('steps'))}", f"{b['speedup']:.2f}x"
        elif "refused" in b:
            bs, bx = f"{b['members']} x {b.get('trials', b.get('steps'))}", "refused"
        else:
            bs, bx = "", ""
        lines.append(f"| {name} | {r['workload']} | {r['simulator_ms_per_step']:.3f} | "
                     f"{r['reference_ms_per_step']:.3f} | {r['ratio']:.2f}x | {bs} | {bx} |")
    return "\n".join(lines)


def commands_table(res: dict) -> str:
    """The Markdown table of a ``--commands`` result."""
    lines = ["| machine | workload | budget | `rlaccel --help` CPU s | `rlaccel run` CPU s | "
             "reference command CPU s | run / reference |", "|---|---|---:|---:|---:|---:|---:|"]
    for name, r in res["machines"].items():
        budget = r.get("trials", r.get("steps"))
        lines.append(f"| {name} | {r['workload']} | {budget} | {r['help_cpu_s']:.2f} | "
                     f"{r['run_cpu_s']:.2f} | {r['reference_cpu_s']:.2f} | "
                     f"{r['command_ratio']:.2f}x |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the workloads' quick budgets")
    p.add_argument("--json", metavar="F", help="write the figures as JSON")
    p.add_argument("--markdown", metavar="F", help="write the table as Markdown")
    p.add_argument("--machines", nargs="+", metavar="M", help="only these machines")
    p.add_argument("--repeats", type=int, default=None,
                   help="interleaved rounds (default 2 quick, 3 full)")
    p.add_argument("--no-batch", action="store_true", help="skip the batch speed-ups")
    p.add_argument("--commands", action="store_true",
                   help="instead: the whole commands (rlaccel --help, rlaccel run, the "
                        "reference as its own command), each its own process")
    a = p.parse_args(argv)
    from rlaccel.isa.machine import machines
    from rlaccel.util.files import atomic_write
    names = a.machines or [n for n, m in machines().items() if m.speed]
    repeats = a.repeats or (2 if a.quick else 3)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    res = {"command": " ".join(["python", "bench/speed.py", *(argv or sys.argv[1:])]),
           "mode": "quick" if a.quick else "full", "repeats": repeats,
           "host": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
                    "load_average_before": os.getloadavg()[0]},
           "machines": {}}
    for name in names:
        log(f"{name}:")
        res["machines"][name] = (measure_commands(name, a.quick, repeats, log) if a.commands
                                 else measure(name, a.quick, repeats, not a.no_batch, log))
        if a.json:
            atomic_write(a.json, json.dumps(res, indent=1))
    res["host"]["load_average_after"] = os.getloadavg()[0]
    text = commands_table(res) if a.commands else table(res)
    print(text)
    if a.json:
        atomic_write(a.json, json.dumps(res, indent=1))
    if a.markdown:
        atomic_write(a.markdown, text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
