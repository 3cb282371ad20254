"""Yosys counts of maddpg_cu synthesized hierarchically: the compute unit with its fp32
multipliers and adders of rtl/fpu/ as black boxes (the control, the weight banks, the x,
bias and accumulator registers, the operand multiplexers, the flags and the ReLU), and the
black boxes' own rows (rtl/tools/fpu_synth.py) added F times (the multiply-add elements) and
once (the bias adder of the read port).

    .venv/bin/python machines/maddpg/rtl/cu_synth.py xilinx [--unroll F] [--arch NAME]

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


def convert_shell(prm, outdir: Path) -> tuple[Path, Path]:
    """Convert maddpg_cu with its fmul and fadd as black-box instances: returns the Verilog
    file and the black boxes' declarations."""
    name = prm.arch.knobs.dtype
    saved = cu_module.fmul, cu_module.fadd
    cu_module.fmul, cu_module.fadd = _stub("mul", name), _stub("add", name)
    try:
        ports = cu_module.cu_signals(prm)
        inst = cu_module.maddpg_cu(Signal(bool(0)), ResetSignal(1, active=1, isasync=False),
                                   **ports, prm=prm)
        v = hdl.convert(inst, "maddpg_cu", outdir)
    finally:
        cu_module.fmul, cu_module.fadd = saved
    lib = outdir / "blackboxes.v"
    lib.write_text(BLACKBOXES.format(name=name, msb=prm.word_bits - 1))
    return v, lib


def main(target: str, unroll: int, arch: str) -> str:
    prm = maddpg_params(arch, unroll=unroll)
    name = prm.arch.knobs.dtype
    with tempfile.TemporaryDirectory() as d:
        v, lib = convert_shell(prm, Path(d))
        rep = hdl.synth(v, "maddpg_cu", target, blackboxes=lib)
    boxes = {t: n for t, n in rep["by_type"].items() if t.startswith(f"{name}_")}
    return (f"maddpg_cu F={unroll} {prm.max_in}x{prm.max_out} ({prm.arch.name}) on {target}, "
            f"fp units as black boxes {boxes}: {rep['cells']:,} cells {rep['groups']}\n"
            f"  by type: {rep['by_type']}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target", choices=hdl.TARGETS)
    ap.add_argument("--unroll", type=int, default=UNROLL, help=f"F (default {UNROLL})")
    ap.add_argument("--arch", default="maddpg")
    args = ap.parse_args()
    try:
        print(main(args.target, args.unroll, args.arch))
    except RlaccelError as e:
        sys.exit(f"cu_synth: {e}")
