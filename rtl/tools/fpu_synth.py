"""Yosys counts of one multiply-add element of rtl/fpu.py (fmul then fadd, combinational),
the element maddpg_cu instantiates F times (fp32) and lg_vpu once (fp16).

    .venv/bin/python rtl/tools/fpu_synth.py fp32 xilinx
"""
import sys
import tempfile
from pathlib import Path

from myhdl import block

from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.errors import RlaccelError
from rlaccel.rtl import hdl
from rlaccel.rtl.fpu import fadd, float_format, fmul
from rlaccel.rtl.params import sig_unsigned


def main(name: str, target: str) -> str:
    fmt = float_format(get_dtype(name))

    @block
    def fpu_mac(w, x, acc, y, om, oa):
        p = sig_unsigned(fmt.bits)
        return fmul(w, x, p, om, fmt=fmt), fadd(acc, p, y, oa, fmt=fmt)

    B = fmt.bits
    sig = [sig_unsigned(B) for _ in range(4)] + [sig_unsigned(0), sig_unsigned(0)]
    with tempfile.TemporaryDirectory() as d:
        v = hdl.convert(fpu_mac(*sig), "fpu_mac", Path(d))
        rep = hdl.synth(v, "fpu_mac", target)
    return f"fpu_mac {name} on {target}: {rep['cells']:,} cells {rep['groups']}"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("use: python rtl/tools/fpu_synth.py fp16|fp32 generic|xilinx|ice40")
    try:
        print(main(sys.argv[1], sys.argv[2]))
    except RlaccelError as e:
        sys.exit(f"fpu_synth: {e}")
