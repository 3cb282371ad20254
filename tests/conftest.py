"""Suite-wide settings: hypothesis draws the same examples on every run (derandomized), so
`make test` is deterministic; `HYPOTHESIS_PROFILE=explore` searches with fresh random seeds.
RTL tests run in CI: a missing HDL tool fails with a message naming the setup script."""

import os

import rlaccel  # noqa: F401  (first: pins OpenBLAS's kernel before anything loads numpy)

import pytest
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture(scope="session")
def hdl_tools():
    """Icarus, Verilator, Yosys and MyHDL's VPI module, or a failure saying how to get them
    (`bash rtl/tools/setup.sh`, which `make test` runs)."""
    from rlaccel.rtl import hdl
    for name in ("iverilog", "vvp", "verilator", "yosys"):
        hdl.tool(name)
    hdl.vpi_module()
