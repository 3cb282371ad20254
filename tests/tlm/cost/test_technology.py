"""What primitive operations cost in a technology (tlm/cost/technology.py), on hand-computed
cases from primitives.toml."""

import pytest

from rlaccel.tlm.cost.technology import Asic, Fpga, energy_fit, scale_factor
from rlaccel.util.errors import ArchError


def test_stillmaker_baas_45_to_65_nm():
    """Horowitz's 45 nm / 0.9 V (the LP45 fit) to 65 nm / 1.2 V: x2.49, ADHDP's factor."""
    f = scale_factor({"node": "lp45", "voltage": 0.9}, "65", 1.2)
    assert f == pytest.approx(2.4926, abs=1e-4)
    assert energy_fit("40", 0.9) == pytest.approx(
        energy_fit("lp32", 0.9) + 8 / 13 * (energy_fit("lp45", 0.9) - energy_fit("lp32", 0.9)))
    with pytest.raises(ArchError, match="outside the fits' range"):
        energy_fit("5", 0.7)


def test_asic_arithmetic_scales_with_width():
    a = Asic("65", 1.2, "asic.sram_lstp65")
    assert a.mul(24, 24).pj == pytest.approx(3.1 * (24 / 32) ** 2 * 2.4926, rel=1e-4)
    assert a.add(48).pj == pytest.approx(2 * a.add(24).pj)
    assert a.fmul(64).pj > a.fmul(32).pj > a.fmul(16).pj
    r, w = a.memory("sram", 128, 24)                  # 384 bytes: a CACTI point
    assert (round(r.pj, 2), round(w.pj, 2)) == (1.40, 2.87)
    assert a.memory("sram", 128, 18)[0].pj < r.pj      # narrower words, a smaller array


def test_fpga_multipliers_tile_dsp_slices():
    f = Fpga("u50")
    assert (f.dsp_tiles(32, 17), f.dsp_tiles(32, 32), f.dsp_tiles(24, 24),
            f.dsp_tiles(16, 16)) == (2, 4, 2, 1)
    assert f.mul(32, 32).pj == pytest.approx(4 * f.dsp_op().pj)
    assert f.mul(16, 16).pj == f.mul(8, 8).pj           # a hard block spends its width
    assert f.add(32).pj == pytest.approx(14 * Asic("hp16", 0.85).add(32).pj)   # fabric gap


def test_block_rams_and_ultrarams_hold_words():
    f = Fpga("u50")
    assert f.blocks("bram", 1024, 32) == 1             # 1K x 36
    assert f.blocks("bram", 2048, 16) == 1             # 2K x 18
    assert f.blocks("bram", 1025, 32) == 2
    assert f.blocks("bram", 1024, 32, banks=16) == 16  # every bank its own block
    assert f.blocks("uram", 8192, 32) == 1             # 4K x 72: two 32-bit words a row
    assert f.blocks("bram", 512, 96) == 2              # wider than a port: side by side


def test_static_power_is_a_measured_idle_reading():
    assert Fpga("u50").static_w()[0] == pytest.approx(17.38)
    assert Fpga("u200", "chip").static_w()[0] == pytest.approx(4.78)
    with pytest.raises(ArchError, match="no FPGA device 'u999'"):
        Fpga("u999")
    with pytest.raises(ArchError, match="static must be 'board'"):
        Fpga("u50", "card")
