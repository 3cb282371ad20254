"""util.numbers.is_whole: whole numbers of the given types from ``low`` up, never a bool."""

import numpy as np

from rlaccel.util.numbers import is_whole


def test_whole_numbers_from_low_up():
    assert is_whole(1) and is_whole(10 ** 30) and is_whole(0, 0)
    assert not is_whole(0) and not is_whole(-1, 0) and not is_whole(2, 3)


def test_bools_floats_and_strings_are_not_whole():
    assert not any(is_whole(v) for v in (True, 1.0, "1", None, np.bool_(True)))
    assert not is_whole(True, 0, (int, np.integer))


def test_numpy_integers_only_where_asked():
    assert not is_whole(np.int64(3))
    assert is_whole(np.int64(3), types=(int, np.integer))
    assert not is_whole(np.int64(0), types=(int, np.integer))
