"""Yosys counts of one regression processing element and one update lane of DARL
(:mod:`.lanes`), the per-instance figures of ``darl.toml``'s ``[resources.regression]`` and
``[resources.update]``.

    .venv/bin/python machines/darl/rtl/lanes_synth.py [--arch machines/darl/archs/darl.toml] [--dsp]

Both are synthesised with ``synth_xilinx -nodsp``: their multiplies in LUTs, as the
architecture's ``[timing] mul`` (a pipelined 32 x 32 multiply in LUTs) describes them;
``--dsp`` lets Yosys map them to DSP48 slices instead, to show how the figures move. The
accumulator's width is that of ``hv_dim / lanes`` chunks (the paper's D = 2048 at the
architecture's lanes).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from myhdl import ResetSignal, Signal

from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.rtl import hdl
from rlaccel.rtl.signals import sig_signed
from rlaccel.util.errors import RlaccelError
from rlaccel.machines.darl.rtl.lanes import (accumulator_bits, darl_regression_pe,
                                             darl_update_lane)
from rlaccel.machines.darl.tlm.regression import chunks
from rlaccel.machines.darl.tlm.timing import Workload

ARCH = Path(__file__).resolve().parents[1] / "archs" / "darl.toml"


def _instances(arch_path: Path):
    arch = load_arch(arch_path)
    dt = get_dtype(arch.knobs.dtype)
    bits, frac = arch.geometry.word_bits, dt.frac_bits
    k = chunks(Workload().d, arch.knobs.lanes)
    clk, rst = Signal(bool(0)), ResetSignal(0, active=1, isasync=False)
    pe = darl_regression_pe(clk, rst, sig_signed(bits), sig_signed(bits), Signal(bool(0)),
                            sig_signed(accumulator_bits(bits, k)), bits=bits)
    lane = darl_update_lane(clk, rst, *(sig_signed(bits) for _ in range(5)), bits=bits,
                            frac=frac)
    return {"darl_regression_pe": pe, "darl_update_lane": lane}


def counts(vfile: Path, top: str, dsp: bool) -> dict:
    """LUTs, FFs and DSP48s of ``top`` after ``synth_xilinx`` (``-nodsp`` unless ``dsp``)."""
    cmd = f"read_verilog {vfile}; synth_xilinx -top {top}{'' if dsp else ' -nodsp'}; stat"
    proc = subprocess.run([hdl.tool("yosys"), "-q", "-p", cmd + "; tee -o /dev/stdout stat"],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RlaccelError(f"yosys failed on {top}: {proc.stderr.strip()[-400:]}")
    by_type: dict[str, int] = {}
    for line in proc.stdout.splitlines():
        if re.match(r"\s+Number of cells:", line):
            by_type = {}
        m = re.match(r"\s+(\$?[A-Za-z_][\w$]*)\s+(\d+)$", line)
        if m:
            by_type[m.group(1)] = int(m.group(2))
    return {"lut": sum(n for t, n in by_type.items() if t.startswith("LUT")),
            "ff": sum(n for t, n in by_type.items() if t.startswith("FD")),
            "dsp": sum(n for t, n in by_type.items() if t.startswith("DSP48"))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arch", type=Path, default=ARCH)
    p.add_argument("--dsp", action="store_true", help="map the multiplies to DSP48 slices")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for name, inst in _instances(a.arch).items():
            v = hdl.convert(inst, name, Path(tmp))
            c = counts(v, name, a.dsp)
            print(f"{name}: {c['lut']:,} LUT, {c['ff']:,} FF, {c['dsp']} DSP48", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
