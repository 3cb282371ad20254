"""The ``[machine] accumulate`` knob: the platform's number format accumulates as the
architecture says (fp16: float32 by default, or FP16 registers as LearningGroup's VPUs)."""

import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import ArchError
from rlaccel.tlm.platform import Platform

ARCH = """name = "acc"
inherit = "adhdp"
[machine]
dtype = "fp16"
{knob}
"""

PROGRAM = """.data
X: .values 2048.0, 1.0, 1.0, 1.0, 1.0
Y: .zero 1
.synapse
W: .values 1.0, 1.0, 1.0, 1.0, 1.0
.text
        ff      X, W, Y, 1, 5
        cc.halt
"""


def _run(tmp_path, knob):
    p = tmp_path / "acc.toml"
    p.write_text(ARCH.format(knob=knob))
    arch = load_arch(str(p))
    platform = Platform(arch, assemble(PROGRAM, "acc.s", arch=arch).binary)
    platform.run()
    return float(platform.symbol_view("Y")[0])


def test_fp16_accumulation_follows_the_knob(tmp_path):
    assert _run(tmp_path, "") == 2052.0                       # float32 accumulator
    assert _run(tmp_path, 'accumulate = "fp16"') == 2048.0    # FP16 registers


def test_a_bad_accumulation_is_an_architecture_error(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text(ARCH.format(knob='accumulate = "fp16"').replace('"fp16"\n', '"q6.18"\n', 1))
    with pytest.raises(ArchError, match=r"\[machine\] accumulate: the accumulate option "
                                        r"applies to fp16 only, not 'q6.18'"):
        load_arch(str(p))
