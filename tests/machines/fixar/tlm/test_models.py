"""The ddpg family's instructions on the simulated FIXAR: what each writes (against plain
Python ints and the unit models), what each costs (hand-computed from section V-B's
dataflow), and the clear errors of programs the machine cannot run."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import SimError
from rlaccel.machines.fixar.tlm import activation
from rlaccel.machines.fixar.tlm.adam import AdamHyper, adam_fixed, constants
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
from rlaccel.machines.fixar.tlm.qat import operand, qat_params, quantize_raw
from rlaccel.machines.fixar.tlm.soft_update import soft_update_fixed, tau_raw
from rlaccel.machines.fixar.tlm.state import formats
from rlaccel.tlm.platform import Platform

from tests.machines.fixar.tlm.conftest import python_matmul_round

ACC = get_dtype("fixed32")
LO, HI = int(ACC.min_raw), int(ACC.max_raw)
#: fixar.toml's weight and gradient formats (the accumulator is ACC)
FMT = formats(load_arch("fixar"))
WGT, WF = FMT.weight, FMT.weight.frac_bits


def _words(a) -> str:
    return ", ".join(str(int(v)) for v in np.asarray(a).ravel())


def _run(data: str, synapse: str, text: str, arch: str = "fixar") -> tuple[Platform, object]:
    src = (f".arch \"{arch}\"\n.data\n{data}\n.synapse\n{synapse}\nPAD: .zero 1\n.text\n{text}\n"
           f"        cc.halt\n")
    asm = assemble(src, "t.s")
    p = Platform(load_arch(arch), asm.binary, kernels="reference")
    return p, asm.binary


def _mem(p, binary, name, n):
    s = binary.symbol(name)
    space = "unified" if s.space == "data" else s.space
    return p.agents[0].memory(space)[s.address:s.address + n].copy()


def _poke(p, binary, name, values):
    s = binary.symbol(name)
    space = "unified" if s.space == "data" else s.space
    v = np.asarray(values, np.int64).ravel()
    p.agents[0].memory(space)[s.address:s.address + len(v)] = v


def _cycles(p, pc):
    c = p.agents[0].controller
    return int(c.cycles_at[pc]) - int(c.stall_at[pc])


def _layer(rng, B, P, Q, big=False):
    lim = (1 << 31) - 1 if big else 1 << 18
    X = rng.integers(-lim, lim, size=(B, Q), endpoint=True)
    W = rng.integers(-lim, lim, size=(P, Q), endpoint=True)
    b = rng.integers(-lim, lim, size=P, endpoint=True)
    return X, W, b


@pytest.mark.parametrize("big", [False, True])
def test_bff_is_exact_with_strides_and_its_cycles(big):
    """bff over strided rows equals the Python-int sum with the bias at the products' binary
    point, one rounding, ReLU; it costs B * ceil(P/16) * ceil(ceil(Q/16)/2) cycles on both
    cores (full-range operands exercise the limb path)."""
    rng = np.random.default_rng(5)
    B, P, Q, stride = 5, 40, 23, 30
    X, W, b = _layer(rng, B, P, Q, big)
    p, bin_ = _run(f"X: .zero {B * stride}\nY: .zero {B * P}", f"L: .zero {P * Q + P}",
                   f"        bff src=X, sstride={stride}, syn=L, dst=Y, dstride={P}, rows={P}, "
                   f"cols={Q}, batch={B}, act=relu")
    rows = np.zeros((B, stride), np.int64)
    rows[:, :Q] = X
    _poke(p, bin_, "X", rows)
    _poke(p, bin_, "L", np.concatenate([W.ravel(), b]))
    p.run()
    want = np.maximum(python_matmul_round(X, W.T, WF, LO, HI, addend=b << 16), 0)
    assert np.array_equal(_mem(p, bin_, "Y", B * P).reshape(B, P), want)
    assert _cycles(p, 0) == 5 * 3 * 1
    busy = p.agents[0].controller.dynamic_busy
    assert busy["aap0"] == busy["aap1"] == 15


def test_bbp_window_mask_and_intra_batch_cycles():
    """bbp with off takes the last cols columns of a rows x (off+cols) matrix; the ReLU mask
    is the stored layer input; cores split the batch: ceil(5/2) = 3 vectors on core 0, 2 on
    core 1, each ceil(cols/16) * ceil(rows/16) tiles."""
    rng = np.random.default_rng(6)
    B, P, off, cols = 5, 40, 17, 6
    Q = off + cols
    E = rng.integers(-(1 << 20), 1 << 20, size=(B, P))
    W = rng.integers(-(1 << 20), 1 << 20, size=(P, Q))
    M = rng.integers(-3, 3, size=(B, cols))
    p, bin_ = _run(f"E: .zero {B * P}\nM: .zero {B * cols}\nD: .zero {B * cols}",
                   f"L: .zero {P * Q}",
                   f"        bbp err=E, estride={P}, syn=L, dst=D, dstride={cols}, rows={P}, "
                   f"cols={cols}, off={off}, batch={B}, act=relu, mask=M, mstride={cols}")
    _poke(p, bin_, "E", E)
    _poke(p, bin_, "M", M)
    _poke(p, bin_, "L", W)
    p.run()
    d = python_matmul_round(E, W[:, off:], WF, LO, HI)
    assert np.array_equal(_mem(p, bin_, "D", B * cols).reshape(B, cols), np.where(M > 0, d, 0))
    busy = p.agents[0].controller.dynamic_busy
    assert (busy["aap0"], busy["aap1"]) == (3 * 1 * 3, 2 * 1 * 3)
    assert _cycles(p, 0) == 9


def test_bwg_gradient_bias_and_half_precision_after_freeze():
    """bwg writes G = E^T X (one rounding) then the bias gradient sum_b E; after qat.freeze
    it reads the monitored input as Algorithm 1's codes and its tiles cover 32 inputs."""
    rng = np.random.default_rng(7)
    B, P, Q = 4, 20, 40
    X = rng.integers(0, 5 << 16, size=(B, Q))
    E = rng.integers(-(1 << 16), 1 << 16, size=(B, P))
    W = rng.integers(-(1 << 14), 1 << 14, size=(P, Q))
    p, bin_ = _run(f"X: .zero {B * Q}\nE: .zero {B * P}\nY: .zero {B * P}",
                   f"L: .zero {P * Q + P}\nG: .zero {P * Q + P}",
                   f"        bff src=X, sstride={Q}, syn=L, dst=Y, dstride={P}, rows={P}, "
                   f"cols={Q}, batch={B}, qid=1, mon=1\n"
                   f"        qat.freeze bits=16\n"
                   f"        bwg err=E, estride={P}, x=X, xstride={Q}, grad=G, rows={P}, "
                   f"cols={Q}, batch={B}, qid=1")
    _poke(p, bin_, "X", X)
    _poke(p, bin_, "E", E)
    _poke(p, bin_, "L", np.concatenate([W.ravel(), np.zeros(P, np.int64)]))
    p.run()
    prm = qat_params(X.min() * ACC.lsb, X.max() * ACC.lsb, 16)
    x, fx = operand(quantize_raw(X, 16, prm), prm)
    g = _mem(p, bin_, "G", P * Q + P)
    assert np.array_equal(g[:P * Q].reshape(P, Q), python_matmul_round(E.T, x, fx, LO, HI))
    assert np.array_equal(g[P * Q:], E.sum(axis=0))
    # ceil(B/2) vectors a core, ceil(20/16) = 2 output blocks, ceil(40/32) = 2 input blocks
    assert _cycles(p, 2) == 2 * 2 * 2
    # the forward before the freeze: 4 vectors, 2 blocks of 16 outputs, ceil(3/2) = 2
    assert _cycles(p, 0) == 4 * 2 * 2


