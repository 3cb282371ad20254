"""Running a block's bench as a cocotb test under Icarus (:mod:`rtl.cocotb_bench`).

:func:`run` converts the block (:data:`rtl.clock.TIMESCALE`), builds it with cocotb's
Python runner for Icarus (``cocotb_tools.runner``; cocotb supports Icarus 11 and later) and
runs the test module :mod:`rtl.cocotb_bench` on it with the run's block, transactions, seed
and architecture in a JSON file; the test writes the scoreboard's counts back, which come
out as a :class:`rtl.cosim.CosimResult` of back end ``cocotb``. With ``vcd`` Icarus dumps
every signal of the block, at the architecture's clock period. A missing cocotb or Icarus
raises :class:`ToolMissing` naming the setup script.
"""

from __future__ import annotations

import json
import pickle
import tempfile
import time
from pathlib import Path

from rlaccel.rtl import hdl
from rlaccel.rtl.blocks import bench as bench_of
from rlaccel.rtl.clock import TIMESCALE
from rlaccel.rtl.errors import RtlError, ToolMissing
from rlaccel.rtl.verilator.ports import verilog_ports

__all__ = ["run", "SIMULATOR", "TEST_MODULE"]

#: the simulator cocotb runs the benches on
SIMULATOR = "icarus"
#: the cocotb test module
TEST_MODULE = "rlaccel.rtl.cocotb_bench"


def _runner(dump: bool):
    """cocotb's Icarus runner; ``dump``: let the test's own ``$dumpfile`` write (the runner
    otherwise passes vvp ``-none``, which silences every dump but its own FST)."""
    try:
        from cocotb_tools.runner import Icarus
    except ImportError:
        raise ToolMissing(f"cocotb is not installed: run `{hdl.SETUP}` (make test runs it), "
                          f"or pip install the test extras (.[test])") from None
    hdl.tool("iverilog")

    class Runner(Icarus):
        def _test_command(self):
            cmds = super()._test_command()
            return [[a for a in c if a != "-none"] for c in cmds] if dump else cmds

    return Runner()


def run(block_name: str, n: int = 100, seed: int = 1, *, arch: str | None = None,
        vcd: str | Path | None = None, workdir: str | Path | None = None,
        transactions=None):
    """The bench of ``block_name`` as a cocotb test under Icarus: ``n`` transactions drawn
    with ``seed`` (or the given list of predicted :class:`rtl.scoreboard.Txn`, for directed
    tests, as :func:`rtl.cosim.run` takes them); a :class:`rtl.cosim.CosimResult`."""
    from rlaccel.rtl.cosim import CosimResult
    runner = _runner(vcd is not None)
    bench = bench_of(block_name)
    prm = bench.params(arch)
    from myhdl import ResetSignal, Signal
    clk, rst = Signal(bool(0)), ResetSignal(1, active=1, isasync=False)
    ports = bench.ports(prm)
    dut = bench.block(clk, rst, **ports, prm=prm) if bench.clocked else \
        bench.block(**ports, prm=prm)
    with tempfile.TemporaryDirectory(prefix=f"rlaccel-cocotb-{block_name}-") as scratch:
        where = Path(workdir) if workdir is not None else Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        top = bench.top
        sources = [hdl.convert(dut, top, where, timescale=TIMESCALE)]
        extra = []
        if vcd is not None:
            sources.append(hdl.dump_module(top, top, Path(vcd), where))
            extra = ["-s", f"dump_{top}"]
        build = where / "sim_build"
        unit, precision = TIMESCALE.split("/")
        runner.build(sources=sources, hdl_toplevel=top, build_dir=build, always=True,
                     build_args=extra, timescale=(unit, precision),
                     log_file=where / "build.log")
        cfg, result = where / "run.json", where / "result.json"
        directed = None
        if transactions is not None:                 # handed over as a pickle
            directed = where / "transactions.pickle"
            directed.write_bytes(pickle.dumps(list(transactions)))
        inputs = [p.name for p in verilog_ports(sources[0], top)
                  if not p.output and p.name not in ("clk", "rst")]
        cfg.write_text(json.dumps({"block": block_name, "n": n, "seed": seed, "arch": arch,
                                   "inputs": inputs, "result": str(result),
                                   "transactions": directed and str(directed)}))
        wall = time.perf_counter()
        try:
            runner.test(test_module=TEST_MODULE, hdl_toplevel=top, build_dir=build,
                        test_dir=where, extra_env={"RLACCEL_COCOTB": str(cfg)},
                        results_xml=str(where / "results.xml"), log_file=where / "test.log")
        except SystemExit:           # cocotb's runner exits when a test failed: its result
            pass                     # file says how (or its absence that the test broke)
        wall = time.perf_counter() - wall
        if not result.exists():
            log = (where / "test.log").read_text()[-3000:] if (where / "test.log").exists() \
                else ""
            raise RtlError(f"the cocotb test of {block_name} wrote no result:\n{log}")
        r = json.loads(result.read_text())
    return CosimResult(block_name, "cocotb", seed, r["transactions"], r["mismatch_count"],
                       r["mismatches"], r["cycles"], r["wall_s"], extra=r["extra"])
