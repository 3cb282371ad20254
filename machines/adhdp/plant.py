"""The cart-pole's compiled twin, and a single run's exchanges answered by it.

:func:`cartpole_exchange` answers host exchanges of members whose plant is the cart-pole
(``rlaccel/CartPoleADP-v0``) in one compiled call: each action read from the member's memory,
its plant stepped by :func:`_step`, a twin of
:class:`~rlaccel.machines.adhdp.envs.cartpole_adp.CartPoleADPEnv`'s ``step`` (the same
floating-point operations in the same order, ``math.sin``/``math.cos`` of the C library, RK4
as :func:`~rlaccel.programs.envs.rk4.rk4_step`), its reply packed as
:meth:`~.host.Trials.reply` packs it and quantized as the chip's number format quantizes it,
into its memory. Its arrays are the :class:`Plants` (:func:`make_plants`). A batch's host
(:mod:`.batch`) answers its members with it; :class:`CompiledPlant` answers the running
trials of a single run (:class:`~.host.AdhdpHost` asks it): the plant's state lives in the
compiled call's arrays while a trial runs; trial starts, the end of the run and a non-finite
action go through :class:`~.host.Trials` as before, the trials' bookkeeping (finished
trials, step count, the last observation) follows at the end of every trial, and the
environment's own state is written back then and before a checkpoint (:meth:`CompiledPlant.sync`).
``tests/machines/adhdp/test_plant.py`` checks single runs with and without it,
``tests/machines/adhdp/test_batch.py`` the twin against the environment and batch members
against single runs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from rlaccel.tlm.fast import fixedpoint as fx
from rlaccel.tlm.fast.jit import njit
from rlaccel.tlm.fast.native import clock_address

__all__ = ["Plants", "make_plants", "cartpole_params", "cartpole_steps", "cartpole_exchange",
           "CompiledPlant", "compiled_plant", "LR_COLUMNS"]

# plant parameters per member
(_G, _MC, _M, _L, _MUC, _MUP, _FMAG, _BANG, _DT, _SUB, _THLIM, _XLIM) = range(12)


def cartpole_params(env) -> np.ndarray:
    """The parameters :func:`cartpole_steps` reads, from a CartPoleADPEnv."""
    return np.array([env.gravity, env.cart_mass, env.pole_mass, env.pole_half_length,
                     env.mu_c, env.mu_p, env.force_mag, env.force_mode == "bang-bang", env.dt,
                     env.substeps, env.theta_limit, env.x_limit], dtype=np.float64)


@njit(inline=True)
def _derivative(th, thd, xd, F, p):
    g, m, l = p[_G], p[_M], p[_L]
    mt = p[_MC] + m
    s, c = math.sin(th), math.cos(th)
    sg = 1.0 if xd > 0.0 else (-1.0 if xd < 0.0 else 0.0)
    friction_c = p[_MUC] * sg
    thdd = ((g * s + c * (-F - m * l * thd * thd * s + friction_c) / mt
             - p[_MUP] * thd / (m * l))
            / (l * (4.0 / 3.0 - m * c * c / mt)))
    xdd = (F + m * l * (thd * thd * s - thdd * c) - friction_c) / mt
    return thd, thdd, xd, xdd


@njit(inline=True)
def _step(S, b, a, p):
    """One CartPoleADPEnv.step of the plant in row ``b`` of ``S`` under action ``a`` (clip
    to [-1, 1], force, RK4 over the period); returns 1 when it failed, else 0."""
    a = a if a > -1.0 else -1.0                      # min(1.0, max(-1.0, a))
    a = a if a < 1.0 else 1.0
    if p[_BANG] != 0.0:
        F = p[_FMAG] if a >= 0.0 else -p[_FMAG]
    else:
        F = p[_FMAG] * a
    sub = int(p[_SUB])
    h = p[_DT] / sub
    half = 0.5 * h
    sixth = h / 6.0
    y0, y1, y2, y3 = S[b, 0], S[b, 1], S[b, 2], S[b, 3]
    for _ in range(sub):
        a0, a1, a2, a3 = _derivative(y0, y1, y3, F, p)
        b0, b1, b2, b3 = _derivative(y0 + half * a0, y1 + half * a1, y3 + half * a3, F, p)
        c0, c1, c2, c3 = _derivative(y0 + half * b0, y1 + half * b1, y3 + half * b3, F, p)
        d0, d1, d2, d3 = _derivative(y0 + h * c0, y1 + h * c1, y3 + h * c3, F, p)
        y0 = y0 + sixth * (a0 + 2.0 * (b0 + c0) + d0)
        y1 = y1 + sixth * (a1 + 2.0 * (b1 + c1) + d1)
        y2 = y2 + sixth * (a2 + 2.0 * (b2 + c2) + d2)
        y3 = y3 + sixth * (a3 + 2.0 * (b3 + c3) + d3)
    S[b, 0], S[b, 1], S[b, 2], S[b, 3] = y0, y1, y2, y3
    return 1 if (abs(y0) > p[_THLIM] or abs(y2) > p[_XLIM]) else 0


@njit
def cartpole_steps(S, actions, members, P, terminated):
    """Step the plant of each member of ``members`` (rows of ``S``, parameters ``P``) under
    its action (CartPoleADPEnv.step: clip to [-1, 1], force, RK4 over the period, failure);
    ``terminated[i]`` is 1 when member i failed."""
    for i in range(len(members)):
        b = members[i]
        terminated[i] = _step(S, b, actions[i], P[b])


# learning-rate columns of LR, reply offsets of OFF
(_LRC, _LRA, _DECAY, _THRESH, _FLOOR) = range(5)
(_O_R, _O_TERM, _O_LRC, _O_LRA, _O_X, _O_NX) = range(6)


@njit(inline=True)
def _lr(l0, LR, b, t, every):
    v = l0 - LR[b, _DECAY] * (t // every)               # Trials.lr
    return LR[b, _FLOOR] if v < LR[b, _THRESH] else v


class Plants(NamedTuple):
    """What the compiled exchanges read and write, made by :func:`make_plants`: per
    member its plant's state ``S`` (theta, theta dot, x, x dot) and parameters ``P``
    (:func:`cartpole_params`), the steps of its trial ``t``, whether it is ``running``, its
    ``max_steps``, learning-rate schedule ``LR`` (critic, actor, decay, threshold, floor)
    and ``lr_every``, its observation ``scale``; the reply's offsets ``OFF`` (R, TERM, LRC,
    LRA, then X's offset and length); the trials ended (``rec[b, :nrec[b]]``: steps, failed)
    until Python hands them over; the quantizer's ``lsb`` and constants ``K`` (empty for
    float64); scratch ``done``, ``words``, ``raw``; the environment's ``calls`` and
    ``seconds`` per member, the monotonic clock's address ``clock`` (0: none) with its
    scratch ``ts``; ``res``: what :func:`.batch.cartpole_rounds` reports (rounds run, saturations,
    1 if a member reached its instruction limit)."""

    S: np.ndarray
    P: np.ndarray
    t: np.ndarray
    running: np.ndarray
    max_steps: np.ndarray
    LR: np.ndarray
    lr_every: np.ndarray
    scale: np.ndarray
    OFF: np.ndarray
    rec: np.ndarray
    nrec: np.ndarray
    lsb: float
    K: np.ndarray
    done: np.ndarray
    words: np.ndarray
    raw: np.ndarray
    calls: np.ndarray
    seconds: np.ndarray
    clock: int
    ts: np.ndarray
    res: np.ndarray


@njit
def cartpole_exchange(members, Us, lo, inp, nin, c):
    """The host exchange of every member of ``members`` whose trial is running, in place
    (``c``: the :class:`Plants`): its action read from its memory ``Us[b][lo]``
    (``to_float``: times ``c.lsb``, or as it is for float64 when ``c.K`` is empty), its
    plant stepped (:func:`_step`), a trial that ends recorded in ``c.rec[b, c.nrec[b]]``
    (steps, failed), its reply (:class:`~.host.Trials`' ``_pack``: R, TERM, the learning
    rates, X over the scale; ``nin`` words from ``inp``) quantized
    (:func:`rlaccel.tlm.fast.fixedpoint.quantize`) into its memory. ``c.done[i]``: 1 if
    member i was answered (a trial start, the end of the run and a non-finite action are
    left to Python). Returns the quantizer's saturations."""
    S, P, t, running, max_steps, LR = c.S, c.P, c.t, c.running, c.max_steps, c.LR
    lr_every, scale, OFF, rec, nrec = c.lr_every, c.scale, c.OFF, c.rec, c.nrec
    lsb, K, done, words, raw = c.lsb, c.K, c.done, c.words, c.raw
    sats = 0
    fixed = len(K) > 0
    for i in range(len(members)):
        b = members[i]
        done[i] = 0
        if not running[b]:
            continue
        U = Us[b]
        u = np.float64(U[lo]) * lsb if fixed else np.float64(U[lo])
        if not np.isfinite(u):
            continue
        term = _step(S, b, u, P[b])
        t[b] += 1
        if term == 1 or t[b] >= max_steps[b]:
            k = nrec[b]
            rec[b, k, 0] = t[b]
            rec[b, k, 1] = term
            nrec[b] = k + 1
            running[b] = False
        for j in range(nin):
            words[j] = 0.0
        words[OFF[_O_R]] = -1.0 if term == 1 else 0.0
        words[OFF[_O_TERM]] = np.float64(term)
        every = lr_every[b]
        words[OFF[_O_LRC]] = _lr(LR[b, _LRC], LR, b, t[b], every)
        words[OFF[_O_LRA]] = _lr(LR[b, _LRA], LR, b, t[b], every)
        for j in range(OFF[_O_NX]):
            words[OFF[_O_X] + j] = S[b, j] / scale[b, j]
        if fixed:
            sats += fx.quantize(words[:nin], raw[:nin], K, 0)
            for j in range(nin):
                U[inp + j] = raw[j]
        else:
            for j in range(nin):
                U[inp + j] = words[j]
        done[i] = 1
    return sats


