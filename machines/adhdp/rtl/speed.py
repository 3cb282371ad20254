"""RTL simulation speed on the cart-pole instruction stream, beside the TLM's.

``measure(manifest, n)`` runs the manifest on the TLM for one trial, recording the memories
before the first matrix instruction and the words of the matrix instructions in execution
order. The first ``n`` of those words are then replayed, from the recorded memories, on

* the MyHDL datapath (Python simulation) with the transactor's driver sequences
  (``datapath_driver``) and memories (:func:`.memory.memories`),
* its converted Verilog in Icarus alone (``vvp``; a Verilog test bench with the memories as
  arrays loaded from hex files),
* its converted Verilog in Icarus co-simulated with the same driver and memories (VPI),
* the same Verilog test bench compiled by Verilator into a C++ model (``--binary``),
* the Verilator back end of ``cosim`` and ``run --rtl`` (:mod:`rtl.verilator`): the same
  driver from Python on the compiled block, the memories in its shim,

each giving RTL cycles per second of wall time. Every final memory state must equal the
functional replay of the same words (``tlm.families.base.semantics``), and every replay
must take the same cycles. The TLM's own figure is its simulated cycles per second on the
whole program.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from myhdl import ResetSignal, Signal, Simulation, StopSimulation, block, instance

from rlaccel.rtl import hdl
from rlaccel.rtl.clock import ICARUS_TIMESCALE, half_period_ps
from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.jobs import counted_clock, job_sim
from rlaccel.machines.adhdp.rtl.datapath import (DATAPATH_MNEMONICS, datapath, datapath_signals,
                                                 rtl_cycles)
from rlaccel.machines.adhdp.rtl.datapath_driver import run_instruction, wait_ready
from rlaccel.machines.adhdp.rtl.memory import memories
from rlaccel.machines.adhdp.rtl.params import Params, params

__all__ = ["measure", "report", "record_stream"]

#: the run whose matrix instruction stream is replayed unless another is named
MANIFEST = Path(__file__).parents[1] / "programs" / "cartpole.toml"


class _Recorder:
    """A datapath hook that keeps the TLM's functional model and records the stream."""

    def __init__(self):
        self.words: list[int] = []
        self.U0 = self.S0 = None

    def attach(self, agent) -> None:
        from rlaccel.isa.encoding import Instruction
        from rlaccel.tlm.loader import EXEC
        enc = agent.enc
        U, S = agent.unified.data, agent.synapse.data
        for op in agent.ops:
            if op.kind == EXEC and op.mnemonic in DATAPATH_MNEMONICS:
                word = enc.encode(Instruction(op.mnemonic, dict(op.operands)))
                op.run = self._wrap(op.run, word, U, S)

    def _wrap(self, run, word, U, S):
        def recorded():
            if self.U0 is None:
                self.U0, self.S0 = U.copy(), S.copy()
            self.words.append(word)
            run()
        return recorded


def record_stream(run_manifest, manifest: str) -> tuple[dict, _Recorder]:
    """Run one trial of the manifest on the TLM, recording its matrix instruction stream
    (``run_manifest`` is the runner, :func:`rlaccel.programs.runner.run`, which the command
    line hands down: ``rtl`` does not import ``programs``)."""
    rec = _Recorder()
    report = run_manifest(manifest, trials=1, datapath=rec)
    return report, rec


def _stream_job(words, box):
    """A job replaying ``words``: for each, a falling edge, ``ready``, the instruction to
    ``done`` (the Verilog test bench's loop); the cycles from its start to the last done
    in ``box``."""
    def job(io):
        box["start"] = io.cycles
        for w in words:
            yield io.clk.negedge
            yield from wait_ready(io)
            yield from run_instruction(io, w)
        box["end"] = io.cycles
    return job


class _Io:
    """What a job reads of a MyHDL co-simulation: the ports, the clock, the cycles."""

    def __init__(self, ports, clk):
        self.ports, self.clk, self.cycles = ports, clk, 0

    def tick(self) -> None:
        self.cycles += 1


@block
def _stream_bench(clk, rst, io, words, box, half):
    """The stream job on ``io`` with a counted clock, out of reset first; stops after it."""
    clock = counted_clock(clk, io.tick, half)

    @instance
    def driver():
        yield clk.negedge
        yield clk.negedge
        rst.next = 0
        yield from _stream_job(words, box)(io)
        raise StopSimulation

    return clock, driver


