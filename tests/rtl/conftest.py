"""RTL tests run in CI: a missing HDL tool fails with a message naming the setup script."""

import pytest

from rlaccel.rtl import hdl


@pytest.fixture(scope="session")
def hdl_tools():
    """Icarus, Verilator, Yosys and MyHDL's VPI module, or a failure saying how to get them
    (`bash rtl/tools/setup.sh`, which `make test` runs)."""
    for name in ("iverilog", "vvp", "verilator", "yosys"):
        hdl.tool(name)
    hdl.vpi_module()


def assert_clean(result):
    """A bench result with transactions and no mismatches (printing the first ones)."""
    assert result.transactions > 0
    assert result.mismatch_count == 0, "\n".join(str(m) for m in result.mismatches)
