"""Fig. 9 on the simulated machine: IC3Net + FLGW trained on predator-prey through the
LearningGroup simulator, beside the float reference at the same budget.

    python machines/learninggroup/bench/learning.py --agents 4 --groups 1 2 4 8 --iterations 2000
        --batch 4 [--seed 1] [--reference] [--json out/learninggroup_learning.json]
        [--compact machines/learninggroup/figures/fig9_X.json]
    python machines/learninggroup/bench/learning.py --compact-only --json A.json --merge B.json ...
        --compact machines/learninggroup/figures/fig9_X.json     # runs made in parallel

For every (A, G): ``rlaccel run machines/learninggroup/programs/predator_prey.toml`` with
``iterations``, ``learning.batch_episodes`` and the groups set (the machine: FP16, the
manifest's eps and gradient scale), then, with ``--reference``, the float32 reference
(``machines/learninggroup/reference.py``, IC3Net's eps = 1e-6) with the same seed, episodes
and batch. The JSON holds per run the configuration, the success rate over the whole run
(the paper's "total accuracy achieved during the training process", section IV-B), over the
first and the last tenth of the iterations, by quarter, the learning curve, the wall time and,
for the machine, its report's utilisation, throughput, latency and Table I rows. Results are
written after every run, and a run's curve so far (machine or reference) every 50 iterations
(marked ``"partial": true``), so a long sweep can be stopped and its finished iterations kept.
"""

from __future__ import annotations

import rlaccel  # noqa: E402,F401  (before numpy: one BLAS thread unless set)

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from rlaccel.util.files import atomic_write  # noqa: E402
from rlaccel.isa.machine import machine

MANIFEST = machine("learninggroup").programs / "predator_prey.toml"