def _expected_cycles(prm: Params, words) -> int:
    """The stream's cycles by the TLM's timing (each instruction's issue + depth, a cycle
    to see ``ready`` and the falling edge before it): the job simulation's budget."""
    total = 0
    for w in words:
        ins = prm.enc.decode(w)
        o = ins.operands
        total += 2 + rtl_cycles(ins.mnemonic, o["rows"], o["cols"] - o.get("off", 0),
                                prm.lanes, o.get("act", 0))
    return total


def _replay_jobs(backend: str, prm: Params, words, U, S) -> dict:
    """The stream as one job on the back end's job simulation (MyHDL's, or the Verilator
    back end: the same job from Python on the compiled block, the memories in its shim)."""
    box: dict = {}
    sim = job_sim(backend, datapath, datapath_signals(prm), prm, "datapath",
                  memories(U, S, prm))
    wall = time.perf_counter()
    try:
        sim.run(_stream_job(words, box), _expected_cycles(prm, words))
    finally:
        sim.close()
    wall = time.perf_counter() - wall
    cycles = box["end"] - box["start"]
    return {"cycles": cycles, "wall_s": wall, "cycles_per_s": cycles / wall}


def _replay_cosim(prm: Params, words, U, S, workdir: Path) -> dict:
    """The stream on the datapath's Verilog in Icarus, co-simulated with the MyHDL job and
    memories through the VPI module."""
    ports = datapath_signals(prm)
    clk, rst = Signal(bool(0)), ResetSignal(1, active=1, isasync=False)
    box: dict = {}
    hdl.convert(datapath(clk, rst, **ports, prm=prm), "datapath", workdir, testbench=True,
                timescale=ICARUS_TIMESCALE)
    compiled = hdl.icarus_compile("datapath", workdir)
    cosim = hdl.icarus_cosimulation(compiled, clk=clk, rst=rst, **ports)
    io = _Io(ports, clk)

    @block
    def top():
        insts = [_stream_bench(clk, rst, io, words, box, half_period_ps(prm))]
        for m in memories(U, S, prm):     # instance() here: MyHDL wants it in the block
            insts.append(instance(_forever(m.process(io))))
        return insts

    sim = Simulation(cosim, top())
    wall = time.perf_counter()
    try:
        sim.run(quiet=1)
    finally:
        if not sim._finished:
            sim.quit()
    wall = time.perf_counter() - wall
    cycles = box["end"] - box["start"]
    return {"cycles": cycles, "wall_s": wall, "cycles_per_s": cycles / wall}


def _forever(gen):
    def process():
        yield from gen
    return process


_TB = """`timescale 1ns/10ps
module tb_speed;
reg clk = 0;
reg rst = 1;
always #5 clk = ~clk;
reg start = 0;
reg [{IB}-1:0] instr = 0;
wire ready, done, fault;
wire [{SATB}-1:0] sats;
wire [{SB}-1:0] s_addr; wire s_we; wire [{L}-1:0] s_wmask; wire [{LW}-1:0] s_wdata;
reg [{LW}-1:0] s_rdata = 0;
wire [{UB}-1:0] n_raddr, n_gaddr, n_waddr; wire n_we; wire [{L}-1:0] n_wmask;
wire [{LW}-1:0] n_wdata;
reg [{LW}-1:0] n_rdata = 0;
reg [{W}-1:0] n_gdata = 0;
reg [{W}-1:0] S [0:{SW}-1];
reg [{W}-1:0] U [0:{UW}-1];
reg [{IB}-1:0] prog [0:{NI}-1];
integer k, l, cycles, first, reps;
datapath dut(clk, rst, start, instr, ready, done, fault, sats, s_addr, s_we, s_wmask, s_wdata,
             s_rdata, n_raddr, n_rdata, n_gaddr, n_gdata, n_waddr, n_we, n_wmask, n_wdata);
always @(posedge clk) begin
    cycles <= cycles + 1;
    if (s_we) begin
        for (l = 0; l < {L}; l = l + 1)
            if (s_wmask[l]) S[s_addr + l] <= s_wdata[l*{W} +: {W}];
    end else begin
        for (l = 0; l < {L}; l = l + 1)
            s_rdata[l*{W} +: {W}] <= (s_addr + l < {SW}) ? S[s_addr + l] : 0;
    end
    for (l = 0; l < {L}; l = l + 1)
        n_rdata[l*{W} +: {W}] <= (n_raddr + l < {UW}) ? U[n_raddr + l] : 0;
    n_gdata <= (n_gaddr < {UW}) ? U[n_gaddr] : 0;
    if (n_we)
        for (l = 0; l < {L}; l = l + 1)
            if (n_wmask[l]) U[n_waddr + l] <= n_wdata[l*{W} +: {W}];
end
initial begin
    cycles = 0;
    if (!$value$plusargs("repeat=%d", reps)) reps = 1;
    $readmemh("u.hex", U);
    $readmemh("s.hex", S);
    $readmemh("prog.hex", prog);
    @(negedge clk); @(negedge clk); rst = 0;
    first = cycles;
    for (k = 0; k < {NI} * reps; k = k + 1) begin
        @(negedge clk);
        while (!ready) @(negedge clk);
        instr = prog[k % {NI}]; start = 1;
        @(negedge clk); start = 0;
        while (!done) @(negedge clk);
    end
    $writememh("u_out.hex", U);
    $writememh("s_out.hex", S);
    $display("cycles %0d", cycles - first);
    $finish;
end
endmodule
"""


