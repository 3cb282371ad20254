"""rlaccel cosim and rlaccel rtl: what they print, their exit statuses, missing tools."""

import pytest

from rlaccel.cli import main
from rlaccel.rtl import hdl
from rlaccel.rtl.errors import ToolMissing


def test_cosim_prints_the_counts(capsys, tmp_path):
    vcd = tmp_path / "act.vcd"
    assert main(["cosim", "activation", "--n", "300", "--seed", "3", "--vcd", str(vcd)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("activation (myhdl, seed 3): 300 transactions checked, 0 mismatches, ")
    assert "cycles, " in out and "RTL cycles/s" in out
    assert vcd.exists() and "$var" in vcd.read_text()[:20000]


def test_cosim_unknown_block_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["cosim", "adder"])
    assert info.value.code == 2


def test_rtl_verilog_and_synth(hdl_tools, capsys, tmp_path):
    assert main(["rtl", "verilog", "lane", "-o", str(tmp_path)]) == 0
    assert "module lane" in (tmp_path / "lane.v").read_text()
    assert main(["rtl", "synth", "lane", "--target", "xilinx"]) == 0
    out = capsys.readouterr().out
    assert "lane on xilinx (yosys):" in out
    for unit in ("LUTs", "FFs", "DSP48s", "CARRY4s"):
        assert unit in out
    assert main(["rtl", "lint", "decoder"]) == 0
    assert "verilator --lint-only -Wall clean" in capsys.readouterr().out


def test_a_missing_tool_names_the_setup(monkeypatch):
    monkeypatch.setattr(hdl.shutil, "which", lambda name: None)
    with pytest.raises(ToolMissing, match=r"yosys is not installed: run `bash rtl/tools/setup.sh`"):
        hdl.tool("yosys")
    monkeypatch.setenv("RLACCEL_HDL_CACHE", "/nonexistent")
    with pytest.raises(ToolMissing, match=r"myhdl.vpi is missing: run `bash rtl/tools/setup.sh`"):
        hdl.vpi_module()
