"""Yosys counts of one multiply-add element of rtl/fpu/ (fmul then fadd, combinational),
the element maddpg_cu instantiates F times (fp32) and lg_vpu once (fp16), or of its
multiplier or adder alone (``mul``, ``add``: maddpg_cu's bias adder is one fadd).

    .venv/bin/python rtl/tools/fpu_synth.py fp32 xilinx [mac|mul|add]
"""
import sys
import tempfile
from pathlib import Path

from myhdl import block

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import RlaccelError
from rlaccel.rtl import hdl
from rlaccel.rtl.fpu import fadd, float_format, fmul
from rlaccel.rtl.signals import sig_unsigned


UNITS = ("mac", "mul", "add")


def main(name: str, target: str, unit: str = "mac") -> str:
    if unit not in UNITS:
        raise RlaccelError(f"unknown unit '{unit}': choose {', '.join(UNITS)}")
    fmt = float_format(get_dtype(name))

    @block
    def fpu_mac(w, x, acc, y, om, oa):
        p = sig_unsigned(fmt.bits)
        return fmul(w, x, p, om, fmt=fmt), fadd(acc, p, y, oa, fmt=fmt)

    B = fmt.bits
    if unit == "mac":
        sig = [sig_unsigned(B) for _ in range(4)] + [sig_unsigned(0), sig_unsigned(0)]
        inst = fpu_mac(*sig)
    else:
        inst = (fmul if unit == "mul" else fadd)(sig_unsigned(B), sig_unsigned(B),
                                                 sig_unsigned(B), sig_unsigned(0), fmt=fmt)
    top = f"fpu_{unit}"
    with tempfile.TemporaryDirectory() as d:
        v = hdl.convert(inst, top, Path(d))
        rep = hdl.synth(v, top, target)
    return f"{top} {name} on {target}: {rep['cells']:,} cells {rep['groups']}"


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("use: python rtl/tools/fpu_synth.py fp16|fp32 generic|xilinx|ice40 [mac|mul|add]")
    try:
        print(main(*sys.argv[1:]))
    except RlaccelError as e:
        sys.exit(f"fpu_synth: {e}")
