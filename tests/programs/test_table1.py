"""Table I of seed 001 (section IV-A): the input-layer operations of one time step.

The seed counts, for one time step with ``L`` iterations on an input layer of ``N_i`` inputs
and ``N_h`` hidden neurons::

                 Regular update        Virtual update
    Forward      N_i N_h L  MAC        (L-1) N_h MAC + N_i MUL + N_i N_h MAC
    Backward     N_i N_h L  MAC        (L-1) N_h ADD + N_i N_h MAC

The programs are run on ``adhdp-f64`` with the thresholds E_c = E_a = 0, so every update loop
runs exactly ``K`` = ``IC`` (critic) or ``IA`` (actor) iterations, against a stub plant that
gives one first step of a trial (forward pass only, no learning) and then ``S`` learning
steps. The MAC/MUL/ADD counts are read from the simulator: per-PC execution counts times the
actions of each instruction (``tlm.loader.Op.counts``), summed over the instructions whose
synapse operand is the input layer -- ``WC1`` for the critic (``N_i = NX + 1``,
``N_h = NHC``; only PCs before the actor loop: the critic forward pass and the backward
through ``WC1`` inside the actor loop are the actor's update, Fig. 2 lines 17-18) and
``WA1`` for the actor (``N_i = NX``, ``N_h = NHA``). Forward instructions are ``ff``,
``vu.init``, ``vu.step``; backward ones ``wu``, ``vu.commit`` and the E accumulation that
``bp_wu.vu`` on the layer above does in the same pass (its adds only: its MACs are the layer
above's; it addresses E, ``EC1``/``EA1``).

**Mapping of L.** The seed's ``L`` is the number of forward evaluations of the input layer
per time step: the program computes one forward pass when the state arrives (Fig. 2 line 8,
``vu.init`` in Fig. 7) and one after each of the ``K`` updates, so ``L = K + 1`` (the seed's
note that the table holds for ``L > 1`` matches ``K >= 1``). With this mapping the program
implements the VU column exactly (``K = L - 1`` E accumulations of ``N_h`` adds and virtual
steps of ``N_h`` MACs, one ``N_i N_h`` forward with ``N_i`` multiplies for Lambda, one
``N_i N_h`` commit) and the regular forward row exactly. **The regular backward row
differs:** the program performs one weight update per iteration, ``K = L - 1`` of them, i.e.
``N_i N_h (L - 1)`` MACs, not the seed's ``N_i N_h L`` (the seed counts a backward for each
of the ``L`` forwards; the last forward of a step is never followed by an update in Fig. 2).
The test asserts what the program implements. **The VU forward row has one more**
``N_i N_h`` than the seed's: the critic loop of Fig. 2 line 12 works on p(t-1), so ``vu.init``
evaluates p(t-1) while line 8 still evaluates p(t) for the TD target; and the actor's
``vu.init`` runs inside its loop's measured region (not at line 7, where the forward that
gives a(t) runs). The first step of each trial adds one forward pass (``N_i N_h`` MACs) and
nothing else.
"""

from pathlib import Path

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.adhdp.host import AdhdpHost
from rlaccel.tlm.platform import Platform
from rlaccel.isa.machine import machine

ROOT = machine("adhdp").programs
F64 = load_arch("adhdp-f64")
VU64 = load_arch("adhdp-vu-f64")
FORWARD = {"ff", "vu.init", "vu.step"}
BACKWARD = {"wu", "vu.commit"}
MERGED = "bp_wu.vu"           # E accumulated (adds) in the layer above's BP_WU pass
STEPS = 3                     # learning steps after the first step of the trial


class _Plant:
    """Stands in for programs.adhdp.host.Trials: one first step, then ``steps`` learning
    steps with random states, then done (the counts do not depend on the values)."""

    class cfg:
        env_id = "table1-stub"

    def __init__(self, nx: int, steps: int):
        self.scale = np.ones(nx)
        self.rng = np.random.default_rng(nx)
        self.left = steps
        self.started = False
        self.finished = False

    def reply(self, u: float) -> dict:
        first = done = 0
        if not self.started:
            self.started = first = True
        elif self.left == 0:
            self.finished = done = True
        else:
            self.left -= 1
        return {"R": 0.0, "TERM": 0.0, "FIRST": float(first), "DONE": float(done),
                "LRC": 0.01, "LRA": 0.01, "X": self.rng.uniform(-0.5, 0.5, len(self.scale))}


