"""The same spec on a local Ray (started for the sweep with 2 CPUs) and on the process pool
gives identical results."""

import ray

from rlaccel.sweep.driver import run_sweep
from rlaccel.sweep.executors import LocalPool, RayExecutor
from rlaccel.sweep.store import open_existing


def _rows(db):
    with open_existing(db) as st:
        return [(r["idx"], r["key"], r["status"], r["metrics"], r["arch"], r["binary_sha256"])
                for r in st.rows()]


def test_ray_and_the_process_pool_give_identical_results(tmp_path, write_spec):
    spec = write_spec()
    pool = run_sweep(spec, tmp_path / "pool.sqlite", workers=2, quiet=True)
    on_ray = run_sweep(spec, tmp_path / "ray.sqlite", ray=True, workers=2, batch=2, quiet=True)
    assert (pool.executor, on_ray.executor) == (LocalPool.name, RayExecutor.name)
    assert pool.done == on_ray.done == 6
    assert not ray.is_initialized()                    # the Ray it started is shut down
    rows = _rows(tmp_path / "pool.sqlite")
    assert rows == _rows(tmp_path / "ray.sqlite")
    assert len({r[3]["cycles"] for r in rows}) > 1     # the points really differ


def test_forked_workers_give_the_numbers_of_spawned_ones(tmp_path, write_spec, monkeypatch):
    """On Linux the pool's workers are forked from the sweep's process once it has loaded
    the simulator (sweep.task.warm), when that process runs one thread; they give what fresh
    interpreters give. The forked sweep runs as its own command: a test runner's process may
    hold other threads (pytest-xdist's), and then the pool spawns."""
    import subprocess
    import sys
    import threading

    from rlaccel.sweep import executors
    spec = write_spec()
    fresh = subprocess.run([sys.executable, "-c", "from rlaccel.sweep.executors import "
                            "start_method; print(start_method())"], capture_output=True,
                           text=True, check=True).stdout.strip()
    assert fresh == ("fork" if sys.platform.startswith("linux") else "spawn")
    done = threading.Event()
    other = threading.Thread(target=done.wait)        # a second thread: no fork
    other.start()
    try:
        assert executors.start_method() == "spawn"
    finally:
        done.set()
        other.join()
    cmd = subprocess.Popen([sys.executable, "-m", "rlaccel", "sweep", str(spec), "--db",
                            str(tmp_path / "default.sqlite"), "--workers", "2", "-q"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = cmd.communicate()
    assert cmd.returncode == 0, err
    monkeypatch.setattr(executors, "start_method", lambda: "spawn")
    run_sweep(spec, tmp_path / "spawn.sqlite", workers=2, quiet=True)
    assert _rows(tmp_path / "default.sqlite") == _rows(tmp_path / "spawn.sqlite")
    with open_existing(tmp_path / "default.sqlite") as st:
        workers = {r["timing"]["worker"].rpartition(":")[2] for r in st.rows()}
    assert workers and str(cmd.pid) not in workers       # the points ran in the pool