def _rates(curve: list[dict]) -> dict:
    def rate(rows, key="success_rate"):
        n = sum(r["episodes"] for r in rows)
        return sum(r[key] * r["episodes"] for r in rows) / n if n else 0.0
    k = max(1, len(curve) // 10)
    q = max(1, len(curve) // 4)
    return {"success_all": rate(curve), "success_first_tenth": rate(curve[:k]),
            "success_last_tenth": rate(curve[-k:]), "caught_all": rate(curve, "caught_rate"),
            "success_by_quarter": [rate(curve[i:i + q]) for i in range(0, len(curve), q)][:4],
            "steps": int(sum(r["steps"] for r in curve)), "iterations": len(curve)}


_LINE = re.compile(r"iteration\s+(\d+): (\d+) episodes, (\d+) steps, success (\d+)%, "
                   r"caught (\d+)%")


def _curve_row(line: str) -> dict | None:
    """A learning-curve row from the plug-in's progress line (whole percent of B episodes:
    exact counts for B up to 100, the rates rebuilt from them)."""
    m = _LINE.match(line)
    if not m:
        return None
    it, eps, steps, succ, caught = (int(g) for g in m.groups())
    return {"iteration": it, "episodes": eps, "steps": steps,
            "success_rate": round(succ / 100 * eps) / eps,
            "caught_rate": round(caught / 100 * eps) / eps}


class _Rows:
    """A run's learning-curve rows, kept beside its checkpoint (``.rows.jsonl``: one JSON a
    row, with the wall seconds the run had taken by then) so that a resumed run's curve and
    wall time include what it did before it stopped. Without a checkpoint: in memory."""

    def __init__(self, checkpoint: Path | None):
        self.path = None if checkpoint is None else Path(checkpoint).with_suffix(".rows.jsonl")
        kept = []
        if self.path is not None and Path(checkpoint).exists() and self.path.exists():
            for line in self.path.read_text().splitlines():
                try:
                    kept.append(json.loads(line))
                except ValueError:
                    break                         # a torn last line
        self.rows = [k["row"] for k in kept]
        self.base_wall = kept[-1]["wall_s"] if kept else 0.0
        self.t0 = time.perf_counter()
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("".join(json.dumps(k) + "\n" for k in kept))

    def wall(self) -> float:
        return self.base_wall + time.perf_counter() - self.t0

    def add(self, row: dict) -> None:
        """Row ``row``, replacing rows of its iteration and later (played again after the
        checkpoint they followed)."""
        while self.rows and self.rows[-1]["iteration"] >= row["iteration"]:
            self.rows.pop()
        self.rows.append(row)
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps({"row": row, "wall_s": self.wall()}) + "\n")

    def done(self, checkpoint: Path | None) -> None:
        """The run has ended: its checkpoint and rows go."""
        for f in (checkpoint, self.path):
            if f is not None and Path(f).exists():
                Path(f).unlink()


def machine(agents: int, groups: int, iterations: int, batch: int, seed: int,
            extra: list[str], partial=None, partial_every: int = 50,
            checkpoint: Path | None = None, checkpoint_every: int = 10_000) -> dict:
    """One run through the simulator. ``partial(run)`` is called every ``partial_every``
    iterations with the run so far (``"partial": True``, the curve from the progress
    lines), so a run stopped early keeps its first iterations. With ``checkpoint`` the run
    saves itself there every ``checkpoint_every`` host exchanges (``rlaccel run
    --checkpoint``) and its curve rows beside it (``.rows.jsonl``); the same call resumes
    it, bit for bit, in a later process, and removes both files when the run ends."""
    from rlaccel.programs.runner import run
    sets = [f"environment_kwargs.nagents={agents}", f"network.groups={groups}",
            f"iterations={iterations}", f"learning.batch_episodes={batch}", *extra]
    seen = _Rows(checkpoint)

    def progress(line: str) -> None:
        it = line.split(":")[0]
        if it.startswith("iteration") and int(it.split()[1]) % max(1, iterations // 10) == 0:
            print(f"  machine A={agents} G={groups} {line}", flush=True)
        row = _curve_row(line)
        if row is not None:
            seen.add(row)
            n = len(seen.rows)
            if partial and n % partial_every == 0 and n < iterations:
                partial({"kind": "machine", "agents": agents, "groups": groups,
                         "batch": batch, "seed": seed, "set": sets, "partial": True,
                         "planned_iterations": iterations,
                         **_rates(seen.rows), "curve": list(seen.rows), "wall_s": seen.wall()})
    r = run(MANIFEST, sets, seed=seed, progress=progress, checkpoint=checkpoint,
            checkpoint_every=checkpoint_every)
    curve = r["learning"]["curve"]
    seen.done(checkpoint)
    return {"kind": "machine", "agents": agents, "groups": groups, "batch": batch,
            "seed": seed, "set": sets, **_rates(curve), "curve": curve,
            "wall_s": seen.wall(), "utilization": r["utilization"],
            "throughput": r["throughput"], "latency": r["latency"], "table1": r["table1"],
            "stages": r["stages"], "cycles": r["cycles"], "energy_pj": r["energy_pj"]}


def reference(agents: int, groups: int, iterations: int, batch: int, seed: int,
              eps: float, partial=None, partial_every: int = 50,
              checkpoint: Path | None = None, checkpoint_every: int = 25) -> dict:
    """The float32 reference; ``partial(run)`` every ``partial_every`` iterations as for
    the machine. With ``checkpoint`` it saves itself there every ``checkpoint_every``
    iterations (:meth:`Ic3netReference.checkpoint_state`) and the same call resumes it, bit
    for bit, in a later process."""
    from rlaccel.machines.learninggroup.config import LearningConfig, NetConfig
    from rlaccel.machines.learninggroup.reference import Ic3netReference
    from rlaccel.programs import checkpoint as ck
    cfg = LearningConfig(env_kwargs={"nagents": agents, "dim": 5, "vision": 0,
                                     "max_steps": 20}, batch_episodes=batch,
                         iterations=iterations, seed=seed, eps=eps)
    ref = Ic3netReference(NetConfig(hid=128, groups=groups), cfg)
    seen = _Rows(checkpoint)
    if checkpoint is not None and Path(checkpoint).exists():
        ref.restore(ck.load(checkpoint, ref.identity()))
        seen.rows = seen.rows[:ref.iterations_done]

    def progress(row, _ref):
        seen.add(row)
        if row["iteration"] % max(1, iterations // 10) == 0:
            print(f"  reference A={agents} G={groups} iteration {row['iteration']}: "
                  f"success {row['success_rate']:.0%}", flush=True)
        if checkpoint is not None and row["iteration"] % checkpoint_every == 0:
            arrays, fields = ref.checkpoint_state()
            ck.write(checkpoint, ref.identity(), fields, arrays)
        n = len(seen.rows)
        if partial and n % partial_every == 0 and n < iterations:
            partial({"kind": "reference", "agents": agents, "groups": groups, "batch": batch,
                     "seed": seed, "eps": eps, "partial": True,
                     "planned_iterations": iterations, **_rates(seen.rows),
                     "curve": list(seen.rows), "wall_s": seen.wall()})
    ref.train(iterations - ref.iterations_done, callback=progress)
    seen.done(checkpoint)
    return {"kind": "reference", "agents": agents, "groups": groups, "batch": batch,
            "seed": seed, "eps": eps, **_rates(seen.rows), "curve": list(seen.rows),
            "wall_s": seen.wall()}


CURVE_COLUMNS = ["iteration", "episodes", "steps", "success_rate", "caught_rate"]


def run_key(r: dict) -> tuple:
    """What makes two runs the same run: a later one of the same key replaces the earlier."""
    return (r["kind"], r["agents"], r["groups"], r["batch"], r["seed"])


def merged(runs: list[dict], more: list[dict]) -> list[dict]:
    """``runs`` with ``more`` added, each replacing a run of the same key."""
    keys = {run_key(r) for r in more}
    return [r for r in runs if run_key(r) not in keys] + more


def compact(runs: list[dict], command: str) -> dict:
    """The runs as ``machines/learninggroup/figures/fig9_*.json`` keep them: the curve as rows of
    ``CURVE_COLUMNS``, without the machine's per-stage cycles and energy (in its report)."""
    out = []
    for r in runs:
        c = {k: v for k, v in r.items() if k not in ("curve", "stages", "cycles", "energy_pj")}
        c["curve_columns"] = CURVE_COLUMNS
        c["curve"] = [[row[k] for k in CURVE_COLUMNS] for row in r["curve"]]
        out.append(c)
    return {"command": command, "runs": out}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", type=int, nargs="+", default=[4])
    p.add_argument("--groups", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--reference", action="store_true", help="also the float reference")
    p.add_argument("--reference-only", action="store_true")
    p.add_argument("--reference-eps", type=float, default=1e-6)
    p.add_argument("--set", action="append", default=[], help="manifest KEY=VALUE")
    p.add_argument("--partial-every", type=int, default=50,
                   help="write a run's curve so far every N iterations")
    p.add_argument("--json", default="out/learninggroup_learning.json")
    p.add_argument("--compact", metavar="FILE",
                   help="also write the runs compacted (curves as rows) to FILE")
    p.add_argument("--compact-only", action="store_true",
                   help="run nothing: compact --json's runs into --compact's FILE")
    p.add_argument("--merge", nargs="+", default=[], metavar="FILE",
                   help="with --compact-only: also these JSON files' runs (runs made in "
                        "parallel into separate files; a later run of the same kind, A, G, "
                        "batch and seed replaces an earlier one)")
    a = p.parse_args(argv)
    if a.compact_only and not a.compact:
        p.error("--compact-only needs --compact FILE")
    if a.merge and not a.compact_only:
        p.error("--merge goes with --compact-only")
    out = Path(a.json)
    runs = json.loads(out.read_text())["runs"] if out.exists() else []
    if a.compact_only:
        for f in a.merge:
            try:
                runs = merged(runs, json.loads(Path(f).read_text())["runs"])
            except (OSError, ValueError, KeyError, TypeError) as exc:
                p.error(f"--merge {f}: not a JSON this bench wrote ({exc})")
        atomic_write(Path(a.compact), json.dumps(compact(runs, " ".join(sys.argv)),
                                                 separators=(",", ":")))
        return 0
    for A in a.agents:
        for G in a.groups:
            todo = ([] if a.reference_only else ["machine"]) + \
                (["reference"] if a.reference or a.reference_only else [])
            for kind in todo:
                print(f"{kind} A={A} G={G}: {a.iterations} iterations x {a.batch} episodes",
                      flush=True)

                def save(r):
                    nonlocal runs
                    runs = merged(runs, [r])
                    atomic_write(out, json.dumps({"runs": runs}, indent=1))
                    if a.compact:
                        atomic_write(Path(a.compact), json.dumps(
                            compact(runs, " ".join(sys.argv)), separators=(",", ":")))
                r = (machine(A, G, a.iterations, a.batch, a.seed, a.set, partial=save,
                             partial_every=a.partial_every)
                     if kind == "machine"
                     else reference(A, G, a.iterations, a.batch, a.seed, a.reference_eps,
                                    partial=save, partial_every=a.partial_every))
                save(r)
                print(f"  -> success {r['success_all']:.1%} over the run, last tenth "
                      f"{r['success_last_tenth']:.1%}, {r['steps']} steps, "
                      f"{r['wall_s'] / 60:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
