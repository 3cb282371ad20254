"""Tasks: seeds batched so that every worker gets one, and each result says how much CPU its
worker had used."""

from rlaccel.sweep.spec import load_spec
from rlaccel.sweep.task import batch_size, make_tasks, run_task


def test_a_batch_is_cut_so_that_every_worker_gets_a_task():
    assert batch_size(10, 8, 2) == 4          # two batches of 4, not one of 8
    assert batch_size(10, 9, 2) == 5
    assert batch_size(10, 100, 2) == 10       # enough points: the spec's batch
    assert batch_size(10, 8, 1) == 8
    assert batch_size(1, 8, 2) == 1
    assert batch_size(10, 1, 4) == 1


def test_tasks_of_the_cut_batch(write_spec):
    spec = load_spec(write_spec())            # 2 formats x 3 seeds
    points = [spec.point(i) for i in range(spec.size)]
    sizes = [len(t["points"]) for t in make_tasks(spec, points, batch_size(10, 6, 4))]
    assert sizes == [2, 1, 2, 1]              # at most 2 seeds a task, one format each


def test_each_result_has_its_workers_cpu_seconds(write_spec):
    spec = load_spec(write_spec())
    task = next(make_tasks(spec, [spec.point(0), spec.point(1)], 2))
    results = run_task(task)
    assert [r["status"] for r in results] == ["done", "done"]
    assert 0 < results[0]["worker_cpu_s"] <= results[1]["worker_cpu_s"]