def test_adam_and_soft_update_match_the_units():
    """adam reads float32 constants and moments (bit patterns in memory) and equals
    adam_fixed; soft equals soft_update_fixed with tau as its 24-bit register."""
    rng = np.random.default_rng(8)
    n = 37
    w = rng.integers(-(1 << 17), 1 << 17, size=n)
    g = rng.integers(-(1 << 15), 1 << 15, size=n)
    m0 = rng.normal(size=n).astype(np.float32) * 1e-3
    v0 = np.abs(rng.normal(size=n)).astype(np.float32) * 1e-6
    hp = AdamHyper(lr=1e-3)
    k = constants(3, hp)
    t = rng.integers(-(1 << 17), 1 << 17, size=n)
    p, bin_ = _run("HP: .zero 7\nTAU: .zero 1",
                   f"W: .zero {n}\nGR: .zero {n}\nM: .zero {2 * n}\nT: .zero {n}",
                   f"        adam w=W, g=GR, m=M, n={n}, hp=HP\n"
                   f"        soft dst=T, src=W, n={n}, tau=TAU")
    _poke(p, bin_, "HP", k.view(np.int32))
    _poke(p, bin_, "TAU", [tau_raw(0.01)])
    _poke(p, bin_, "W", w)
    _poke(p, bin_, "GR", g)
    _poke(p, bin_, "M", np.concatenate([m0.view(np.int32), v0.view(np.int32)]))
    _poke(p, bin_, "T", t)
    p.run()
    w2, m2, v2 = adam_fixed(w, g, m0.copy(), v0.copy(), 3, hp, WGT, FMT.grad)
    assert np.array_equal(_mem(p, bin_, "W", n), w2)
    mv = _mem(p, bin_, "M", 2 * n).astype(np.int32).view(np.float32)
    assert np.array_equal(mv[:n], m2) and np.array_equal(mv[n:], v2)
    assert np.array_equal(_mem(p, bin_, "T", n), soft_update_fixed(t, w2, 0.01, WGT))
    assert _cycles(p, 0) == -(-n // 16) + 20          # ceil(n/16) + the unit's depth


def test_noise_is_the_seeded_stream_and_vector_ops():
    """rng.seed + noise draws NoiseGenerator(seed, stream)'s Gaussians; vact is the PWL
    tanh; vdact multiplies -src by the table's slope at z; td is the TD error."""
    rng = np.random.default_rng(9)
    n, B = 6, 3
    z = rng.integers(-(5 << 16), 5 << 16, size=(B, n))
    src = rng.integers(-(1 << 16), 1 << 16, size=(B, n))
    seed = (7 << 32) + 12345
    q, q2 = rng.integers(-(9 << 16), 9 << 16, size=(2, B))
    r = rng.integers(-(1 << 16), 1 << 16, size=B)
    done = np.array([0, 1 << 16, 0])
    p, bin_ = _run(f"SD: .zero 2\nSIG: .zero 1\nZ: .zero {B * n}\nS: .zero {B * n}\n"
                   f"Y: .zero {B * n}\nD: .zero {B * n}\nO: .zero {n}\nQ: .zero {B}\n"
                   f"Q2: .zero {B}\nRD: .zero {2 * B}\nE: .zero {B}",
                   "",
                   f"        rng.seed src=SD, stream=3\n"
                   f"        noise dst=O, src=Z, n={n}, sigma=SIG, stream=3\n"
                   f"        vact dst=Y, dstride={n}, src=Z, sstride={n}, cols={n}, batch={B}, "
                   f"act=tanh\n"
                   f"        vdact dst=D, dstride={n}, src=S, sstride={n}, z=Z, cols={n}, "
                   f"batch={B}, act=tanh, neg=1\n"
                   f"        td dst=E, src=Q, z=Q2, batch={B}, value=0.99")
    _poke(p, bin_, "SD", [12345, 7])
    _poke(p, bin_, "SIG", ACC.quantize([0.1]))
    _poke(p, bin_, "Z", z)
    _poke(p, bin_, "S", src)
    _poke(p, bin_, "Q", q)
    _poke(p, bin_, "Q2", q2)
    _poke(p, bin_, "RD", np.stack([r, done], axis=1))
    p.run()
    g = NoiseGenerator(seed, 3).gaussian_raw(n)
    assert np.array_equal(_mem(p, bin_, "O", n),
                          ACC.add(z[0], ACC.mul(ACC.quantize(0.1), g)))
    assert np.array_equal(_mem(p, bin_, "Y", B * n).reshape(B, n),
                          activation.activate(ACC, "tanh", z, segments=32))
    deriv = activation.derivative(ACC, "tanh", z, segments=32)
    assert np.array_equal(_mem(p, bin_, "D", B * n).reshape(B, n), ACC.mul(-src, deriv))
    y = ACC.add(r, np.where(done > 0, 0, ACC.mul(ACC.quantize(0.99), q2)))
    assert np.array_equal(_mem(p, bin_, "E", B), ACC.sub(q, y))


def test_freeze_without_monitoring_and_unseeded_noise_are_errors():
    p, _ = _run("", "", "        qat.freeze bits=16")
    with pytest.raises(SimError, match="before any activation was monitored"):
        p.run()
    p, _ = _run("X: .zero 4\nS: .zero 1", "", "        noise dst=X, src=X, n=4, sigma=S")
    with pytest.raises(SimError, match="never seeded"):
        p.run()


def test_ddpg_arithmetic_needs_q16_16():
    """The family computes in fixed32 = q16.16 only; another dtype is a clear error."""
    from rlaccel.util.errors import ArchError
    from rlaccel.programs.arch_variant import arch_variant
    path = arch_variant("fixar", {"machine.dtype": "q8.24"})
    with pytest.raises(ArchError, match="q16.16"):
        p, _ = _run("X: .zero 4\nY: .zero 4", "L: .zero 20",
                    "        bff src=X, sstride=4, syn=L, dst=Y, dstride=4, rows=4, cols=4, "
                    "batch=1", arch=str(path))
        p.run()
