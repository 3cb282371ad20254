"""Once per batch, on a compute unit's weight banks: instruction models of ``cucfg``,
``gclip``, ``wadam``, ``wsgd``, ``wsoft``, ``wld`` and ``wst``.

The paper applies a batch's gradients and moves the targets (Algorithm 1, lines 11-14) but
gives their cost only per sample (eq. 4). We let the CU that owns a layer's weight banks walk
them: ``ceil(n / F)`` cycles per pass of its ``F`` elements over ``n`` words, times the
passes of the architecture's ``[learner]`` table (Adam 4, SGD 1, clipping 2, soft update 2,
loading or storing 1). The semantics are :mod:`rlaccel.machines.maddpg.tlm.update` in fp32.
An instruction issues in one cycle; its CU stays busy for those cycles (the controller starts
it when the CU is free, and a reader of its results waits for them).
"""

from __future__ import annotations

from functools import cache
from math import ceil

import numpy as np

from rlaccel.tlm.model import DYNAMIC, Binding, Cost, InstructionModel
from rlaccel.tlm.families.base.energy import ACTIONS as WORD_ACTIONS
from rlaccel.tlm.families.base.energy import word_actions
from rlaccel.machines.maddpg.tlm.update import adam_step, clip_by_norm, sgd, soft_update
from rlaccel.machines.maddpg.tlm.learner import learner, unit_name

__all__ = ["MODELS"]

#: mnemonic -> the [learner] constant that counts its passes
_PASSES = {"gclip": "clip_passes", "wadam": "adam_passes", "wsgd": "sgd_passes",
           "wsoft": "soft_passes", "wld": "bank_passes", "wst": "bank_passes"}


def _cucfg(b: Binding):
    o, agent = b.ops, b.agent

    def run():
        learner(agent).configure(o["u"], o["f"])
    return run


#: mnemonic -> its operands in the synapse space (``n`` words each)
_BANKS = {"gclip": ("dst",), "wadam": ("dst", "src", "m", "v"), "wsgd": ("dst", "src"),
          "wsoft": ("dst", "src"), "wld": ("dst",), "wst": ("src",)}


def _apply(b: Binding):
    o, S, U, mn = b.ops, b.mem("synapse"), b.mem("unified"), b.mnemonic
    agent, counter = b.agent, b.counter
    n, k, unit = o["n"], o["k"], unit_name(o["u"])

    @cache
    def banks():                     # views made once: an agent's memories stay where they are
        return [S[o[key]:o[key] + n] for key in _BANKS[mn]]

    @cache
    def cost(f: int, passes: int) -> Cost:     # a Cost is frozen: one per unroll factor
        return Cost(1, 2, busy=((unit, passes * ceil(n / f)),))

    def run():
        L = learner(agent)
        f = L.factor(o["u"], mn)
        v = banks()
        with np.errstate(all="ignore"):
            if mn == "gclip":
                v[0][:] = clip_by_norm(v[0], float(U[k]), counter=counter)
            elif mn == "wadam":
                lr_t, b1, b2, eps = U[k:k + 4].tolist()
                v[0][:], v[2][:], v[3][:] = adam_step(*v, lr_t, b1, b2, eps, counter=counter)
            elif mn == "wsgd":
                v[0][:] = sgd(v[0], v[1], float(U[k]), counter=counter)
            elif mn == "wsoft":
                v[0][:] = soft_update(v[0], v[1], float(U[k]), counter=counter)
            elif mn == "wld":
                v[0][:] = U[k:k + n]
            else:                                              # wst
                U[k:k + n] = v[0]
        return cost(f, L.constants[_PASSES[mn]])
    return run


def _config_cost(b: Binding) -> Cost:
    return Cost(1, 1)


def _actions(b: Binding) -> dict:
    """Per execution: the element operations and the bank words of one pass sequence."""
    o, nw, mn = b.ops, b.knobs.neuron_words, b.mnemonic
    c = dict.fromkeys(WORD_ACTIONS, 0)
    rd, wr = [], []
    n = o.get("n", 0)
    if mn == "gclip":
        c.update(mac=n, mul=n, sram_read=2 * n, sram_write=n)
        rd = [(o["k"], 1)]
    elif mn == "wadam":
        c.update(mul=6 * n, add=4 * n, act=n, sram_read=4 * n, sram_write=3 * n)
        rd = [(o["k"], 4)]
    elif mn in ("wsgd", "wsoft"):
        c.update(mul=2 * n, add=n, sram_read=2 * n, sram_write=n)
        rd = [(o["k"], 1)]
    elif mn == "wld":
        c.update(sram_write=n)
        rd = [(o["k"], n)]
    elif mn == "wst":
        c.update(sram_read=n)
        wr = [(o["k"], n)]
    words = word_actions(rd, wr, nw)
    return {k: c[k] + words[k] for k in c}


MODELS = {"cucfg": InstructionModel("cucfg", "exec", _cucfg, _config_cost, _actions, "APPLY"),
          **{m: InstructionModel(m, "exec", _apply, DYNAMIC, _actions, "APPLY")
             for m in _PASSES}}
