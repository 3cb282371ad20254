"""The replay ring's row order and its checkpoint pair (programs/ring.py)."""

import numpy as np
import pytest

from rlaccel.programs.checkpoint import CheckpointError, Saved
from rlaccel.programs.ring import Ring


class Rows(Ring):
    FIELDS = ("x", "y")

    def __init__(self, capacity):
        self._start(capacity)
        self.x = np.zeros((capacity, 2))
        self.y = np.zeros(capacity, np.int64)

    def add(self, v):
        i = self._push()
        self.x[i], self.y[i] = (v, -v), v


def saved(ring):
    arrays, fields = ring.checkpoint_state()
    return Saved("f.ckpt", fields, {k: np.array(v) for k, v in arrays.items()})


def test_the_oldest_row_is_overwritten():
    r = Rows(3)
    for v in range(5):
        r.add(v)
    assert len(r) == 3 and r._next == 2
    assert list(r.y) == [3, 4, 2]


@pytest.mark.parametrize("n", [0, 2, 7])
def test_a_restored_ring_goes_on_as_the_saved_one(n):
    a = Rows(4)
    for v in range(n):
        a.add(v)
    b = Rows(4)
    b.restore(saved(a))
    for v in range(10, 13):
        a.add(v)
        b.add(v)
    assert len(a) == len(b) and a._next == b._next
    assert np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y)


def test_a_ring_of_another_capacity_is_refused():
    a = Rows(4)
    a.add(1)
    with pytest.raises(CheckpointError, match="holds 4 transitions, this one 5"):
        Rows(5).restore(saved(a))
