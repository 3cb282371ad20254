"""Where a sweep's tasks run: a local process pool (the default) or Ray.

An executor takes the tasks (:func:`.task.make_tasks`) and yields ``(task, results)`` as
each finishes, in whatever order they finish; the sweep stores them. Both run the same
function, :func:`.task.run_task`, on the same plain task dicts, so a spec gives the same
numbers on both. A task whose worker died yields ``(task, None)``: its points stay
unfinished for ``--resume``.

* :class:`LocalPool` -- ``workers`` processes started with ``spawn`` (fresh interpreters,
  as Ray's workers are).
* :class:`RayExecutor` -- ``address=None`` starts a local Ray for the run with ``workers``
  CPUs; an address (``auto``, ``ray://head:10001``) joins an existing cluster, whose nodes
  need rlaccel installed and the spec's manifests at the same paths. Ray is the optional
  extra ``pip install 'rlaccel[ray]'``.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterator

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.task import run_task

__all__ = ["LocalPool", "RayExecutor", "default_workers"]


def default_workers() -> int:
    """The CPUs this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:                                   # not on Linux
        return max(os.cpu_count() or 1, 1)


class LocalPool:
    """A pool of ``workers`` local processes."""

    name = "process pool"

    def __init__(self, workers: int | None = None):
        self.workers = workers or default_workers()
        if self.workers < 1:
            raise SweepError(f"--workers must be at least 1, not {self.workers}")

    def run(self, tasks: list[dict]) -> Iterator[tuple[dict, list | None]]:
        if not tasks:
            return
        ctx = multiprocessing.get_context("spawn")
        before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(max_workers=min(self.workers, len(tasks)), mp_context=ctx)
        finished = False
        try:
            futures = {pool.submit(run_task, t): t for t in tasks}
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    try:
                        yield futures[f], f.result()
                    except BrokenProcessPool:
                        yield futures[f], None
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:          # interrupted or stopped: do not wait for the tasks in flight
                pool.shutdown(wait=False, cancel_futures=True)
                for p in set(multiprocessing.active_children()) - before:
                    p.terminate()
                for p in set(multiprocessing.active_children()) - before:
                    p.join(timeout=10)


class RayExecutor:
    """Tasks as Ray tasks of one CPU each, on a local Ray or an existing cluster."""

    name = "Ray"

    def __init__(self, address: str | None = None, workers: int | None = None):
        try:
            import ray  # noqa: F401
        except ImportError:
            raise SweepError("--ray needs Ray, an optional extra: pip install 'rlaccel[ray]' "
                             "(or pip install ray)") from None
        self.address = address
        self.workers = workers or default_workers()
        if self.workers < 1:
            raise SweepError(f"--workers must be at least 1, not {self.workers}")
        if address is not None:
            self.name = f"Ray at {address}"

    def run(self, tasks: list[dict]) -> Iterator[tuple[dict, list | None]]:
        import ray
        if not tasks:
            return
        started = not ray.is_initialized()
        if started:
            kw = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                      configure_logging=True)
            try:
                if self.address is None:
                    ray.init(num_cpus=self.workers, **kw)
                else:
                    ray.init(address=self.address, **kw)
            except Exception as exc:  # noqa: BLE001 - Ray's many connection errors
                raise SweepError(f"cannot start Ray"
                                 f"{' at ' + self.address if self.address else ''}: "
                                 f"{exc}") from None
        remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
        refs = {remote.remote(t): t for t in tasks}
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        yield refs[ref], ray.get(ref)
                    except ray.exceptions.RayError:
                        yield refs[ref], None
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            if started:
                ray.shutdown()