#: the columns of :class:`Plants`' ``LR``: the host's learning-rate schedule
LR_COLUMNS = ("lr_critic", "lr_actor", "lr_decay", "lr_threshold", "lr_floor")


def make_plants(trials: list, offsets: dict, nin: int, dt) -> Plants:
    """The :class:`Plants` of members whose Trials are ``trials`` (their plants reset to
    zero, no trial running), for replies of ``nin`` words laid out as ``offsets`` (the
    host's, :class:`~.host.AdhdpHost`) in the number format ``dt``."""
    n = len(trials)
    cfg = [t.cfg for t in trials]
    return Plants(
        S=np.zeros((n, 4)), P=np.stack([cartpole_params(t.env) for t in trials]),
        t=np.zeros(n, dtype=np.int64), running=np.zeros(n, dtype=bool),
        max_steps=np.array([c.max_steps for c in cfg], dtype=np.int64),
        LR=np.stack([np.array([getattr(c, k) for c in cfg], dtype=np.float64)
                     for k in LR_COLUMNS], axis=1),
        lr_every=np.array([c.lr_every for c in cfg], dtype=np.int64),
        scale=np.stack([t.scale for t in trials]),
        OFF=np.array([offsets["R"][0], offsets["TERM"][0], offsets["LRC"][0],
                      offsets["LRA"][0], *offsets["X"]], dtype=np.int64),
        rec=np.zeros((n, max(c.trials for c in cfg) + 1, 2), dtype=np.int64),
        nrec=np.zeros(n, dtype=np.int64),
        lsb=1.0 if dt.is_float else float(dt.lsb),
        K=np.zeros(0, dtype=np.int64) if dt.is_float else fx.constants(dt),
        done=np.zeros(n, dtype=np.int64), words=np.zeros(nin),
        raw=np.zeros(nin, dtype=np.int64), calls=np.zeros(n, dtype=np.int64),
        seconds=np.zeros(n), clock=clock_address(), ts=np.zeros(2, dtype=np.int64),
        res=np.zeros(3, dtype=np.int64))


def compiled_plant(trials, host, dt):
    """The compiled plant of a single run (``trials``: its Trials, ``host``: its AdhdpHost,
    ``dt``: the chip's number format), or None where it would not be the host's twin: numba
    absent or disabled, a plant other than the cart-pole (or a stand-in for Trials without
    an environment), or a number format whose reply is not the float64 words or a
    fixed-point quantization of them."""
    from rlaccel.tlm.fast.jit import HAVE_NUMBA
    from rlaccel.machines.adhdp.envs.cartpole_adp import CartPoleADPEnv
    if not HAVE_NUMBA or type(getattr(trials, "env", None)) is not CartPoleADPEnv:
        return None
    if dt.is_float and dt.name != "float64":
        return None
    return CompiledPlant(trials, host, dt)


class CompiledPlant:
    """See the module docstring."""

    def __init__(self, trials, host, dt):
        self.trials, self.dt = trials, dt
        self.plants = make_plants([trials], host.offsets, host.nin, dt)
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
        sats = cartpole_exchange(self.members, mem, 0, 1, self.nin, p)
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