def _counts(fig: str, nx: int, nha: int, nhc: int, ic: int, ia: int) -> dict:
    """{(layer, 'forward'|'backward'): {mac, mul, add}} measured on the simulator."""
    src = (f".arch adhdp-f64\n.equ NX, {nx}\n.equ NHA, {nha}\n.equ NHC, {nhc}\n"
           f'.include "layout.inc"\n.include "{fig}.inc"\n')
    arch = VU64 if fig == "fig7" else F64
    a = assemble(src.replace("adhdp-f64", arch.name), f"table1_{fig}.s", include_paths=(ROOT,),
                 defines={"IC": ic, "IA": ia, "EC_TH": 0, "EA_TH": 0})
    s = Platform(arch, a.binary, AdhdpHost(_Plant(nx, STEPS), a.binary, get_dtype("float64")))
    res = s.run()
    sym = a.binary.symbol
    actor_pc = sym("actor").address
    layers = {"critic": (sym("WC1").address, sym("EC1").address, lambda pc: pc < actor_pc),
              "actor": (sym("WA1").address, sym("EA1").address, lambda pc: True)}
    out = {(lay, d): dict.fromkeys(("mac", "mul", "add"), 0)
           for lay in layers for d in ("forward", "backward")}
    for op, pp in zip(s.agent.ops, res.per_pc):
        for lay, (syn, e, where) in layers.items():
            if not where(op.pc):
                continue
            if op.mnemonic == MERGED and op.operands["syn"] == e:
                out[(lay, "backward")]["add"] += pp["count"] * op.counts["add"]
                continue
            if op.operands.get("syn") != syn:
                continue
            d = "forward" if op.mnemonic in FORWARD else \
                "backward" if op.mnemonic in BACKWARD else None
            assert d, f"unexpected {op.mnemonic} on the {lay} input layer (PC {op.pc})"
            for k in ("mac", "mul", "add"):
                out[(lay, d)][k] += pp["count"] * op.counts[k]
    return out


def table1(vu: bool, ni: int, nh: int, L: int) -> dict:
    """One time step's input-layer operations as the program implements them (see the
    module docstring: the seed's Table I, except the regular backward row's ``L - 1``)."""
    if vu:                    # + ni*nh: the second evaluation (module docstring)
        return {"forward": {"mac": (L - 1) * nh + ni * nh + ni * nh, "mul": ni, "add": 0},
                "backward": {"mac": ni * nh, "mul": 0, "add": (L - 1) * nh}}
    return {"forward": {"mac": ni * nh * L, "mul": 0, "add": 0},
            "backward": {"mac": ni * nh * (L - 1), "mul": 0, "add": 0}}


def first_step(vu: bool, ni: int, nh: int) -> dict:
    """The forward pass of a trial's first step (no learning follows it)."""
    return {"forward": {"mac": ni * nh, "mul": 0, "add": 0},
            "backward": {"mac": 0, "mul": 0, "add": 0}}


@pytest.mark.parametrize("nx,nha,nhc", [(4, 6, 6), (4, 10, 12), (8, 20, 20), (3, 5, 7)])
@pytest.mark.parametrize("vu", [False, True], ids=["regular", "virtual"])
@pytest.mark.parametrize("ic,ia", [(1, 1), (2, 5), (7, 3)])
def test_input_layer_operations_follow_table1(nx, nha, nhc, vu, ic, ia):
    """MAC/MUL/ADD of the input layers equal Table I with L = K + 1 (per learning step),
    plus one forward pass for the trial's first step."""
    got = _counts("fig7" if vu else "fig2", nx, nha, nhc, ic, ia)
    for layer, ni, nh, k in (("critic", nx + 1, nhc, ic), ("actor", nx, nha, ia)):
        per_step, first = table1(vu, ni, nh, k + 1), first_step(vu, ni, nh)
        for d in ("forward", "backward"):
            want = {op: STEPS * per_step[d][op] + first[d][op] for op in ("mac", "mul", "add")}
            assert got[(layer, d)] == want, (layer, d, ni, nh, k + 1)