def _hex(path: Path, values, bits: int) -> None:
    mask = (1 << bits) - 1
    path.write_text("".join(f"{int(v) & mask:x}\n" for v in values))


def _unhex(path: Path, bits: int) -> np.ndarray:
    half = 1 << (bits - 1)
    vals = [int(tok, 16) for line in path.read_text().splitlines()
            if not line.lstrip().startswith("//") for tok in line.split()]
    return np.array([v - (1 << bits) if v >= half else v for v in vals], dtype=np.int64)


def _replay_icarus(prm: Params, words, U, S, workdir: Path) -> dict:
    from rlaccel.machines.adhdp.rtl.datapath import _sat_bits
    ports = datapath_signals(prm)
    clk, rst = Signal(bool(0)), ResetSignal(1, active=1, isasync=False)
    vfile = hdl.convert(datapath(clk, rst, **ports, prm=prm), "datapath", workdir)
    W, L = prm.word_bits, prm.lanes
    (workdir / "tb_speed.v").write_text(_TB.format(
        IB=prm.enc.instr_bits, SATB=_sat_bits(prm), SB=prm.saddr_bits, UB=prm.uaddr_bits, L=L,
        LW=L * W, W=W, SW=prm.synapse_words, UW=prm.unified_words, NI=len(words)))
    _hex(workdir / "u.hex", U, W)
    _hex(workdir / "s.hex", S, W)
    _hex(workdir / "prog.hex", words, prm.enc.instr_bits)
    out = workdir / "speed.vvp"
    subprocess.run([hdl.tool("iverilog"), "-o", str(out), str(vfile),
                    str(workdir / "tb_speed.v")], check=True, capture_output=True)
    wall = time.perf_counter()
    proc = subprocess.run([hdl.tool("vvp"), "-n", str(out)], capture_output=True, text=True,
                          cwd=workdir)
    wall = time.perf_counter() - wall
    m = re.search(r"cycles (\d+)", proc.stdout)
    if proc.returncode or not m:
        raise RtlError(f"vvp failed:\n{proc.stdout}{proc.stderr}")
    cycles = int(m.group(1))
    U[:] = _unhex(workdir / "u_out.hex", W)
    S[:] = _unhex(workdir / "s_out.hex", W)
    return {"cycles": cycles, "wall_s": wall, "cycles_per_s": cycles / wall}


