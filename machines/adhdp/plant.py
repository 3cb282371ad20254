"""A single run's cart-pole exchanges answered by the batch's compiled plant.

:class:`CompiledPlant` lets :class:`~rlaccel.machines.adhdp.host.AdhdpHost` answer the
exchanges of a running trial with one compiled call, :func:`~.batch.cartpole_exchange` (the
twin of ``CartPoleADPEnv.step``, the reply packed and quantized as
:meth:`~.host.Trials.reply` and the host's ``dt.quantize`` do), for one member: the plant's
state lives in the compiled call's arrays while a trial runs; trial starts, the end of the
run and a non-finite action go through :class:`~.host.Trials` as before. The trials'
bookkeeping (step count, finished trials, the last observation) follows every call, the
environment's own state is written back when a trial ends and before a checkpoint
(:meth:`sync`). ``tests/machines/adhdp/test_plant.py`` checks runs with and without it.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["CompiledPlant", "compiled_plant"]


def compiled_plant(trials, host, dt):
    """The compiled plant of a single run (``trials``: its Trials, ``host``: its AdhdpHost,
    ``dt``: the chip's number format), or None where it would not be the host's twin: numba
    absent or disabled, a plant other than the cart-pole, or a number format whose reply is
    not the float64 words or a fixed-point quantization of them."""
    from rlaccel.tlm.fast.jit import HAVE_NUMBA
    from rlaccel.machines.adhdp.envs.cartpole_adp import CartPoleADPEnv
    if not HAVE_NUMBA or type(trials.env) is not CartPoleADPEnv:
        return None
    if dt.is_float and dt.name != "float64":
        return None
    return CompiledPlant(trials, host, dt)


class _Member:
    """What :class:`~.batch.AdhdpBatchHosts` reads of a member's run."""

    def __init__(self, state, hosts):
        self.state, self.hosts = state, hosts


class CompiledPlant:
    """See the module docstring."""

    def __init__(self, trials, host, dt):
        from rlaccel.machines.adhdp.batch import AdhdpBatchHosts, cartpole_exchange
        self._exchange = cartpole_exchange
        self.trials, self.dt = trials, dt
        self.batch = AdhdpBatchHosts([_Member(trials, host)], dt)
        self.plants = self.batch.plants
        self.nin = host.nin
        # the member's memory as the compiled exchange sees it: its action at 0, the reply
        # from 1 (raw words: int64 for a fixed-point format, float64 values otherwise)
        self.mem = np.zeros((1, 1 + self.nin), dtype=np.float64 if dt.is_float else np.int64)
        self.members = np.zeros(1, dtype=np.int64)
        if trials.running:                     # a run resumed from a checkpoint
            self.begin()

    def begin(self) -> None:
        """A trial has just started (:meth:`~.host.Trials.reply`): its plant state into the
        compiled call's arrays."""
        tr, p = self.trials, self.plants
        p.S[0] = tr.obs
        p.t[0] = tr.t
        p.running[0] = tr.running

    def finite(self, raw_u) -> bool:
        """Whether the chip's raw action word is a finite action (a fixed-point word always
        is)."""
        return not self.dt.is_float or math.isfinite(raw_u)

    def answer(self, raw_u) -> np.ndarray:
        """The reply to action ``raw_u`` (the chip's raw word) of a running trial whose action
        is finite (:meth:`finite`), in one compiled call; the trials' bookkeeping follows it
        (their step count at the end of a trial and at :meth:`sync`)."""
        p = self.plants
        mem = self.mem
        mem[0, 0] = raw_u
        sats = self._exchange(self.members, mem, 0, 1, self.nin, p)
        if sats:
            self.dt.saturations += sats
        if p.nrec[0]:                          # the trial ended: as Trials.reply records it
            tr = self.trials
            steps, failed = p.rec[0, 0].tolist()
            p.nrec[0] = 0
            tr.steps.append(int(steps))
            tr.failed.append(bool(failed))
            tr.running = False
            self.sync()
        return mem[0, 1:].copy()

    def sync(self) -> None:
        """The plant's state back into the trials and the environment (the step count, the
        last observation, ``env``'s own state): where a trial ended or a checkpoint is
        taken."""
        tr = self.trials
        if tr.obs is not None:
            tr.t = int(self.plants.t[0])
            tr.obs = self.plants.S[0].copy()
            tr.env._state = self.plants.S[0].copy()
