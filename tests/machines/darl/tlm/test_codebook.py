"""The triangle codebook (the DARL paper, section 3.2): sin/cos of a q16.16 phase in turns by
lookup in a quarter-wave table, within half an LSB of the true functions of the fixed-point
argument when every fraction bit addresses the table."""

import math

import numpy as np
import pytest

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import Codebook

Q = get_dtype("fixed32")


def test_size_and_addressing_of_the_default_table():
    """16 address bits (the fraction of q16.16): 16,384 words, 16 BRAM36 per copy."""
    cb = Codebook()
    assert cb.addr_bits == 16 and cb.entries == 16384
    assert cb.storage_bits == 16384 * 32 and cb.bram36 == 16
    assert cb.address(np.array([0, 1, 65535, 65536, -1])).tolist() == [0, 1, 65535, 0, 65535]


def test_every_phase_is_within_half_an_lsb_of_sin_and_cos():
    cb = Codebook()
    e = np.arange(1 << 16, dtype=np.int64)
    theta = 2 * math.pi * e / 65536.0
    c, s = cb.lookup(e)
    err = max(np.abs(Q.to_float(c) - np.cos(theta)).max(),
              np.abs(Q.to_float(s) - np.sin(theta)).max())
    assert err <= cb.error_bound() + 1e-15
    assert cb.error_bound() == 2.0 ** -17
    assert err > 0.99 * 2.0 ** -17          # the bound is tight


def test_lookups_read_the_quarter_wave_table_through_its_quadrant_logic():
    cb = Codebook(addr_bits=12)
    a = np.arange(1 << 12)
    assert np.array_equal(cb.sin(a << 4), cb.quarter_wave(a))
    assert np.array_equal(cb.cos(a << 4), cb.quarter_wave((a + 1024) % 4096))
    assert np.array_equal(np.abs(cb.quarter_wave(a)) <= Q.one, np.ones(4096, bool))
    assert set(np.abs(cb.quarter_wave(a)).tolist()) <= set(cb.table.tolist()) | {Q.one}


def test_exact_values_at_the_quadrant_boundaries():
    cb = Codebook()
    quarter = np.array([0, 16384, 32768, 49152])
    assert cb.sin(quarter).tolist() == [0, 65536, 0, -65536]
    assert cb.cos(quarter).tolist() == [65536, 0, -65536, 0]


def test_the_integer_turns_and_the_sign_do_not_matter():
    """A whole number of turns (the integer bits) is dropped: sin/cos are periodic."""
    cb = Codebook()
    rng = np.random.default_rng(0)
    e = rng.integers(-(1 << 31), (1 << 31) - 65536, size=5000)
    c0, s0 = cb.lookup(e)
    c1, s1 = cb.lookup(e + 65536 * 7)
    assert np.array_equal(c0, c1) and np.array_equal(s0, s1)
    theta = 2 * math.pi * Q.to_float(e)
    assert np.abs(Q.to_float(s0) - np.sin(theta)).max() <= cb.error_bound() + 1e-9


def test_fewer_address_bits_truncate_the_phase_within_the_stated_bound():
    cb = Codebook(addr_bits=10)
    assert cb.entries == 256 and cb.bram36 == 1
    e = np.arange(1 << 16, dtype=np.int64)
    theta = 2 * math.pi * e / 65536.0
    c, s = cb.lookup(e)
    err = max(np.abs(Q.to_float(c) - np.cos(theta)).max(),
              np.abs(Q.to_float(s) - np.sin(theta)).max())
    assert err <= cb.error_bound()
    assert err > 0.9 * cb.error_bound()
    assert cb.error_bound() == pytest.approx(2 * math.pi * 63 / 65536 + 2 ** -17)


@pytest.mark.parametrize("bits", [1, 17, 2.5, True])
def test_an_address_width_outside_the_fraction_is_refused(bits):
    with pytest.raises(ArchError, match=r"addr_bits must be an integer in 2\.\.16"):
        Codebook(addr_bits=bits)


def test_a_float_format_is_refused():
    with pytest.raises(ArchError, match="float64 is not a fixed-point format"):
        Codebook("float64")
