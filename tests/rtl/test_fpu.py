"""rtl/fpu/'s multiplier and adder round exactly as isa.dtypes' fp16 and fp32 (nearest
even, subnormals, overflow flagged as a saturation; NaN compared as a class)."""

import numpy as np
import pytest
from myhdl import StopSimulation, block, delay, instance

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.rtl.fpu import fadd, float_format, fmul, fmul_signals
from rlaccel.rtl.float_stimulus import float_words


def _check(name: str, op: str, n: int, seed: int) -> tuple[int, dict]:
    dt = get_dtype(name)
    fmt = float_format(dt)
    rng = np.random.default_rng(seed)
    A, B = float_words(rng, fmt, n), float_words(rng, fmt, n)
    blk, fn = (fmul, dt.mul) if op == "mul" else (fadd, dt.add)
    s = fmul_signals(fmt)
    bad = []
    seen = {"subnormal": 0, "overflow": 0, "nan": 0}

    @block
    def tb():
        dut = blk(s["a"], s["b"], s["y"], s["ovf"], fmt=fmt)

        @instance
        def drive():
            for a, b in zip(A.tolist(), B.tolist()):
                s["a"].next, s["b"].next = a, b
                yield delay(1)
                c = SaturationCounter()
                with np.errstate(all="ignore"):
                    want = fmt.to_word(fn(fmt.from_word(a), fmt.from_word(b), counter=c))
                got = int(s["y"].val)
                same = want == got or (fmt.is_nan(want) and fmt.is_nan(got))
                if not same or (c.saturations > 0) != bool(s["ovf"].val):
                    bad.append((hex(a), hex(b), hex(want), hex(got)))
                seen["overflow"] += c.saturations > 0
                seen["nan"] += fmt.is_nan(want)
                seen["subnormal"] += (want >> fmt.mbits) & fmt.emax_field == 0 and \
                    want & ((1 << fmt.mbits) - 1) != 0
            raise StopSimulation

        return dut, drive

    tb().run_sim(quiet=1)
    return len(bad), seen


@pytest.mark.parametrize("name", ["fp16", "fp32"])
@pytest.mark.parametrize("op", ["mul", "add"])
def test_correctly_rounded_like_the_functional_model(name, op):
    bad, seen = _check(name, op, 2000, seed=5)
    assert bad == 0
    assert all(v > 0 for v in seen.values()), seen


def test_formats_from_numpy():
    assert (float_format(get_dtype("fp16")).ebits, float_format(get_dtype("fp16")).mbits) == (5, 10)
    assert (float_format(get_dtype("fp32")).ebits, float_format(get_dtype("fp32")).mbits) == (8, 23)
