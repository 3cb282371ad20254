"""rlaccel.util.stats: the Student-t interval of a mean."""

import math

import pytest

from rlaccel.util.stats import t_interval


def test_the_interval_is_students_t():
    mean, half = t_interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and half == pytest.approx(4.302652729911275 * 1.0 / math.sqrt(3))
    assert t_interval([5.0]) == (5.0, None)
