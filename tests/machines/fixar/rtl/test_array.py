"""FIXAR's AAP core array (machines/fixar/rtl/array.py) against pe.product_full / pe.products_half
summed exactly per output block and the family's ff_cycles for one core of the array's size:
small arrays (an architecture inheriting fixar with a smaller [timing] pe_rows x pe_cols) in
MyHDL and in Icarus, Verilator-clean; the default size is the architecture file's, and
that 16 x 16 array agrees in MyHDL and Icarus."""

import pytest

from rlaccel.util.errors import ArchError
from rlaccel.rtl.cosim import run
from rlaccel.machines.fixar.rtl import benches
from rlaccel.machines.fixar.rtl.params import array_params
from rlaccel.rtl.hdl import lint
from rlaccel.rtl.verilator.ports import verilog_ports
from rlaccel.machines.fixar.tlm import pe

from tests.rtl.conftest import N, SEED, assert_clean


def _arch(tmp_path, rows, cols):
    path = tmp_path / f"fixar-{rows}x{cols}.toml"
    path.write_text(f'inherit = "fixar"\nname = "fixar-{rows}x{cols}"\n'
                    f"[timing]\npe_rows = {rows}\npe_cols = {cols}\n")
    return str(path)


def test_layers_myhdl(tmp_path):
    r = run("fixar_array", n=40, seed=91, arch=_arch(tmp_path, 4, 4))
    assert_clean(r)
    assert r.extra["coverage"]["full"] > 10 and r.extra["coverage"]["half"] > 10


def test_a_rectangular_array(tmp_path):
    assert_clean(run("fixar_array", n=20, seed=92, arch=_arch(tmp_path, 2, 3)))


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    arch = _arch(tmp_path, 4, 4)
    assert_clean(run("fixar_array", n=15, seed=93, backend="icarus", workdir=tmp_path,
                     arch=arch))
    assert lint(tmp_path / "fixar_array.v", "fixar_array") == []


def test_the_default_size_is_the_architecture_files():
    prm = array_params("fixar")
    assert (prm.rows, prm.cols) == (16, 16)
    assert prm.timing.peak_macs == 256


def test_the_machines_array_agrees_in_icarus(hdl_tools, tmp_path):
    """fixar.toml's 16 x 16 array (the cross-back-end tests of tests/rtl run fixar-4x4): the
    MyHDL block and its Verilog in Icarus, clean, with the same cycles and coverage (the
    transactions those tests run)."""
    m = run("fixar_array", n=N["fixar_array"], seed=SEED)
    v = run("fixar_array", n=N["fixar_array"], seed=SEED, backend="icarus", workdir=tmp_path)
    assert_clean(m)
    assert_clean(v)
    assert (v.transactions, v.cycles, v.extra) == (m.transactions, m.cycles, m.extra)
    assert set(m.extra["coverage"]) == {"full", "half"}
    ports = {p.name: p.width for p in verilog_ports(tmp_path / "fixar_array.v", "fixar_array")}
    assert ports["w"] == 16 * 16 * pe.WEIGHT_BITS


def test_a_bad_size_is_refused(tmp_path):
    with pytest.raises(ArchError, match=r"\[timing\] pe_rows = 0"):
        array_params(_arch(tmp_path, 0, 4))


def test_a_wrong_product_is_caught(monkeypatch, tmp_path):
    """A model whose full product loses the low multiplier's last bit fails the bench."""
    real = pe.product_full
    monkeypatch.setattr(pe, "product_full", lambda w, a: real(w, a) ^ 1 if w and a & 1
                        else real(w, a))
    r = run("fixar_array", n=20, seed=94, arch=_arch(tmp_path, 4, 4))
    assert r.mismatch_count > 0 and "full" in str(r.mismatches[0])


def test_a_wrong_timing_model_is_caught(monkeypatch, tmp_path):
    monkeypatch.setattr(benches, "ff_cycles", lambda P, Q, v, cfg, half=False: 1 + -(-P // 4)
                        * -(-Q // 4))
    r = run("fixar_array", n=5, seed=95, arch=_arch(tmp_path, 4, 4))
    assert r.mismatch_count == 5 and "expected cycles=" in str(r.mismatches[0])