def _replay_verilator(prm: Params, words, U, S, workdir: Path, repeat: int = 100) -> dict:
    """The Icarus test bench compiled by Verilator (--binary): checked on one pass over the
    stream, timed on ``repeat`` passes (a C++ model needs long runs to be measured)."""
    _replay_icarus(prm, words, U.copy(), S.copy(), workdir)     # writes the test bench
    wall = time.perf_counter()
    proc = subprocess.run([hdl.tool("verilator"), "--binary", "-j", "2", "-O3", "-Wno-fatal",
                           "-Wno-lint", "-Wno-style", "--top-module", "tb_speed",
                           "tb_speed.v", "datapath.v", "-o", "vtb"],
                          capture_output=True, text=True, cwd=workdir)
    build = time.perf_counter() - wall
    if proc.returncode:
        raise RtlError(f"verilator --binary failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    exe = workdir / "obj_dir" / "vtb"
    out = []
    for reps in (1, repeat):
        wall = time.perf_counter()
        run = subprocess.run([str(exe), f"+repeat={reps}"], capture_output=True, text=True,
                             cwd=workdir)
        out.append((time.perf_counter() - wall, run))
        if reps == 1:
            U[:] = _unhex(workdir / "u_out.hex", prm.word_bits)
            S[:] = _unhex(workdir / "s_out.hex", prm.word_bits)
    wall, run = out[-1]
    m = re.search(r"cycles (\d+)", run.stdout)
    if run.returncode or not m:
        raise RtlError(f"the Verilator model failed:\n{run.stdout}{run.stderr}")
    one = re.search(r"cycles (\d+)", out[0][1].stdout)
    cycles = int(m.group(1))
    return {"cycles": int(one.group(1)), "timed_cycles": cycles, "wall_s": wall,
            "cycles_per_s": cycles / wall, "build_s": build}


def measure(run_manifest, manifest: str | Path = MANIFEST, n: int = 200) -> dict:
    """Speeds of the TLM and of the datapath RTL on the first ``n`` matrix instructions of
    the manifest's stream; raises RtlError if the replays disagree."""
    from rlaccel.isa.dtypes import SaturationCounter
    from rlaccel.tlm.families.base.semantics import bind
    report, rec = record_stream(run_manifest, manifest)
    prm = params(report["arch"])
    words = rec.words[:n]
    if not words:
        raise RtlError(f"{manifest}: no matrix instruction ran")
    res = {"manifest": str(manifest), "instructions": len(words),
           "tlm": {"cycles": report["cycles"], "instructions": report["instructions"],
                   "cycles_per_s": report["timing"]["sim"]["cycles_per_s"],
                   "wall_s": report["timing"]["sim"]["wall_s"]}}
    Uf, Sf = rec.U0.copy(), rec.S0.copy()                     # the functional replay
    c = SaturationCounter()
    wall = time.perf_counter()
    for w in words:
        bind(prm.enc.decode(w), Uf, Sf, prm.dt, c)()
    res["functional_replay_s"] = time.perf_counter() - wall
    finals = {}
    for name in ("myhdl", "icarus", "cosim", "verilator", "verilator_backend"):
        U, S = rec.U0.copy(), rec.S0.copy()
        with tempfile.TemporaryDirectory(prefix="rlaccel-speed-") as d:
            if name == "myhdl":
                res[name] = _replay_jobs("myhdl", prm, words, U, S)
            elif name == "icarus":
                res[name] = _replay_icarus(prm, words, U, S, Path(d))
            elif name == "verilator":
                res[name] = _replay_verilator(prm, words, U, S, Path(d))
            elif name == "verilator_backend":
                res[name] = _replay_jobs("verilator", prm, words, U, S)
            else:
                res[name] = _replay_cosim(prm, words, U, S, Path(d))
        finals[name] = (U, S)
    for name, (U, S) in finals.items():
        if not (np.array_equal(U, Uf) and np.array_equal(S, Sf)):
            raise RtlError(f"the {name} replay of {len(words)} instructions ended in other "
                           f"memories than the functional model's")
    cyc = {res[k]["cycles"] for k in finals}
    if len(cyc) != 1:
        raise RtlError(f"the replays took different cycle counts: {sorted(cyc)}")
    res["memories_agree"] = True
    return res


def report(res: dict) -> str:
    t = res["tlm"]
    lines = [f"{res['manifest']}: the first {res['instructions']} matrix instructions of its "
             f"stream ({res['myhdl']['cycles']:,} RTL cycles), replayed from the same memories; "
             f"final memories equal the functional model's in every simulator",
             f"  {'simulator':38s} {'cycles/s':>12s}",
             f"  {'TLM (whole program, simulated cycles)':38s} {t['cycles_per_s']:12,.0f}",
             f"  {'MyHDL datapath':38s} {res['myhdl']['cycles_per_s']:12,.0f}",
             f"  {'Icarus (converted Verilog, vvp)':38s} {res['icarus']['cycles_per_s']:12,.0f}",
             f"  {'MyHDL <-> Icarus co-simulation (VPI)':38s} "
             f"{res['cosim']['cycles_per_s']:12,.0f}",
             f"  {'Verilator C++ model (--binary)':38s} "
             f"{res['verilator']['cycles_per_s']:12,.0f}   "
             f"(built in {res['verilator']['build_s']:.0f} s)",
             f"  {'Verilator back end (Python drivers)':38s} "
             f"{res['verilator_backend']['cycles_per_s']:12,.0f}"]
    return "\n".join(lines)
