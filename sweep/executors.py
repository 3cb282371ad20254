"""Where a sweep's tasks run: a local process pool (the default) or Ray.

An executor takes the tasks (:func:`.task.make_tasks`) and yields ``(task, results)`` as
each finishes, in whatever order they finish; the sweep stores them. Both run the same
function, :func:`.task.run_task`, on the same plain task dicts, so a spec gives the same
numbers on both. A task whose worker died yields ``(task, None)``: its points stay
unfinished for ``--resume``.

* :class:`LocalPool` -- ``workers`` local processes. Where the platform allows it (Linux)
  they are forked from the sweep's process after it has loaded what the first task needs
  (:func:`.task.warm`: the simulator's modules, the machine's plugin and host, numba's
  compiler), so that the workers start ready instead of each loading everything again;
  elsewhere they start with ``spawn`` (fresh interpreters, as Ray's workers are).
* :class:`RayExecutor` -- ``address=None`` starts a local Ray for the run with ``workers``
  CPUs; an address (``auto``, ``ray://head:10001``) joins an existing cluster, whose nodes
  need rlaccel installed and the spec's manifests at the same paths. Ray is the optional
  extra ``pip install 'rlaccel[ray]'``.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterable, Iterator

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.task import run_task, warm

__all__ = ["LocalPool", "RayExecutor", "default_workers", "start_method"]

#: tasks submitted ahead per worker (the rest are made as these finish)
IN_FLIGHT = 2


def default_workers() -> int:
    """The CPUs this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:                                   # not on Linux
        return max(os.cpu_count() or 1, 1)


def start_method() -> str:
    """How :class:`LocalPool` starts its workers: ``fork`` on Linux (copies of the sweep's
    process, which has loaded the simulator once) when that process runs one thread (a
    fork copies no other thread, and a lock one of them held would stay locked in the
    copy), ``spawn`` otherwise (and on macOS and Windows, where forking a process that has
    loaded system frameworks is unsafe)."""
    if (sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
            and threading.active_count() == 1):
        return "fork"
    return "spawn"


def _worker_start() -> None:
    """A forked worker's first act: the default SIGTERM (the sweep's process turns it into
    its own exit, which a worker must not inherit)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _nonempty(tasks: Iterable[dict]) -> Iterator[dict] | None:
    """The tasks as an iterator, or None when there are none (an executor then starts no
    worker, pool or cluster at all)."""
    tasks = iter(tasks)
    first = next(tasks, None)
    return None if first is None else itertools.chain([first], tasks)


class LocalPool:
    """A pool of ``workers`` local processes."""

    name = "process pool"

    def connect(self) -> None:
        """Nothing to join: the processes start with the tasks."""

    def close(self) -> None:
        """Nothing to leave: the pool ends with its tasks."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or default_workers()
        if self.workers < 1:
            raise SweepError(f"--workers must be at least 1, not {self.workers}")

    def run(self, tasks: Iterable[dict]) -> Iterator[tuple[dict, list | None]]:
        tasks = _nonempty(tasks)
        if tasks is None:
            return
        first = next(tasks)
        tasks = itertools.chain([first], tasks)
        method = start_method()
        if method == "fork":
            warm(first)                      # once here, inherited by every worker
        ctx = multiprocessing.get_context(method)
        before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                   initializer=_worker_start if method == "fork" else None)
        finished = False
        inflight: dict = {}
        broken: list = []                     # tasks never started: the pool broke first

        def fill():
            while not broken and len(inflight) < IN_FLIGHT * self.workers:
                t = next(tasks, None)
                if t is None:
                    return
                try:
                    inflight[pool.submit(run_task, t)] = t
                except BrokenProcessPool:
                    broken.append(t)
        try:
            fill()
            while inflight:
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for f in done:
                    t = inflight.pop(f)
                    try:
                        yield t, f.result()
                    except BrokenProcessPool:
                        yield t, None
                fill()
            for t in itertools.chain(broken, tasks if broken else ()):
                yield t, None                # its points stay pending for --resume
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


#: seconds to wait for a Ray cluster's head to answer
RAY_CONNECT_S = 5.0


def _reachable(address: str) -> None:
    """Refuse a Ray address whose head does not answer (``ray.init`` would retry for ever):
    ``HOST:PORT`` (the GCS, default port 6379) or ``ray://HOST:PORT`` (the client server,
    default 10001); ``auto`` and ``local`` are left to Ray."""
    import socket
    if address in ("auto", "local"):
        return
    rest, port = address, 6379
    if rest.startswith("ray://"):
        rest, port = rest[len("ray://"):], 10001
    rest = rest.split("/", 1)[0]
    host, sep, p = rest.rpartition(":")
    if not sep or "]" in p:
        host = rest
    else:
        if not p.isdigit() or not 0 < int(p) < 65536:
            raise SweepError(f"--ray {address}: {p!r} is not a port (1 to 65535)")
        port = int(p)
    host = host.strip("[]")
    if not host:
        raise SweepError(f"--ray {address}: no host (give HOST:PORT, ray://HOST:PORT or auto)")
    try:
        socket.create_connection((host, port), timeout=RAY_CONNECT_S).close()
    except (OSError, UnicodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise SweepError(f"--ray {address}: nothing answers at {host}:{port} ({why}); is "
                         f"the cluster running (ray start --head)?") from None


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
            _reachable(address)                   # fails in seconds, not Ray's retries

    _started = False

    def connect(self) -> None:
        """Join the cluster at the address now (before the sweep's database is opened), so
        a cluster that does not accept us fails the sweep before anything is written; a
        local Ray is started when there are tasks (:meth:`run`)."""
        if self.address is not None:
            self._init()

    def _init(self) -> None:
        import ray
        if ray.is_initialized():
            return
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
        self._started = True

    def close(self) -> None:
        """Leave (or stop) the Ray this executor started."""
        if self._started:
            import ray
            ray.shutdown()
            self._started = False

    def run(self, tasks: Iterable[dict]) -> Iterator[tuple[dict, list | None]]:
        import ray
        tasks = _nonempty(tasks)
        if tasks is None:
            return
        self._init()
        remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
        refs: dict = {}

        def fill():
            while len(refs) < IN_FLIGHT * self.workers:
                t = next(tasks, None)
                if t is None:
                    return
                refs[remote.remote(t)] = t
        try:
            fill()
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1)
                for ref in done:
                    t = refs.pop(ref)
                    try:
                        yield t, ray.get(ref)
                    except ray.exceptions.RayError:
                        yield t, None
                fill()
        finally:
            for ref in refs:
                ray.cancel(ref, force=True)
            self.close()
