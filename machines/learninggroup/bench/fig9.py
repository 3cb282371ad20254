"""Fig. 9: success rate against the group number G for A = 4 and A = 8 agents, over several
random seeds, the FP16 machine beside the float32 reference.

    python machines/learninggroup/bench/fig9.py [--agents 4 8] [--groups 8 4 2 1 16]
        [--seeds 1 2 3] [--iterations 2000] [--batch 16] [--kinds reference machine]
        [--json machines/learninggroup/figures/fig9.json] [--import FILE ...]
    python machines/learninggroup/bench/fig9.py --table-only     # figure + table from the JSON

The paper's budget: 2000 iterations of B episodes (B = 16 here; the paper leaves B open for
Fig. 9). The paper's metric: "the total accuracy achieved during the training process of 2000
iterations", the success rate over every episode of the run (an episode succeeds when every
predator reaches the prey within its 20 steps), ``success_all`` in the JSON.

Every finished run is kept in the JSON and skipped when the sweep is started again, so the
sweep resumes where it stopped. A run in progress saves itself to
``out/fig9/<kind>_A<A>_G<G>_s<seed>.ckpt`` (the machine every ``--checkpoint-every`` host
exchanges, the reference every 25 iterations) and continues from there, bit for bit, when
the sweep is started again. A run's curve so far is kept, marked ``"partial": true``, every
50 iterations. The order is: every
reference run (the cheaper), then the machine's, each by A, then G, then seed (a
point's seeds finish together). ``--import`` adds
finished runs from a file ``bench/learning.py --compact`` wrote. After every run the JSON,
the table (``fig9.md``) and the figure (``fig9.png``) beside it are rewritten: per (kind, A,
G) the mean success over the finished seeds and its 95 % interval (Student's t over the
seeds; none with one seed). Several sweeps may run at once (one per core): each run is
locked while it runs (a second sweep skips it), and every save adds the run to what the JSON
holds at that moment.
"""

from __future__ import annotations

import rlaccel  # noqa: E402,F401  (before numpy: one BLAS thread unless set)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import learning  # noqa: E402

from rlaccel.util.files import atomic_write  # noqa: E402
from rlaccel.util.lock import exclusive, lock_for  # noqa: E402
from rlaccel.util.stats import t_interval  # noqa: E402

FIGURES = Path(__file__).resolve().parents[1] / "figures"
CHECKPOINTS = Path(__file__).resolve().parents[3] / "out" / "fig9"


def expand(run: dict) -> dict:
    """A compacted run (curve as rows of ``CURVE_COLUMNS``) with its curve as dicts."""
    if run.get("curve") and isinstance(run["curve"][0], list):
        cols = run.get("curve_columns", learning.CURVE_COLUMNS)
        run = {**run, "curve": [dict(zip(cols, row)) for row in run["curve"]]}
    return run


def finished(runs: list[dict]) -> set:
    return {learning.run_key(r) for r in runs if not r.get("partial")}


def summary(runs: list[dict], batch: int, iterations: int) -> list[dict]:
    """Per (kind, A, G): the finished seeds' success over the run, mean and 95 % interval."""
    cells: dict[tuple, list] = {}
    for r in runs:
        if r["batch"] == batch and not r.get("partial") and r["iterations"] == iterations:
            cells.setdefault((r["kind"], r["agents"], r["groups"]), []).append(r)
    rows = []
    for (kind, A, G), rs in sorted(cells.items()):
        rs = sorted(rs, key=lambda r: r["seed"])
        mean, half = t_interval([r["success_all"] for r in rs])
        last, last_half = t_interval([r["success_last_tenth"] for r in rs])
        rows.append({"kind": kind, "agents": A, "groups": G, "seeds": [r["seed"] for r in rs],
                     "success_all": mean, "ci95": half, "success_last_tenth": last,
                     "ci95_last_tenth": last_half,
                     "per_seed": [r["success_all"] for r in rs],
                     "wall_s": [r["wall_s"] for r in rs]})
    return rows


def _pct(x, half):
    return f"{100 * x:.1f} %" + ("" if half is None else f" ± {100 * half:.1f}")


def table(rows: list[dict], runs: list[dict]) -> str:
    lines = ["| A | G | kind | seeds | success over the run (95 % interval) | "
             "last tenth | per seed | wall per run |",
             "|---:|---:|---|---|---:|---:|---|---:|"]
    for r in rows:
        lines.append(
            f"| {r['agents']} | {r['groups']} | {r['kind']} | "
            f"{', '.join(map(str, r['seeds']))} | {_pct(r['success_all'], r['ci95'])} | "
            f"{_pct(r['success_last_tenth'], r['ci95_last_tenth'])} | "
            f"{' / '.join(f'{100 * v:.1f}' for v in r['per_seed'])} | "
            f"{sum(r['wall_s']) / len(r['wall_s']) / 60:.0f} min |")
    partial = [r for r in runs if r.get("partial")]
    for r in partial:
        lines.append(f"\nPartial: {r['kind']} A = {r['agents']} G = {r['groups']} seed "
                     f"{r['seed']}, {r['iterations']} of {r.get('planned_iterations')} "
                     f"iterations, success so far {100 * r['success_all']:.1f} %.")
    return "\n".join(lines) + "\n"


