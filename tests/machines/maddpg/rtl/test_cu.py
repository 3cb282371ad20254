"""MADDPG's compute unit (machines/maddpg/rtl/cu.py) against compute_unit.fp and cu_cycles: every
output bit for bit (NaN as a class), the saturation count and eq. 4's cycles, for the
checked instance (F = 4) and another unroll factor that divides neither ID nor OD; in MyHDL
and in Icarus; Verilator-clean."""

from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint
from rlaccel.machines.maddpg.rtl import benches
from rlaccel.machines.maddpg.rtl.params import maddpg_params
from rlaccel.machines.maddpg.tlm import compute_unit

from tests.rtl.conftest import assert_clean


def test_layers_myhdl():
    r = run("maddpg_cu", n=25, seed=61)
    assert_clean(r)
    cov = r.extra["coverage"]
    assert cov.get("fp", 0) and cov.get("fp relu", 0)
    assert cov.get("fp saturates", 0) + cov.get("fp relu saturates", 0) > 0


def test_another_unroll_factor(monkeypatch):
    monkeypatch.setattr(benches.CuBench, "params",
                        lambda self, arch=None: maddpg_params(unroll=3, max_in=7, max_out=9))
    assert_clean(run("maddpg_cu", n=25, seed=62))


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("maddpg_cu", n=10, seed=63, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "maddpg_cu.v", "maddpg_cu") == []


def test_a_wrong_timing_model_is_caught(monkeypatch):
    monkeypatch.setattr(compute_unit, "cu_cycles", lambda i, o, f: -(-i * o // f) + 1)
    r = run("maddpg_cu", n=3, seed=64)
    assert r.mismatch_count == 3 and "expected cycles=" in str(r.mismatches[0])


def test_synthesis_shell_keeps_the_float_units_as_black_boxes(tmp_path):
    """machines/maddpg/rtl/cu_synth.py's conversion: F multipliers, F + 1 adders (the elements' and the
    bias adder), each an instance of a declared black box with a name of its own."""
    import re

    from rlaccel.machines.maddpg.rtl.cu_synth import convert_shell
    prm = maddpg_params(unroll=3, max_in=7, max_out=9)
    v, lib = convert_shell(prm, tmp_path)
    text = v.read_text()
    muls = re.findall(r"^fp32_mul (\w+) \(", text, re.M)
    adds = re.findall(r"^fp32_add (\w+) \(", text, re.M)
    assert len(muls) == 3 and len(adds) == 4
    assert len(set(muls + adds)) == 7
    assert "module fp32_mul(" in lib.read_text() and "module fp32_add(" in lib.read_text()
    assert "round_pack" not in text            # nothing of the float units was converted


def test_synthesis_shell_can_keep_the_banks_as_black_boxes(tmp_path):
    """cu_synth.py --banks ram: every weight bank an instance of a declared black box (the
    block RAM a device maps it to), so none of the banks' registers is converted."""
    import re

    import pytest

    from rlaccel.machines.maddpg.rtl.cu_synth import convert_shell
    from rlaccel.util.errors import RlaccelError
    prm = maddpg_params(unroll=3, max_in=7, max_out=9)
    v, lib = convert_shell(prm, tmp_path, "ram")
    text = v.read_text()
    assert len(re.findall(r"^fp32_bank (\w+) \(", text, re.M)) == 3
    assert "module fp32_bank(" in lib.read_text()
    assert not re.search(r"_bank\d+_mem", text)
    with pytest.raises(RlaccelError, match="banks must be 'registers' or 'ram'"):
        convert_shell(prm, tmp_path, "uram")
