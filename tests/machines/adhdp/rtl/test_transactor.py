"""rlaccel run --rtl datapath: the TLM executes every FF, BP, WU and BP_WU on the MyHDL
datapath -- or on its Verilog compiled by Verilator (--rtl-backend verilator) -- and the
run's report equals the pure-TLM run's bit for bit (a short cart-pole trial: about 800
matrix instructions)."""

import pytest

from rlaccel.programs.runner import run
from rlaccel.machines.adhdp.rtl.transactor import RtlDatapath
from rlaccel.isa.machine import machine

MANIFEST = machine("adhdp").programs / "cartpole.toml"


def _strip(report: dict) -> dict:
    """The report without its wall-clock figures (the simulator's and the host's: its
    'timing')."""
    return {k: v for k, v in report.items() if k != "timing"}


@pytest.mark.parametrize("backend", ["myhdl", "verilator"])
def test_cartpole_on_the_rtl_equals_the_tlm(hdl_tools, backend):
    overrides = ["max_steps=3"]
    tlm = run(MANIFEST, overrides, trials=1)
    dp = RtlDatapath()
    dp.backend = backend
    try:
        rtl = run(MANIFEST, overrides, trials=1, datapath=dp)
    finally:
        dp.close()
    assert _strip(rtl) == _strip(tlm)
    assert dp.instructions > 500
    assert set(dp.by_mnemonic) == {"ff", "bp", "wu", "bp_wu"}
    assert dp.cycle_mismatches == 0
    assert dp.rtl_cycles > 0 and "RTL cycles/s" in dp.summary()
    assert f"RTL datapath ({dp.backend_name})" in dp.summary()


def test_cli_run_with_rtl(capsys):
    from rlaccel.cli import main
    assert main(["run", str(MANIFEST), "--trials", "1", "--set", "max_steps=1", "-q",
                 "--rtl", "datapath"]) == 0
    out = capsys.readouterr().out
    assert "RTL datapath (MyHDL):" in out and "0 other differences" in out


def test_cli_run_with_rtl_on_verilator(hdl_tools, capsys):
    from rlaccel.cli import main
    assert main(["run", str(MANIFEST), "--trials", "1", "--set", "max_steps=1", "-q",
                 "--rtl", "datapath", "--rtl-backend", "verilator"]) == 0
    out = capsys.readouterr().out
    assert "RTL datapath (Verilator):" in out and "0 other differences" in out
