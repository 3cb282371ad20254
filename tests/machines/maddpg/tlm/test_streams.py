"""The learners' compute-unit streams (machines/maddpg/tlm/streams.py): every sample computed as
the unit models compute one sample (compute_unit, softmax, loss), strided rows, and the units
scheduled sample by sample in simulated time -- a chain of them is a pipeline with the fill,
steady state and bottleneck of eq. 3."""

import numpy as np
import pytest

from rlaccel.util.errors import ArchError, SimError
from rlaccel.machines.maddpg.tlm.compute_unit import bp, fp, wu
from rlaccel.machines.maddpg.tlm.loss import loss_error, td_target
from rlaccel.machines.maddpg.tlm.softmax import gumbel_softmax, softmax_backward
from rlaccel.machines.maddpg.tlm.timing import schedule
from rlaccel.tlm.trace import ChromeTrace

from tests.machines.maddpg.tlm.conftest import values, view

RNG = np.random.default_rng(7)
B = 6


def f32(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def _same(a, b):
    assert np.asarray(a, np.float32).tobytes() == np.asarray(b, np.float32).tobytes()


def test_forward_backward_and_gradient_per_sample(learners):
    """pfp reads rows 7 words apart (the 4 after an offset of 1), pfpo overlays a window from
    another buffer, pbp takes a column window and masks by relu' of the layer input, pwu is
    the batch's gradient from zero: all equal the one-sample unit models."""
    X, W, b, Wo = f32(B, 7), f32(5, 4), f32(5), f32(3, 5)
    O, D = f32(B, 2), f32(B, 3)
    prog = f""".data
X: .values {values(X)}
O: .values {values(O)}
D: .values {values(D)}
H: .zero {B * 5}
HO: .zero {B * 5}
E: .zero {B * 2}
.synapse
L1: .values {values(W)}, {values(b)}
L2: .values {values(Wo)}, {values(np.zeros(3))}
G: .zero 18
.text
        cucfg u=0, f=2
        cucfg u=1, f=2
        cucfg u=2, f=3
        cucfg u=3, f=1
        pfp  u=0, a=X + 1, sa=7, syn=L1, dst=H, sd=5, rows=5, cols=4, act=relu, batch={B}
        pfpo u=1, a=X + 1, sa=7, b=O, sb=2, syn=L1, dst=HO, sd=5, rows=5, cols=4, off=1, len=2, batch={B}
        pbp  u=2, a=D, sa=3, b=H + 1, sb=5, syn=L2, dst=E, sd=2, rows=3, cols=5, off=1, len=2, act=relu, batch={B}
        pwu  u=3, a=D, sa=3, b=H, sb=5, syn=G, rows=3, cols=5, batch={B}
        uwait
        pwu  u=3, a=D, sa=3, b=H, sb=5, syn=G, rows=3, cols=5, batch={B}
        uwait
        cc.halt
"""
    p = learners(prog)
    p.run()
    H = np.stack([fp(W, b, x[1:5], relu=True) for x in X])
    _same(view(p, "H"), H)
    xo = X[:, 1:5].copy()
    xo[:, 1:3] = O
    _same(view(p, "HO"), np.stack([fp(W, b, x, relu=False) for x in xo]))
    _same(view(p, "E"), np.stack([bp(Wo[:, 1:3], d, h[1:3]) for d, h in zip(D, H)]))
    G, gb = np.zeros((3, 5), np.float32), np.zeros(3, np.float32)
    for d, h in zip(D, H):
        G, gb = wu(G, gb, d, h)
    _same(view(p, "G"), np.concatenate([G.ravel(), gb]))   # from zero again the second time


def test_heads_and_loss_per_sample(learners):
    """pgs is the Gumbel-softmax of logits plus noise, pgb its backward pass plus K times
    the logits, ploss the value error (2/B)(Q - (r + gamma (1 - d) Q'))."""
    Z, G, DY = f32(B, 3), f32(B, 3), f32(B, 3)
    Q, QN = f32(B), f32(B)
    RD = np.stack([f32(B), (RNG.random(B) < 0.5).astype(np.float32)], axis=1)
    prog = f""".data
Z: .values {values(Z)}
G: .values {values(G)}
DY: .values {values(DY)}
Q: .values {values(Q)}
QN: .values {values(QN)}
RD: .values {values(RD)}
K: .values 0.25
GAM: .values 0.95
Y: .zero {B * 3}
DL: .zero {B * 3}
DQ: .zero {B}
.text
        cucfg u=29, f=1
        cucfg u=31, f=1
        cucfg u=9, f=1
        pgs   u=29, a=Z, sa=3, b=G, sb=3, dst=Y, sd=3, rows=3, batch={B}
        pgb   u=31, a=DY, sa=3, b=Y, sb=3, c=Z, sc=3, k=K, dst=DL, sd=3, rows=3, batch={B}
        ploss u=9, a=Q, sa=1, b=QN, sb=1, c=RD, sc=2, k=GAM, dst=DQ, sd=1, batch={B}
        uwait
        cc.halt
"""
    p = learners(prog)
    p.run()
    Y = np.stack([gumbel_softmax(z, g) for z, g in zip(Z, G)])
    _same(view(p, "Y"), Y)
    from rlaccel.isa.dtypes import get_dtype
    F = get_dtype("fp32")
    _same(view(p, "DL"), np.stack([F.add(softmax_backward(y, dy), F.mul(np.float32(0.25), z))
                                   for y, dy, z in zip(Y, DY, Z)]))
    _same(view(p, "DQ"), loss_error(Q, td_target(RD[:, 0], QN, RD[:, 1], 0.95), B))


PIPE = """.data
X: .zero {B2}
H1: .zero {B2}
H2: .zero {B5}
H3: .zero {B3}
.synapse
W1: .zero 6
W2: .zero 15
W3: .zero 18
.text
        cucfg u=0, f=2
        cucfg u=1, f=2
        cucfg u=2, f=5
        pfp u=0, a=X, sa=2, syn=W1, dst=H1, sd=2, rows=2, cols=2, batch={B}
        pfp u=1, a=H1, sa=2, syn=W2, dst=H2, sd=5, rows=5, cols=2, batch={B}
        pfp u=2, a=H2, sa=5, syn=W3, dst=H3, sd=3, rows=3, cols=5, batch={B}
        uwait
        cc.halt
"""


def test_a_chain_of_units_is_a_pipeline(learners):
    """Three units of 2, 5 and 3 cycles per sample (2x2 on 2 elements, 5x2 on 2, 3x5 on 5):
    the first sample leaves after 10 cycles (fill), then one every 5 (the bottleneck, the
    middle unit); each unit is busy B T cycles; uwait holds the controller until the last
    sample is done. The trace draws a unit's back-to-back samples as one slice: the first
    unit (its inputs all there) and the bottleneck work without a break, the last unit waits
    for every sample."""
    trace = ChromeTrace(300.0)
    p = learners(PIPE.format(B=B, B2=2 * B, B3=3 * B, B5=5 * B), trace=trace)
    r = p.run()
    L = p.agents[0].state["marl.learner"]
    t0 = L.last[0][0][0]                                # the first stream's first sample
    start, finish = schedule([2, 5, 3], B)
    for u, T in enumerate([2, 5, 3]):
        s, d, t = L.last[u]
        assert t == T
        assert (s - t0).tolist() == start[:, u].tolist()
        assert (d - t0).tolist() == finish[:, u].tolist()
    assert (L.last[2][1] - t0).tolist() == [10, 15, 20, 25, 30, 35]
    busy = {k: v["busy_cycles"] for k, v in r.units.items()}
    assert (busy["cu00"], busy["cu01"], busy["cu02"]) == (2 * B, 5 * B, 3 * B)
    assert r.cycles == L.last[2][1][-1] + 1            # uwait, then cc.halt
    slices = [e for e in trace.events() if e.get("cat") == "unit"]
    per = {u: sum(1 for e in slices if e["name"] == "pfp" and e["tid"] == tid)
           for u, tid in ((u, next(e["tid"] for e in slices if e["args"]["pc"] == 3 + u))
                          for u in range(3))}
    assert per == {0: 1, 1: 1, 2: B}


def test_units_need_their_unroll_factor(learners):
    p = learners(".data\nX: .zero 4\n.synapse\nW: .zero 6\n.text\n"
                 "pfp u=4, a=X, sa=2, syn=W, dst=X, sd=2, rows=2, cols=2, batch=2\ncc.halt\n")
    with pytest.raises(SimError, match=r"learner 0: pfp runs on compute unit 4, which has no "
                                       r"unroll factor: configure it with 'cucfg u=4, f=F' "
                                       r"first"):
        p.run()
    p = learners(".text\ncucfg u=4, f=3\ncucfg u=4, f=5\ncc.halt\n")
    with pytest.raises(SimError, match=r"learner 0: compute unit 4 has 3 elements; it cannot "
                                       r"be configured again with 5"):
        p.run()


def test_the_learners_compute_in_fp32(learners):
    p = learners(".data\nX: .zero 4\n.synapse\nW: .zero 6\n.text\ncucfg u=4, f=3\ncc.halt\n",
                 extra='dtype = "float64"\n')
    with pytest.raises(ArchError, match=r"the learners' instructions compute in fp32 \(the "
                                        r"MADDPG paper, section IV-A\); this architecture's "
                                        r"dtype is float64"):
        p.run()


def test_written_rows_must_not_overlap(learners):
    p = learners(".data\nX: .zero 8\n.synapse\nW: .zero 6\n.text\ncucfg u=0, f=1\n"
                 "pfp u=0, a=X, sa=2, syn=W, dst=X, sd=1, rows=2, cols=2, batch=3\ncc.halt\n")
    with pytest.raises(SimError, match="rows of 2 words 1 apart overlap"):
        p.run()


def test_relu_in_the_storage_format_is_the_formats_relu_bit_for_bit():
    """streams._activate takes relu in fp32 itself: the same bits as the format's relu
    (float64 then rounded), NaNs, infinities, signed zeros and subnormals included."""
    from types import SimpleNamespace

    import numpy as np

    from rlaccel.isa.dtypes import get_dtype
    from rlaccel.machines.maddpg.tlm import streams
    dt = get_dtype("fp32")
    relu = streams.ACTIVATIONS.index("relu")
    b = SimpleNamespace(ops={"act": relu}, dt=dt, counter=None)
    y = (np.random.default_rng(3).standard_normal(4096) * 1e30).astype(np.float32)
    y[:10] = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.4e38, -3.4e38]
    got, want = streams._activate(b, y), dt.activate("relu", y)
    assert got.dtype == want.dtype and np.array_equal(got.view(np.uint32), want.view(np.uint32))