def figure(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    agents = sorted({r["agents"] for r in rows})
    fig, axes = plt.subplots(1, max(1, len(agents)), figsize=(5 * max(1, len(agents)), 3.6),
                             squeeze=False)
    for ax, A in zip(axes[0], agents):
        for kind, marker, dx in (("machine", "o", -0.04), ("reference", "s", 0.04)):
            rs = [r for r in rows if r["agents"] == A and r["kind"] == kind]
            if not rs:
                continue
            xs = [math.log2(r["groups"]) + dx for r in rs]
            ax.errorbar(xs, [100 * r["success_all"] for r in rs],
                        yerr=[100 * (r["ci95"] or 0) for r in rs], marker=marker, capsize=3,
                        label=("FP16 machine" if kind == "machine" else "float32 reference"))
        ax.set_xticks(range(0, 6))
        ax.set_xticklabels([str(2 ** k) for k in range(0, 6)])
        ax.set_xlabel("group number G")
        ax.set_ylabel("success over 2000 iterations (%)")
        ax.set_title(f"A = {A}")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(out: Path, runs: list[dict], command: str, batch: int, iterations: int) -> None:
    rows = summary(runs, batch, iterations)
    atomic_write(out, json.dumps({"command": command, "summary": rows,
                                  **learning.compact(runs, command)},
                                 separators=(",", ":")))
    atomic_write(out.with_suffix(".md"), table(rows, runs))
    if rows:
        figure(rows, out.with_suffix(".png"))


def read(out: Path) -> list[dict]:
    """The runs kept in ``out`` (none when it does not exist yet)."""
    return [expand(r) for r in json.loads(out.read_text())["runs"]] if out.exists() else []


def save(out: Path, run: dict, command: str, batch: int, iterations: int) -> None:
    """Add ``run`` to the runs ``out`` holds now, read again under the lock, so that several
    sweeps in parallel (one per core) keep each other's runs."""
    with exclusive(lock_for(out, "rlaccel-fig9")):
        write(out, learning.merged(read(out), [run]), command, batch, iterations)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", type=int, nargs="+", default=[4, 8])
    p.add_argument("--groups", type=int, nargs="+", default=[8, 4, 2, 1, 16],
                   help="in the order they run (default: the cheaper first, G = 16 last)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--kinds", nargs="+", default=["reference", "machine"],
                   choices=["reference", "machine"])
    p.add_argument("--reference-eps", type=float, default=1e-6)
    p.add_argument("--json", default=str(FIGURES / "fig9.json"))
    p.add_argument("--import", dest="imports", nargs="+", default=[], metavar="FILE",
                   help="finished runs from a file bench/learning.py --compact wrote")
    p.add_argument("--table-only", action="store_true", help="run nothing")
    p.add_argument("--checkpoint-every", type=int, default=10_000, metavar="N",
                   help="a machine run saves itself every N host exchanges (default 10000)")
    p.add_argument("--checkpoints", default=str(CHECKPOINTS), metavar="DIR",
                   help="where runs in progress keep their checkpoints (default out/fig9)")
    a = p.parse_args(argv)
    out = Path(a.json)
    command = "python machines/learninggroup/bench/fig9.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    runs = read(out)
    for f in a.imports:
        try:
            more = [expand(r) for r in json.loads(Path(f).read_text())["runs"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            p.error(f"--import {f}: not a JSON bench/learning.py wrote ({exc})")
        runs = learning.merged(runs, [r for r in more if not r.get("partial")])
    if a.table_only or a.imports:
        write(out, runs, command, a.batch, a.iterations)
        if a.table_only:
            return 0
    for kind in a.kinds:
        for A in a.agents:
            for G in a.groups:
                for seed in a.seeds:
                    ckpt = Path(a.checkpoints) / f"{kind}_A{A}_G{G}_s{seed}.ckpt"
                    with exclusive(ckpt.with_suffix(".lock"), wait=False) as mine:
                        if not mine:
                            print(f"{kind} A={A} G={G} seed {seed}: running in another "
                                  f"process; skipped", flush=True)
                        elif (kind, A, G, a.batch, seed) not in finished(read(out)):
                            one(a, out, command, kind, A, G, seed, ckpt)
    return 0


def one(a, out: Path, command: str, kind: str, A: int, G: int, seed: int, ckpt: Path) -> None:
    """One run of the sweep, from its checkpoint when there is one, saved as it goes."""
    print(f"{kind} A={A} G={G} seed {seed}: {a.iterations} iterations x {a.batch} episodes",
          flush=True)

    def keep(r):
        save(out, r, command, a.batch, a.iterations)
    t0 = time.perf_counter()
    if ckpt.exists():
        print(f"  resuming from {ckpt}", flush=True)
    r = (learning.machine(A, G, a.iterations, a.batch, seed, [], partial=keep, checkpoint=ckpt,
                          checkpoint_every=a.checkpoint_every)
         if kind == "machine" else
         learning.reference(A, G, a.iterations, a.batch, seed, a.reference_eps, partial=keep,
                            checkpoint=ckpt))
    keep(r)
    print(f"  -> success {r['success_all']:.1%}, {(time.perf_counter() - t0) / 60:.1f} min",
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
