"""machines/adhdp/bench/tlm_batch.py: the batch's kernel floor counts every instruction the
members ran, times only instructions with compiled work, and leaves the runner's Batch as it
found it."""

import pytest

from rlaccel.isa.machine import machine
from rlaccel.machines.adhdp.bench import tlm_batch
from rlaccel.programs.runner import run_batch
from rlaccel.tlm.fast import batch as fast_batch


def test_kernel_floor_covers_the_batch():
    manifest = machine("adhdp").programs / "cartpole.toml"
    seeds, kw = [1, 2], {"arch": None, "trials": 2}
    before = fast_batch.Batch
    f = tlm_batch.kernel_floor(manifest, ["max_steps=20"], seeds, kw, reps=10)
    assert fast_batch.Batch is before
    b = run_batch(manifest, ["max_steps=20"], seeds=seeds, **kw)
    assert f["instructions"] == b["sim"]["instructions"]
    by = f["by_mnemonic_s"]
    assert {"ff", "bp", "wu"} <= set(by)
    assert not {"cc.host", "cc.loop", "cc.halt", "cc.jmp"} & set(by)
    assert f["cpu_s"] == pytest.approx(sum(by.values()))