def _wide_layers(learners, huge: bool):
    """Layers 16 wide (one compiled pass over the memory, the bias, ReLU or mask on the way),
    an odd batch, an in-place layer (its rows written over its inputs); ``huge`` weights
    overflow some results. Returns the rows written and the saturations counted."""
    rng = np.random.default_rng(11)
    Bo, n = 5, 16
    X, O, D, W, b, W2 = (rng.normal(size=s).astype(np.float32)
                         for s in ((Bo, 9), (Bo, 3), (Bo, n), (n, 6), (n,), (n, n)))
    if huge:
        W[rng.random(W.shape) < 0.2] = 3e38
        W2[rng.random(W2.shape) < 0.2] = -3e38
    prog = f""".data
X: .values {values(X)}
O: .values {values(O)}
D: .values {values(D)}
H: .zero {Bo * 17}
HO: .zero {Bo * n}
E: .zero {Bo * n}
.synapse
L1: .values {values(W)}, {values(b)}
L2: .values {values(W2)}, {values(np.zeros(n))}
.text
        cucfg u=0, f=4
        cucfg u=1, f=4
        cucfg u=2, f=4
        cucfg u=3, f=4
        pfp  u=0, a=X + 2, sa=9, syn=L1, dst=H, sd=17, rows={n}, cols=6, act=relu, batch={Bo}
        pfpo u=1, a=X + 2, sa=9, b=O, sb=3, syn=L1, dst=HO, sd={n}, rows={n}, cols=6, off=2, len=3, batch={Bo}
        pbp  u=2, a=D, sa={n}, b=H, sb=17, syn=L2, dst=E, sd={n}, rows={n}, cols={n}, off=0, len={n}, act=relu, batch={Bo}
        uwait
        pfp  u=3, a=D, sa={n}, syn=L2, dst=D, sd={n}, rows={n}, cols={n}, act=relu, batch={Bo}
        uwait
        cc.halt
"""
    p = learners(prog)
    p.run()
    return [view(p, s) for s in ("H", "HO", "E", "D")], p.agents[0].saturations.saturations


@pytest.mark.parametrize("huge", [False, True])
def test_wide_layers_in_one_pass_are_the_separate_steps(learners, monkeypatch, huge):
    """Results and saturation counts of the compiled pass equal the separate steps'
    (kernels, the count, the activation, the write); results equal the unit models'."""
    from rlaccel.machines.maddpg.tlm import kernels
    got, sat = _wide_layers(learners, huge)
    monkeypatch.setattr(kernels, "HAVE_NUMBA", False)
    want, want_sat = _wide_layers(learners, huge)
    for g, w in zip(got, want):
        _same(g, w)
    assert sat == want_sat and (sat > 0) == huge
