"""The core controller cycle by cycle (machines/learninggroup/tlm/controller.py): its selects
and enables on a hand-worked pass, its cycles against timing.core_cycles' per-pass formula,
and its MACs on a VpuArray against the FP16 chains of each row."""

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm import controller, timing
from rlaccel.machines.learninggroup.tlm.vpu import VpuArray, mac


def test_a_hand_worked_pass():
    """Workloads 3 and 5 on four VPUs: two cycles; cycle 0 gives VPUs 0-2 row 0 and VPU 3
    row 1, cycle 1 gives every VPU row 1."""
    cycles = list(controller.schedule([3, 5], 4))
    assert len(cycles) == 2
    (e0, s0, en0), (e1, s1, en1) = cycles
    assert e0.tolist() == [0, 1, 2, 3] and s0.tolist() == [0, 0, 0, 1] and en0.all()
    assert e1.tolist() == [4, 5, 6, 7] and s1.tolist() == [1, 1, 1, 1] and en1.all()
    (_, s, en), = controller.schedule([0, 2, 0, 1], 4)
    assert en.tolist() == [True, True, True, False] and s[:3].tolist() == [1, 1, 3]


def test_cycles_equal_the_pass_formula():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        wl = rng.integers(0, 600, int(rng.integers(0, 40)))
        wl[rng.random(wl.size) < 0.2] = 0
        assert controller.core_cycles(wl, n) == timing.core_cycles(wl, n, 4)
        r = int(rng.integers(1, 33))                 # the readings of more rows a pass
        assert controller.core_cycles(wl, n, r) == timing.core_cycles(wl, n, r)


def test_the_simulator_charges_the_controllers_count():
    """A packed layer's per-core cycles are the controller's, pass by pass."""
    from rlaccel.machines.learninggroup.tlm import osel
    from rlaccel.machines.learninggroup.tlm.layer import PackedLayer
    rng = np.random.default_rng(5)
    W = rng.normal(size=(40, 96)).astype(np.float16)
    srm = osel.encode_osel(rng.integers(0, 4, 40), rng.integers(0, 4, 96), 4).srm
    lay = PackedLayer.build(W, np.zeros(96, np.float16), srm, 3)
    want = [controller.core_cycles(w, 264) for w in lay.core_workloads()]
    assert lay.core_cycles(264, 4) == want and sum(want) > 0


def test_a_pass_accumulates_each_rows_products_in_its_register():
    rng = np.random.default_rng(4)
    wl = [5, 0, 9, 2]
    w = rng.normal(size=16).astype(np.float16)
    acts = rng.normal(size=4).astype(np.float16)
    arr = VpuArray(6)
    assert controller.run_pass(arr, w, acts, wl) == 3
    want = np.zeros((4, 6), np.float16)
    ends = np.cumsum(wl)
    for e in range(16):
        r = int(np.searchsorted(ends, e, side="right"))
        want[r, e % 6] = mac(want[r, e % 6], w[e], acts[r])
    assert (arr.acc.view(np.uint16) == want.view(np.uint16)).all()
    assert arr.busy == 16


@pytest.mark.parametrize("wl, msg", [([1, 2, 3, 4, 5], "1..4 rows"), ([-1], ">= 0")])
def test_bad_passes_are_refused(wl, msg):
    with pytest.raises(SimError, match=msg):
        list(controller.schedule(wl, 4))
