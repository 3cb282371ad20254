"""Run a sweep: validate the spec, open its database, hand the unfinished points to an
executor, store every result as it arrives.

    summary = run_sweep("machines/adhdp/programs/fig5.toml", "out/fig5.sqlite", workers=2)

A point whose run stops on an error (a diverged plant, a program that does not fit the
architecture variant) is stored as ``failed`` with the message and the sweep goes on; a
metric the report does not have is a mistake of the spec and stops the sweep at the first
report. Interrupted (Ctrl-C, a kill), a sweep keeps what finished; ``resume`` runs the
rest.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rlaccel.util.files import check_outputs

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.executors import LocalPool, RayExecutor
from rlaccel.sweep.figure import figure_files
from rlaccel.sweep.progress import Progress, duration
from rlaccel.sweep.spec import Spec, load_spec
from rlaccel.sweep.store import Store
from rlaccel.sweep.task import DONE, FAILED, SPEC_ERROR, batch_size, make_tasks

__all__ = ["run_sweep", "SweepSummary", "default_db", "figure_base"]


@dataclass
class SweepSummary:
    """What a session of a sweep did."""

    db: Path
    executor: str
    workers: int
    ran: int
    done: int
    failed: int
    unfinished: int
    total: int
    wall_s: float

    def line(self) -> str:
        return (f"sweep: {self.ran} points run on the {self.executor} ({self.workers} "
                f"workers) in {duration(self.wall_s)}: {self.done} done, {self.failed} "
                f"failed; {self.db}: {self.total - self.unfinished} of {self.total} points "
                f"finished")


def default_db(spec_path: str | Path) -> Path:
    """``out/<spec name>.sqlite``."""
    return Path("out") / f"{Path(spec_path).stem}.sqlite"


def figure_base(db: str | Path) -> Path:
    """Where a finished sweep's figure goes: the database's name without its suffix (then
    ``.png``, ``.svg``, ``.md``)."""
    return Path(db).with_suffix("")


def _executor(workers, ray):
    if ray is False or ray is None:
        return LocalPool(workers)
    return RayExecutor(None if ray is True else ray, workers)


def run_sweep(spec: str | Path | Spec, db: str | Path | None = None, *,
              workers: int | None = None, ray: bool | str | None = None,
              resume: bool = False, retry_failed: bool = False, limit: int | None = None,
              batch: int | None = None,
              quiet: bool = False, stream=None,
              on_result: Callable[[dict], None] | None = None) -> SweepSummary:
    """Run the unfinished points of ``spec`` (the first ``limit`` of its order) and store
    them in ``db``. ``ray``: False for the local process pool, True for a local Ray, or a
    cluster address. ``batch`` overrides the spec's ``[run] batch`` (either is cut so that
    every worker gets a task: :func:`.task.batch_size`); ``retry_failed`` (with ``resume``)
    runs the failed points again too."""
    if not isinstance(spec, Spec):
        spec = load_spec(spec)
    if limit is not None and limit < 1:
        raise SweepError(f"--limit must be at least 1, not {limit}")
    if batch is not None and batch < 1:
        raise SweepError(f"--batch must be at least 1, not {batch}")
    if retry_failed and not resume:
        raise SweepError("--retry-failed goes with --resume")
    inputs = spec.validate(limit)            # the configurations of the points to run
    db = Path(db) if db is not None else default_db(spec.path)
    if db.parent != Path() and not db.parent.exists() and not db.parent.is_symlink():
        try:
            db.parent.mkdir(parents=True)
        except OSError as exc:
            raise SweepError(f"cannot create {db.parent}: {exc.strerror}") from None
    outputs = [("--db", db)] + ([("the figure named after --db", f)
                                 for f in figure_files(figure_base(db))]
                                if spec.plot is not None else [])
    check_outputs(outputs, inputs, SweepError)     # before any work
    executor = _executor(workers, ray)
    try:
        executor.connect()                         # a cluster that fails, fails now
        return _run(spec, db, executor, resume=resume, retry_failed=retry_failed,
                    limit=limit, batch=batch, quiet=quiet, stream=stream, on_result=on_result)
    finally:
        executor.close()


def _run(spec, db, executor, *, resume, retry_failed, limit, batch, quiet, stream,
         on_result) -> SweepSummary:
    wall = time.perf_counter()
    with Store.open(db, spec, resume=resume, limit=limit) as store:
        if retry_failed:
            store.retry_failed()
        counts = store.counts()
        todo = store.unfinished(limit)
        size = batch_size(spec.batch if batch is None else batch, len(todo), executor.workers)
        tasks = make_tasks(spec, (spec.point(i) for i in todo if i < spec.size), size)
        progress = Progress(counts["total"], len(todo), stream=stream, quiet=quiet,
                            finished_before=counts["done"] + counts["failed"])
        progress.say(f"sweep: {spec.path}: {counts['total']} points, "
                     f"{counts['done'] + counts['failed']} finished before, running "
                     f"{len(todo)} on the {executor.name} ({executor.workers} workers) into "
                     f"{db}")
        done = failed = lost = 0
        try:
            for task, results in executor.run(tasks):
                if results is None:         # the worker died: its points stay pending
                    lost += len(task["points"])
                    continue
                bad = [r for r in results if r["status"] == SPEC_ERROR]
                if bad:
                    raise SweepError(f"{spec.path}: [metrics]: {bad[0]['error']}")
                store.record(results)
                d = sum(r["status"] == DONE for r in results)
                f = sum(r["status"] == FAILED for r in results)
                done, failed = done + d, failed + f
                progress.update(d, f)
                if on_result is not None:
                    for r in results:
                        on_result(r)
        finally:
            after = store.counts()
        summary = SweepSummary(db=db, executor=executor.name, workers=executor.workers,
                               ran=done + failed, done=done, failed=failed,
                               unfinished=after["pending"] + after["running"],
                               total=after["total"], wall_s=time.perf_counter() - wall)
    if lost:
        raise SweepError(f"{lost} points were lost with a worker process that died; "
                         f"{db} keeps every finished point: --resume runs the rest")
    return summary
