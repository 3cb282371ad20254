"""The HDL tools around the MyHDL blocks: conversion, Icarus, Verilator, Yosys.

Every tool is looked up when it is needed; a missing one raises :class:`ToolMissing` naming
the setup script (``make test`` runs it), never a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from myhdl import Cosimulation

from rlaccel.rtl.errors import RtlError, ToolMissing

__all__ = ["ROOT", "SETUP", "tool", "cache_dir", "vpi_module", "convert", "icarus_compile",
           "icarus_cosimulation", "dump_module", "lint", "LINT_WAIVERS", "synth", "TARGETS"]

ROOT = Path(__file__).resolve().parents[1]
SETUP = "bash rtl/tools/setup.sh"


def tool(name: str) -> str:
    """Path of an HDL tool, or ToolMissing saying how to install it."""
    path = shutil.which(name)
    if path:
        return path
    raise ToolMissing(f"{name} is not installed: run `{SETUP}` from the repository "
                      f"(make test runs it) to install Icarus Verilog, Verilator and Yosys")


def cache_dir() -> Path:
    """Where built HDL artefacts live: ``$RLACCEL_HDL_CACHE``, or ``.hdl/`` in the
    repository (MyHDL's VPI module, the Verilator libraries)."""
    return Path(os.environ.get("RLACCEL_HDL_CACHE", ROOT / ".hdl"))


def vpi_module() -> Path:
    """MyHDL's VPI module for Icarus, built by the setup script into ``.hdl/``."""
    vpi = cache_dir() / "myhdl.vpi"
    if not vpi.exists():
        raise ToolMissing(f"{vpi} is missing: run `{SETUP}` (make test runs it) to build "
                          f"MyHDL's VPI module for Icarus Verilog")
    return vpi


def convert(inst, name: str, outdir: Path, *, testbench: bool = False,
            timescale: str | None = None) -> Path:
    """Convert a MyHDL block instance to ``outdir/name.v`` (and ``tb_name.v``); for
    simulation with ``timescale`` (:data:`rtl.clock.TIMESCALE`), else MyHDL's default."""
    outdir.mkdir(parents=True, exist_ok=True)
    import warnings
    extra = {} if timescale is None else {"timescale": timescale}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # "driven but not read" notes on test ports
        inst.convert(hdl="Verilog", path=str(outdir), name=name, testbench=testbench,
                     **extra)
    return outdir / f"{name}.v"


def _run(cmd: list[str], what: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if proc.returncode:
        raise RtlError(f"{what} failed ({' '.join(cmd)}):\n{proc.stdout}{proc.stderr}".rstrip())
    return proc


def icarus_compile(name: str, outdir: Path, *, vcd: Path | None = None) -> Path:
    """Compile ``name.v`` with its MyHDL test-bench wrapper ``tb_name.v`` for vvp; with
    ``vcd``, a module that has Icarus dump every signal of the block (``tb_name.dut``) into
    that file, at the Verilog's timescale."""
    out = outdir / f"{name}.vvp"
    sources = [str(outdir / f"{name}.v"), str(outdir / f"tb_{name}.v")]
    tops = []
    if vcd is not None:
        from rlaccel.rtl.verilator.ports import CLOCK, verilog_ports
        ports = verilog_ports(outdir / f"{name}.v", name)
        inputs = [p.name for p in ports if not p.output]
        # MyHDL's VPI module ends vvp without $finish, and Icarus's VCD writer buffers:
        # flushed at every clock edge (every input change of a combinational block)
        flush = [CLOCK] if CLOCK in inputs else inputs
        sources.append(str(dump_module(name, f"tb_{name}.dut", vcd, outdir,
                                       flush=[f"tb_{name}.dut.{p}" for p in flush])))
        tops = ["-s", f"tb_{name}", "-s", f"dump_{name}"]
    _run([tool("iverilog"), *tops, "-o", str(out), *sources], "iverilog")
    return out


def dump_module(name: str, scope: str, vcd: Path, outdir: Path, *,
                flush: list[str] = ()) -> Path:
    """``outdir/dump_name.v``: a module (``dump_name``, a second top) that has the
    simulator dump every signal under ``scope`` into the VCD file ``vcd``, and flush it at
    every change of the signals ``flush`` (hierarchical names)."""
    path = str(Path(vcd).resolve()).replace("\\", "\\\\").replace('"', '\\"')
    dump = outdir / f"dump_{name}.v"
    flushing = f"always @({' or '.join(flush)}) $dumpflush;\n" if flush else ""
    dump.write_text(f"module dump_{name};\ninitial begin\n    $dumpfile(\"{path}\");\n"
                    f"    $dumpvars(0, {scope});\nend\n{flushing}endmodule\n")
    return dump


def icarus_cosimulation(compiled: Path, **ports) -> Cosimulation:
    """A MyHDL Cosimulation of a compiled design through the VPI module.

    vvp runs with SIGPIPE ignored (a two-line shell wrapper beside ``compiled``): when MyHDL
    stops, it closes the pipes while vvp may be about to write its last time step's values;
    by default the write kills vvp, losing what its VCD writer had buffered (the last clock
    edge); ignored, the write fails, the VPI module reads the end of the pipe and finishes
    the simulation, which closes the VCD whole."""
    wrapper = Path(compiled).with_suffix(".vvp.sh")
    wrapper.write_text(f"#!/bin/sh\ntrap '' PIPE\nexec {tool('vvp')} \"$@\"\n")
    wrapper.chmod(0o755)
    return Cosimulation(f"{wrapper} -m {vpi_module().with_suffix('')} {compiled}", **ports)


#: Verilator -Wall warnings waived, each with its reason. Everything else must be clean.
LINT_WAIVERS = {
    "WIDTH": "MyHDL writes each expression at the width of its destination and relies on "
             "Verilog's context-determined sizing to sign-extend narrower operands; Verilator "
             "reports every such extension. Only extensions are waived: a warning where the "
             "operand is WIDER than its context (a truncation) still fails lint, and the "
             "values are checked against MyHDL by Icarus co-simulation.",
}

#: Verilator's loop-unrolling limits for lint. MyHDL writes a block's per-lane and per-agent
#: loops as Verilog ``for`` loops with nonblocking assignments to arrays, which Verilator
#: accepts only unrolled (``BLKLOOPINIT`` otherwise); its defaults (64 iterations, 30,000
#: statements) are below ``darl_butterfly``'s 8 agents x 256-word links. These are
#: elaboration limits, not waivers; the cost is lint time (about 3 minutes for that block).
LINT_UNROLL = ("--unroll-count", "65536", "--unroll-stmts", "10000000")

_WIDTH = re.compile(r"expects (\d+)(?: or (\d+))? bits.*generates (\d+) bits")


def lint(vfile: Path, top: str) -> list[str]:
    """``verilator --lint-only -Wall``: the warnings left after the waivers (empty = clean)."""
    proc = subprocess.run([tool("verilator"), "--lint-only", "-Wall",
                           *LINT_UNROLL, "--top-module", top,
                           str(vfile)], capture_output=True, text=True)
    left = []
    for line in proc.stderr.splitlines():
        m = re.match(r"%(Warning|Error)-?([A-Z0-9_]*)?:?(.*)", line)
        if not m:
            continue
        kind, rule, text = m.groups()
        if kind == "Warning" and rule == "WIDTH":
            w = _WIDTH.search(text)
            if w and int(w.group(3)) <= min(int(g) for g in w.groups()[:2] if g):
                continue                     # an extension: waived, see LINT_WAIVERS
        elif kind == "Warning" and rule in LINT_WAIVERS:
            continue
        elif kind == "Error" and "Exiting due to" in text:
            continue
        left.append(line.strip())
    return left


#: Yosys synthesis targets: command and the cell groups reported
TARGETS = ("generic", "xilinx", "ice40")


def synth(vfile: Path, top: str, target: str = "generic", *,
          blackboxes: Path | None = None) -> dict:
    """Run Yosys; returns {'cells': total, 'groups': {name: count}, 'by_type': {...}}.

    ``blackboxes``: a Verilog file of module declarations read with ``-lib``, so instances
    of them stay cells of their own (counted in ``by_type`` by module name)."""
    if target not in TARGETS:
        raise RtlError(f"unknown synthesis target '{target}': choose {', '.join(TARGETS)}")
    cmd = {"generic": f"synth -top {top}", "xilinx": f"synth_xilinx -top {top}",
           "ice40": f"synth_ice40 -top {top}"}[target]
    lib = f"read_verilog -lib {blackboxes}; " if blackboxes else ""
    proc = _run([tool("yosys"), "-q", "-p",
                 f"{lib}read_verilog {vfile}; {cmd}; tee -o /dev/stdout stat"],
                f"yosys {target}")
    by_type: dict[str, int] = {}
    total = 0
    for line in proc.stdout.splitlines():
        m = re.match(r"\s+Number of cells:\s+(\d+)", line)
        if m:
            total = int(m.group(1))
            by_type = {}
            continue
        m = re.match(r"\s+(\$?[A-Za-z_][\w$]*)\s+(\d+)$", line)
        if m:
            by_type[m.group(1)] = int(m.group(2))
    return {"target": target, "cells": total, "by_type": by_type,
            "groups": _groups(target, by_type)}


def _groups(target: str, by_type: dict[str, int]) -> dict[str, int]:
    def count(pred) -> int:
        return sum(n for t, n in by_type.items() if pred(t))

    if target == "xilinx":
        return {"LUTs": count(lambda t: t.startswith("LUT")),
                "FFs": count(lambda t: t.startswith("FD")),
                "DSP48s": count(lambda t: t.startswith("DSP48")),
                "CARRY4s": count(lambda t: t.startswith("CARRY")),
                "MUXFs": count(lambda t: t.startswith("MUXF")),
                "IO buffers": count(lambda t: t in ("IBUF", "OBUF", "BUFG")),
                "other": count(lambda t: not t.startswith(("LUT", "FD", "DSP48", "CARRY",
                                                          "MUXF"))
                               and t not in ("IBUF", "OBUF", "BUFG"))}
    if target == "ice40":
        return {"LUTs": count(lambda t: t == "SB_LUT4"),
                "FFs": count(lambda t: t.startswith("SB_DFF")),
                "carry": count(lambda t: t == "SB_CARRY"),
                "MAC16s": count(lambda t: t == "SB_MAC16"),
                "other": count(lambda t: t not in ("SB_LUT4", "SB_CARRY", "SB_MAC16")
                               and not t.startswith("SB_DFF"))}
    ffs = count(lambda t: "DFF" in t.upper() or "SDFF" in t.upper() or "DLATCH" in t.upper())
    return {"gates": count(lambda t: True) - ffs, "flip-flops": ffs}


def convert_block(block: str, outdir: Path, arch: str | None = None, *,
                  testbench: bool = False) -> Path:
    """Convert one of the blocks (:mod:`rtl.blocks`) to ``outdir/<block>.v``."""
    from myhdl import ResetSignal, Signal

    from rlaccel.rtl.blocks import bench as bench_of
    bench = bench_of(block)
    prm = bench.params(arch)
    ports = bench.ports(prm)
    if bench.clocked:
        inst = bench.block(Signal(bool(0)), ResetSignal(1, active=1, isasync=False), **ports,
                           prm=prm)
    else:
        inst = bench.block(**ports, prm=prm)
    return convert(inst, bench.top, Path(outdir), testbench=testbench)
