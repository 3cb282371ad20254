"""What an executor runs: a task is one point, or several points that differ only in their
seed run as one batch (:func:`rlaccel.programs.runner.run_batch`).

:func:`make_tasks` cuts the points to run into tasks (plain, picklable dicts);
:func:`run_task` runs one in whatever process an executor gives it (a pool worker, a Ray
worker) and returns one result per point, with the CPU seconds its worker process has used so
far (``worker_cpu_s``, what a sweep's scaling is judged by on a shared machine). Every point is deterministic given its settings,
so the executor does not change a number. A batch whose run stops on an error (one member's
plant diverged, say) is run again point by point, so every point gets its own result.
"""

from __future__ import annotations

import os
import socket
import time
import traceback

from rlaccel.sweep.metrics import Metric, MetricError
from rlaccel.util.version import VERSION

__all__ = ["make_tasks", "batch_size", "run_task", "warm", "DONE", "FAILED", "SPEC_ERROR"]

DONE, FAILED, SPEC_ERROR = "done", "failed", "spec_error"


def make_tasks(spec, points, batch: int = 1):
    """Tasks for ``points`` (in order), made as they are asked for (a sweep of a million
    points holds only the tasks in flight): runs of up to ``batch`` consecutive points whose
    settings differ only in the seed become one batched task."""
    metrics = spec.metrics_text
    last = None
    for p in points:
        item = {"index": p.index, "run": p.run_args(spec.dir)}
        if (batch > 1 and last is not None and last["key"] == p.batch_key()
                and len(last["points"]) < batch and item["run"]["seed"] is not None):
            last["points"].append(item)
            continue
        if last is not None:
            yield last
        last = {"key": p.batch_key(), "points": [item], "metrics": metrics}
    if last is not None:
        yield last


def batch_size(batch: int, points: int, workers: int) -> int:
    """The seeds a batched task takes: at most ``batch``, and few enough that ``points``
    points make a task for each of ``workers`` workers (8 seeds on 2 workers: two batches of
    4, not one of 8 and an idle worker)."""
    return max(1, min(batch, -(-points // max(workers, 1))))


def warm(task: dict) -> None:
    """Load in this process what :func:`run_task` needs for ``task``'s machine -- the
    runner and the simulator's modules, the machine's plugin and host (its first point
    configured and prepared, nothing run), numba's compiler (:func:`rlaccel.tlm.fast.jit.warm`)
    -- so that workers forked from it start with it loaded. A point that does not configure
    is left to its task to report."""
    from rlaccel.isa.arch import load_arch
    from rlaccel.programs.runner import configure
    from rlaccel.tlm.fast.jit import warm as warm_compiler
    from rlaccel.tlm.platform import Platform  # noqa: F401 - loaded for the workers
    first = task["points"][0]["run"]
    try:
        plugin, m = configure(first["manifest"], first["overrides"], seed=first["seed"],
                              arch_overrides=first["arch_overrides"])
        plugin.prepare(m, load_arch(m["arch"]))
    except Exception:  # noqa: BLE001 - its task reports it, as the point's result
        pass
    warm_compiler()


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _result(index, status, *, metrics=None, error=None, wall=0.0, report=None) -> dict:
    return {"index": index, "status": status, "metrics": metrics, "error": error,
            "wall_s": wall, "arch": report.get("arch") if report else None,
            "binary_sha256": report.get("binary_sha256") if report else None,
            "version": VERSION, "worker": _worker(), "worker_cpu_s": time.process_time()}


def _keep(index, report, metrics, wall) -> dict:
    try:
        values = {m.name: m.extract(report) for m in metrics}
    except MetricError as exc:
        return _result(index, SPEC_ERROR, error=str(exc), wall=wall, report=report)
    return _result(index, DONE, metrics=values, wall=wall, report=report)


def _failure(exc: BaseException) -> str:
    from rlaccel.util.errors import RlaccelError
    if isinstance(exc, RlaccelError):
        return str(exc)
    if isinstance(exc, MemoryError):             # the point's result, said as the CLI says it
        what = str(exc).strip()
        return (f"out of memory{f' ({what})' if what else ''}: the point needs more than its "
                f"worker process may use; make its sizes smaller or allow the workers more "
                f"memory")
    return ("internal error (a bug; please report it): "
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).strip())


def run_task(task: dict) -> list[dict]:
    """Run a task's points; one result per point (``status`` done, failed -- the run itself
    stopped on an error, which is kept -- or spec_error, a metric the report does not
    have)."""
    from rlaccel.programs.runner import run, run_batch

    metrics = [Metric.parse(name, text) for name, text in task["metrics"].items()]
    items = task["points"]
    first = items[0]["run"]
    wall = time.perf_counter()
    if len(items) == 1:
        try:
            report = run(first["manifest"], first["overrides"], seed=first["seed"],
                         arch_overrides=first["arch_overrides"])
        except Exception as exc:  # noqa: BLE001 - every failure is the point's result
            return [_result(items[0]["index"], FAILED, error=_failure(exc),
                            wall=time.perf_counter() - wall)]
        return [_keep(items[0]["index"], report, metrics, time.perf_counter() - wall)]
    seeds = [it["run"]["seed"] for it in items]
    try:
        b = run_batch(first["manifest"], first["overrides"], seeds=seeds,
                      arch_overrides=first["arch_overrides"])
    except Exception:  # noqa: BLE001 - one member's error stops a batch: run each alone
        return [r for it in items for r in run_task({**task, "points": [it]})]
    each = (time.perf_counter() - wall) / len(items)      # a batch's wall time, shared
    return [_keep(it["index"], r, metrics, each) for it, r in zip(items, b["members"])]
