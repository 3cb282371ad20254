"""Yosys counts of maddpg_cu synthesized hierarchically: the compute unit with its fp32
multipliers and adders of rtl/fpu/ as black boxes (the control, the weight banks, the x,
bias and accumulator registers, the operand multiplexers, the flags and the ReLU), and the
black boxes' own rows (rtl/tools/fpu_synth.py) added F times (the multiply-add elements) and
once (the bias adder of the read port).

    .venv/bin/python machines/maddpg/rtl/cu_synth.py xilinx [--unroll F] [--arch NAME] [--banks ram]

``--banks ram`` keeps each weight bank as a black box too (``{dtype}_bank``: the write port
with its enable decode and the read port), the block RAM a device maps a partitioned bank to:
what is counted is then the shell without the banks' registers and read multiplexers.

Why: synth_xilinx of the flat unit (F multipliers and F + 1 adders flattened together) did
not finish in 10 to 13 minutes of wall time on the shared machine; each part alone does.
The sum is not Yosys's optimum of the flat unit: nothing is shared or simplified across a
black box's ports (the bias adder's and the elements' are independent units in the RTL too).
"""
import argparse
import itertools
import sys
import tempfile
from pathlib import Path

from myhdl import ResetSignal, Signal, always_comb, block

from rlaccel.util.errors import RlaccelError
from rlaccel.rtl import hdl
from rlaccel.rtl.signals import bits_for
from rlaccel.machines.maddpg.rtl import cu as cu_module
from rlaccel.machines.maddpg.rtl.params import UNROLL, maddpg_params

#: the black boxes' module declarations (the ports of rtl/fpu's fmul and fadd)
BLACKBOXES = """\
(* blackbox *)
module {name}_mul(input [{msb}:0] a, input [{msb}:0] b, output [{msb}:0] y, output ovf);
endmodule
(* blackbox *)
module {name}_add(input [{msb}:0] a, input [{msb}:0] b, output [{msb}:0] y, output ovf);
endmodule
"""

#: a weight bank as a black box (a block RAM with the loader's write port, read at the pass)
BANK_BLACKBOX = """\
(* blackbox *)
module {name}_bank(input clk, input ld_we, input [1:0] ld_sel, input [{bb}:0] ld_bank,
                   input [{ab}:0] ld_addr, input [{msb}:0] ld_data, input [{tb}:0] raddr,
                   output [{msb}:0] rdata);
endmodule
"""


def _stub(kind: str, name: str):
    """A MyHDL block that converts to an instance of the black box ``{name}_{kind}``."""
    made = itertools.count()

    @block
    def unit(a, b, y, ovf, *, fmt):
        tag = next(made)                 # the instance's number, $tag in verilog_code
        @always_comb
        def logic():                     # simulation placeholder; conversion uses verilog_code
            y.next = a ^ b
            ovf.next = 0

        y.driven = "wire"
        ovf.driven = "wire"
        a.read = True
        b.read = True
        return logic

    unit.verilog_code = f"{name}_{kind} u_{kind}_$tag (.a($a), .b($b), .y($y), .ovf($ovf));"
    return unit


def _bank_stub(name: str):
    """A MyHDL block that converts to an instance of the black box ``{name}_bank``."""
    made = itertools.count()

    @block
    def bank(clk, rst, ld_we, ld_sel, ld_bank, ld_addr, ld_data, raddr, rdata, *, e, words):
        tag = next(made)                 # the instance's number, $tag in verilog_code
        @always_comb
        def logic():                     # simulation placeholder; conversion uses verilog_code
            rdata.next = ld_data

        rdata.driven = "wire"
        for s in (clk, ld_we, ld_sel, ld_bank, ld_addr, ld_data, raddr):
            s.read = True
        return logic

    bank.verilog_code = (f"{name}_bank u_bank_$tag (.clk($clk), .ld_we($ld_we), "
                         f".ld_sel($ld_sel), .ld_bank($ld_bank), .ld_addr($ld_addr), "
                         f".ld_data($ld_data), .raddr($raddr), .rdata($rdata));")
    return bank


def convert_shell(prm, outdir: Path, banks: str = "registers") -> tuple[Path, Path]:
    """Convert maddpg_cu with its fmul and fadd as black-box instances (and its weight banks
    too with ``banks="ram"``): returns the Verilog file and the black boxes' declarations."""
    if banks not in ("registers", "ram"):
        raise RlaccelError(f"banks must be 'registers' or 'ram', not {banks!r}")
    name = prm.arch.knobs.dtype
    saved = cu_module.fmul, cu_module.fadd, cu_module._bank
    cu_module.fmul, cu_module.fadd = _stub("mul", name), _stub("add", name)
    if banks == "ram":
        cu_module._bank = _bank_stub(name)
    ports = cu_module.cu_signals(prm)
    try:
        inst = cu_module.maddpg_cu(Signal(bool(0)), ResetSignal(1, active=1, isasync=False),
                                   **ports, prm=prm)
        v = hdl.convert(inst, "maddpg_cu", outdir)
    finally:
        cu_module.fmul, cu_module.fadd, cu_module._bank = saved
    lib = outdir / "blackboxes.v"
    text = BLACKBOXES.format(name=name, msb=prm.word_bits - 1)
    if banks == "ram":
        text += BANK_BLACKBOX.format(name=name, msb=prm.word_bits - 1,
                                     bb=len(ports["ld_bank"]) - 1,
                                     ab=len(ports["ld_addr"]) - 1,
                                     tb=bits_for(prm.bank_words) - 1)
    lib.write_text(text)
    return v, lib


def main(target: str, unroll: int, arch: str, banks: str = "registers") -> str:
    prm = maddpg_params(arch, unroll=unroll)
    name = prm.arch.knobs.dtype
    with tempfile.TemporaryDirectory() as d:
        v, lib = convert_shell(prm, Path(d), banks)
        rep = hdl.synth(v, "maddpg_cu", target, blackboxes=lib)
    boxes = {t: n for t, n in rep["by_type"].items() if t.startswith(f"{name}_")}
    return (f"maddpg_cu F={unroll} {prm.max_in}x{prm.max_out} ({prm.arch.name}) on {target}, "
            f"banks as {banks}, fp units as black boxes {boxes}: {rep['cells']:,} cells {rep['groups']}\n"
            f"  by type: {rep['by_type']}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target", choices=hdl.TARGETS)
    ap.add_argument("--unroll", type=int, default=UNROLL, help=f"F (default {UNROLL})")
    ap.add_argument("--arch", default="maddpg")
    ap.add_argument("--banks", choices=["registers", "ram"], default="registers",
                    help="the weight banks as the RTL's registers, or as black boxes (block RAM)")
    args = ap.parse_args()
    try:
        print(main(args.target, args.unroll, args.arch, args.banks))
    except RlaccelError as e:
        sys.exit(f"cu_synth: {e}")
