"""Pipeline timing (seed 003, eq. 3): throughput from the slowest stage, fill, a batch, and the
per-sample schedule, on hand-computed cases."""

import numpy as np
import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.maddpg.tlm.timing import (apply_cycles, batch_cycles, bottleneck,
                                                 fill_cycles, schedule, seconds, throughput)


def test_three_stages_by_hand():
    """Stages of 2, 5, 3 cycles: the first sample leaves at 10 (fill), then one every 5 (the
    bottleneck, stage 1); four samples finish at 10, 15, 20, 25."""
    T = [2, 5, 3]
    assert (fill_cycles(T), bottleneck(T), throughput(T)) == (10, 1, 0.2)
    assert batch_cycles(T, 4) == 25
    start, finish = schedule(T, 4)
    assert finish[:, -1].tolist() == [10, 15, 20, 25]
    assert start.tolist() == [[0, 2, 7], [2, 7, 12], [4, 12, 17], [6, 17, 22]]


def test_steady_state_is_the_bottleneck():
    """After the fill, samples leave every max(T) cycles whatever the order of the stages."""
    for T in ([7, 1, 1], [1, 1, 7], [3, 7, 3, 7]):
        _, finish = schedule(T, 6)
        gaps = np.diff(finish[:, -1])
        assert (gaps == max(T)).all()


def test_depth_adds_latency_not_occupancy():
    """A stage depth d (arithmetic latency) delays every sample by d but keeps 1/max(T)."""
    T = [2, 5, 3]
    assert fill_cycles(T, depth=1) == 13 and batch_cycles(T, 4, depth=1) == 28
    _, finish = schedule(T, 4, depth=[1, 1, 1])
    assert finish[:, -1].tolist() == [13, 18, 23, 28]


@pytest.mark.parametrize("seed", range(5))
def test_closed_form_equals_schedule(seed):
    rng = np.random.default_rng(seed)
    T = rng.integers(1, 20, size=rng.integers(1, 12)).tolist()
    d = rng.integers(0, 4, size=len(T)).tolist()
    B = int(rng.integers(1, 40))
    assert schedule(T, B, depth=d)[1][-1, -1] == batch_cycles(T, B, depth=d)


def test_one_sample_is_the_fill():
    assert batch_cycles([4, 4, 4], 1) == fill_cycles([4, 4, 4]) == 12


def test_apply_and_seconds():
    """Applying gradients: the slowest WU walk, ceil(work / F) per pass, CUs in parallel."""
    assert apply_cycles([4096, 1408, 64], [35, 12, 1], passes=1) == 118
    assert apply_cycles([4096, 64], [35, 1], passes=3) == 354
    assert seconds(300, 300.0) == 1e-6


def test_errors():
    with pytest.raises(ArchError, match="one or more stages of at least one cycle"):
        throughput([])
    with pytest.raises(ArchError, match="a batch must hold one or more samples, not 0"):
        batch_cycles([1], 0)
    with pytest.raises(ArchError, match="2 stage depths for 3 stages"):
        fill_cycles([1, 2, 3], depth=[0, 0])
