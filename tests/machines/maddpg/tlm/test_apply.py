"""Once per batch on a compute unit's weight banks (machines/maddpg/tlm/apply.py): clipping,
Adam, SGD, the soft update, weights in and out compute what machines/maddpg/tlm/update.py
computes, and take passes x ceil(n / F) cycles on their unit."""

import numpy as np

from rlaccel.machines.maddpg.tlm.update import adam_step, clip_by_norm, sgd, soft_update

from tests.machines.maddpg.tlm.conftest import values, view

RNG = np.random.default_rng(3)
N, F = 10, 4


def _same(a, b):
    assert np.asarray(a, np.float32).tobytes() == np.asarray(b, np.float32).tobytes()


def test_updates_equal_the_unit_models(learners):
    W, G, M, V, T, S = (RNG.normal(size=N).astype(np.float32) for _ in range(6))
    V = np.abs(V)
    prog = f""".data
HP: .values 0.0031, 0.9, 0.999, 1e-8
C: .values 0.5
LR: .values 0.01
TAU: .values 0.01
IN: .values {values(W)}
OUT: .zero {N}
.synapse
W: .values {values(W)}
G: .values {values(G)}
M: .values {values(M)}
V: .values {values(V)}
W2: .values {values(W)}
T: .values {values(T)}
S: .values {values(S)}
L: .zero {N}
.text
        cucfg u=1, f={F}
        cucfg u=2, f={F}
        gclip u=1, dst=G, n={N}, k=C
        wadam u=1, dst=W, src=G, m=M, v=V, n={N}, k=HP
        wsgd  u=2, dst=W2, src=G, n={N}, k=LR
        wsoft u=2, dst=T, src=S, n={N}, k=TAU
        wld   u=2, dst=L, n={N}, k=IN
        wst   u=1, src=W, n={N}, k=OUT
        cc.halt
"""
    p = learners(prog)
    r = p.run()
    g = clip_by_norm(G, float(np.float32(0.5)))
    _same(view(p, "G"), g)
    w, m, v = adam_step(W, g, M, V, np.float32(0.0031), np.float32(0.9), np.float32(0.999),
                        np.float32(1e-8))
    _same(view(p, "W"), w)
    _same(view(p, "M"), m)
    _same(view(p, "V"), v)
    _same(view(p, "W2"), sgd(W, g, float(np.float32(0.01))))
    _same(view(p, "T"), soft_update(T, S, float(np.float32(0.01))))
    _same(view(p, "L"), W)
    _same(view(p, "OUT"), w)
    # [learner] passes: clip 2, Adam 4, SGD 1, soft 2, load and store 1; ceil(10 / 4) = 3
    busy = {k: v["busy_cycles"] for k, v in r.units.items()}
    assert busy == {"cu01": 3 * (2 + 4 + 1), "cu02": 3 * (1 + 2 + 1)}


def test_a_reader_waits_for_the_unit(learners):
    """wst reads what wadam writes: it starts when the Adam step is done (4 passes of
    ceil(10 / 4) = 3 cycles after wadam issued), on another unit."""
    prog = f""".data
HP: .values 0.01, 0.9, 0.999, 1e-8
OUT: .zero {N}
.synapse
W: .zero {N}
G: .zero {N}
M: .zero {N}
V: .zero {N}
.text
        cucfg u=1, f={F}
        cucfg u=2, f={F}
        wadam u=1, dst=W, src=G, m=M, v=V, n={N}, k=HP
        wst   u=2, src=W, n={N}, k=OUT
        cc.halt
"""
    p = learners(prog)
    p.run()
    c = p.agents[0].controller
    assert c.stall_at[3] == 12 - 1          # issued the cycle after wadam, waits the rest
