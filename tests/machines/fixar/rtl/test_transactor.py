"""The FIXAR PRNG transactor (machines/fixar/rtl/transactor.py): streams seeded through the machine's
state draw, on the MyHDL generator, the samples NoiseGenerator draws, across requests and
stream switches, with unit_cycles' cycles."""

from types import SimpleNamespace

import numpy as np

from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.fixar.rtl.transactor import RtlPrng
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
from rlaccel.machines.fixar.tlm.state import state_of


def _agent():
    arch = load_arch("fixar")
    return SimpleNamespace(arch=arch, dt=get_dtype(arch.knobs.dtype),
                           timing=arch.extra["timing"], state={})


def test_streams_equal_the_model_across_switches():
    agent = _agent()
    rtl = RtlPrng()
    rtl.attach(agent)
    try:
        st = state_of(agent)
        st.seed(1, 1234)
        st.seed(2, 99)
        ref = {1: NoiseGenerator(1234, 1, st.prng_lanes), 2: NoiseGenerator(99, 2, st.prng_lanes)}
        for s, n in [(1, 5), (1, 37), (2, 16), (1, 1), (2, 40), (2, 3)]:
            got = st.stream(s, "test").gaussian_raw(n)
            assert np.array_equal(got, ref[s].gaussian_raw(n))
        assert np.array_equal(st.stream(1, "test").state(), ref[1].state())
        assert rtl.switches >= 3 and rtl.cycle_mismatches == 0 and rtl.samples == 102
    finally:
        rtl.close()
