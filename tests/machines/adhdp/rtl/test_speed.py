"""rtl._speed.bin is MyHDL's bin, faster."""

import random

import myhdl._bin

from rlaccel.rtl import _speed


def test_bin_equals_myhdl():
    rng = random.Random(1)
    values = list(range(-3000, 3000)) + [rng.randint(-2**80, 2**80) for _ in range(5000)]
    for v in values:
        for width in (0, 1, 7, 90):
            assert _speed.bin(v, width) == myhdl._bin.bin(v, width), (v, width)
