"""The ADHDP hosts of a batch (``rlaccel run ... --seeds``), answered together.

:class:`AdhdpBatchHosts` is the batch host (:class:`rlaccel.tlm.fast.batch.MemberHosts`'
interface) of members whose plant is the cart-pole (``rlaccel/CartPoleADP-v0``): the running
members' plants are stepped in one compiled call, :func:`cartpole_exchange`
(``exchange_into``: each action read from the member's memory, its plant stepped by
:func:`_step`, its reply packed and quantized into its memory), a twin of
:class:`~rlaccel.machines.adhdp.envs.cartpole_adp.CartPoleADPEnv`'s ``step`` (the same
floating-point operations in the same order, ``math.sin``/``math.cos`` of the C library, RK4
as :func:`~rlaccel.programs.envs.rk4.rk4_step`). Each member keeps its own
:class:`~rlaccel.machines.adhdp.host.Trials`: trial starts (the environment's own ``reset``
with its own random stream) and the end of the run go through it, and it receives every
trial the compiled call ended, so its ``learning()`` is the single run's.
``tests/machines/adhdp/test_batch.py`` checks the twin against the environment and batch
members against single runs.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from rlaccel.util.errors import RlaccelError
from rlaccel.tlm.fast import fixedpoint as fx
from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.automaton import run_round
from rlaccel.tlm.fast.batch import (H_BUSY, H_DEPTH, H_INP, H_LATENCY, H_NIN, H_OUT, H_PC,
                                    retire_hosts)
from rlaccel.tlm.fast.jit import njit
from rlaccel.tlm.fast.native import call_clock, clock_address

from rlaccel.machines.adhdp.host import REPLY_FIELDS

__all__ = ["AdhdpBatchHosts", "Plants", "batch_hosts", "cartpole_steps", "cartpole_exchange",
           "cartpole_rounds", "cartpole_params"]

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
    """What the compiled exchanges read and write, owned by :class:`AdhdpBatchHosts`: per
    member its plant's state ``S`` (theta, theta dot, x, x dot) and parameters ``P``
    (:func:`cartpole_params`), the steps of its trial ``t``, whether it is ``running``, its
    ``max_steps``, learning-rate schedule ``LR`` (critic, actor, decay, threshold, floor)
    and ``lr_every``, its observation ``scale``; the reply's offsets ``OFF`` (R, TERM, LRC,
    LRA, then X's offset and length); the trials ended (``rec[b, :nrec[b]]``: steps, failed)
    until Python hands them over; the quantizer's ``lsb`` and constants ``K`` (empty for
    float64); scratch ``done``, ``words``, ``raw``; the environment's ``calls`` and
    ``seconds`` per member, the monotonic clock's address ``clock`` (0: none) with its
    scratch ``ts``; ``res``: what :func:`cartpole_rounds` reports (rounds run, saturations,
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


@njit
def _now(clock, ts):
    """Nanoseconds of the monotonic clock (``time.perf_counter``'s), 0 without one."""
    if clock == 0:
        return np.int64(0)
    call_clock(clock, 1, np.int64(ts.ctypes.data))
    return ts[0] * np.int64(1000000000) + ts[1]


@njit
def cartpole_rounds(s, mem, live, c):
    """Whole rounds of a batch in one compiled call (``s``: the batch's
    :class:`~rlaccel.tlm.fast.batch.State`, ``mem`` its members'
    :class:`~rlaccel.tlm.fast.batch.Memories`, ``live`` its running members, ``c`` the
    :class:`Plants`): each round the members advance
    (:func:`rlaccel.tlm.fast.automaton.run_round`), and while every live member waits at
    the one ``cc.host`` of ``s.host`` in a running trial with a finite action, their
    exchanges are answered (:func:`cartpole_exchange`, timed per member) and retired
    (:func:`rlaccel.tlm.fast.batch.retire_hosts`) here. The first round that needs anything
    else is left as :func:`~rlaccel.tlm.fast.automaton.run_round` left it, for the batch to
    finish. ``c.res``: rounds run, the quantizer's saturations, and 1 if a member reached
    its instruction limit at a host exchange (the round then finished but for that)."""
    rounds = 0
    qsats = 0
    res = c.res
    res[2] = 0
    h = s.host
    pc, lo, inp, nin = h[H_PC], h[H_OUT], h[H_INP], h[H_NIN]
    busy, latency, depth = h[H_BUSY], h[H_LATENCY], h[H_DEPTH]
    ST, Us, at_host, out = s.loop.ST, mem.U, s.at_host, s.out
    lsb, running = c.lsb, c.running
    fixed = len(c.K) > 0
    while True:
        run_round(s, mem, live)
        rounds += 1
        nh = out[0]
        if out[1] != 0 or nh == 0:
            break
        ok = True
        for i in range(nh):
            b = at_host[i]
            if ST[b, I.S_PC] != pc or not running[b]:
                ok = False
                break
            u = np.float64(Us[b][lo]) * lsb if fixed else np.float64(Us[b][lo])
            if not np.isfinite(u):
                ok = False
                break
        if not ok:
            break
        members = at_host[:nh]
        t0 = _now(c.clock, c.ts)
        qsats += cartpole_exchange(members, Us, lo, inp, nin, c)
        share = (_now(c.clock, c.ts) - t0) * 1e-9 / nh
        for i in range(nh):
            b = members[i]
            c.calls[b] += 1
            c.seconds[b] += share
            s.host_counts[b] += 1
        if retire_hosts(s, members, busy, latency, depth) == I.R_LIMIT:
            res[2] = 1
            break
    res[0] = rounds
    res[1] = qsats


def batch_hosts(runs, dt):
    """The batch host of members' plugin runs (their ``state`` a Trials, their ``hosts`` an
    AdhdpHost), or None when their plant has no compiled twin."""
    from rlaccel.machines.adhdp.envs.cartpole_adp import CartPoleADPEnv
    if not all(type(r.state.env) is CartPoleADPEnv for r in runs):
        return None
    return AdhdpBatchHosts(runs, dt)


class AdhdpBatchHosts:
    """See the module docstring."""

    def __init__(self, runs, dt):
        self.trials = [r.state for r in runs]
        self.hosts = [r.hosts for r in runs]
        self.dt = dt
        n = len(runs)
        self.S = np.zeros((n, 4))
        self.P = np.stack([cartpole_params(t.env) for t in self.trials])
        cfg = [t.cfg for t in self.trials]
        self.t = np.zeros(n, dtype=np.int64)
        self.running = np.zeros(n, dtype=bool)
        self.max_steps = np.array([c.max_steps for c in cfg], dtype=np.int64)
        self.lr = {k: np.array([getattr(c, k) for c in cfg], dtype=np.float64)
                   for k in ("lr_critic", "lr_actor", "lr_decay", "lr_threshold", "lr_floor")}
        self.lr_every = np.array([c.lr_every for c in cfg], dtype=np.int64)
        self.scale = np.stack([t.scale for t in self.trials])
        h0 = self.hosts[0]
        self.offsets = h0.offsets
        self.nin = h0.nin
        self._term = np.zeros(n, dtype=np.int64)
        self.calls = np.zeros(n, dtype=np.int64)
        self.seconds = np.zeros(n)
        self.K = None if dt.is_float else fx.constants(dt)
        # what exchange_into reads: the schedule per member, the reply's offsets, the trials
        # it ended (steps, failed) until they are handed to each member's Trials
        self.LR = np.stack([self.lr[k] for k in ("lr_critic", "lr_actor", "lr_decay",
                                                 "lr_threshold", "lr_floor")], axis=1)
        o = self.offsets
        self.OFF = np.array([o["R"][0], o["TERM"][0], o["LRC"][0], o["LRA"][0], *o["X"]],
                            dtype=np.int64)
        self.rec = np.zeros((n, max(c.trials for c in cfg) + 1, 2), dtype=np.int64)
        self.nrec = np.zeros(n, dtype=np.int64)
        self._lsb = 1.0 if dt.is_float else float(dt.lsb)
        self._Kq = np.zeros(0, dtype=np.int64) if self.K is None else self.K
        self._words = np.zeros(self.nin)
        self._raw = np.zeros(self.nin, dtype=np.int64)
        self._done = np.zeros(n, dtype=np.int64)
        self._res = np.zeros(3, dtype=np.int64)
        self._clock = clock_address()
        self._ts = np.zeros(2, dtype=np.int64)
        self.plants = Plants(S=self.S, P=self.P, t=self.t, running=self.running,
                             max_steps=self.max_steps, LR=self.LR, lr_every=self.lr_every,
                             scale=self.scale, OFF=self.OFF, rec=self.rec, nrec=self.nrec,
                             lsb=self._lsb, K=self._Kq, done=self._done, words=self._words,
                             raw=self._raw, calls=self.calls, seconds=self.seconds,
                             clock=self._clock, ts=self._ts, res=self._res)

    def _hand_over(self, members) -> None:
        """The trials exchange_into ended, into the members' Trials (before Python asks
        them anything)."""
        for b in members:
            k = int(self.nrec[b])
            if k:
                tr = self.trials[b]
                for steps, failed in self.rec[b, :k].tolist():
                    tr.steps.append(int(steps))
                    tr.failed.append(bool(failed))
                tr.running = bool(self.running[b])
                self.nrec[b] = 0

    def exchange_into(self, members: np.ndarray, Us, lo: int, nout: int, inp: int,
                      nin: int) -> np.ndarray:
        """The running members' exchanges in one compiled call (:func:`cartpole_exchange`),
        their replies written into their memories ``Us``; returns which members were
        answered (the others -- trial starts, the end of the run, a non-finite action -- go
        through :meth:`exchange`)."""
        if nin != self.nin:
            raise RlaccelError(f"host link: the program expects {nin} reply words, the "
                               f"ADHDP host answers {self.nin}")
        t0 = time.perf_counter()
        k = len(members)
        done = self._done[:k]
        sats = cartpole_exchange(members, Us, lo, inp, nin, self.plants)
        if sats:
            self.dt.saturations += sats
        answered = done.astype(bool)
        idx = members[answered]
        if len(idx):
            self.calls[idx] += 1
            self.seconds[idx] += (time.perf_counter() - t0) / len(idx)
        return answered

    def rounds(self, state, memories, live) -> bool:
        """Whole rounds in one compiled call (:func:`cartpole_rounds`; ``state``: the batch's
        :class:`~rlaccel.tlm.fast.batch.State`, ``memories`` its members'
        :class:`~rlaccel.tlm.fast.batch.Memories`, ``live`` its running members); returns
        True if a member reached its instruction limit at a host exchange."""
        nin = int(state.host[H_NIN])
        if nin != self.nin:
            raise RlaccelError(f"host link: the program expects {nin} reply words, the "
                               f"ADHDP host answers {self.nin}")
        res = self._res
        cartpole_rounds(state, memories, live, self.plants)
        if res[1]:
            self.dt.saturations += int(res[1])
        return bool(res[2])

    def _lr(self, l0, idx):
        v = l0[idx] - self.lr["lr_decay"][idx] * (self.t[idx] // self.lr_every[idx])
        return np.where(v < self.lr["lr_threshold"][idx], self.lr["lr_floor"][idx], v)

    def exchange(self, members, outs: np.ndarray, nin: int) -> np.ndarray:
        t0 = time.perf_counter()
        idx = np.asarray(members, dtype=np.int64)
        self._hand_over(idx.tolist())
        u = self.dt.to_float(outs[:, 0]).astype(np.float64)
        words = np.zeros((len(idx), self.nin))
        run = self.running[idx]
        for i in np.flatnonzero(~run).tolist():        # trial starts and the end: Trials
            b = int(idx[i])
            tr = self.trials[b]
            rep = tr.reply(float(u[i]))
            if tr.running:
                self.S[b] = tr.obs
                self.t[b] = 0
                self.running[b] = True
            for name, (off, k) in self.offsets.items():
                words[i, off:off + k] = rep[name]
        step = np.flatnonzero(run)
        if len(step):
            bs = idx[step]
            us = u[step]
            bad = np.flatnonzero(~np.isfinite(us))
            if len(bad):
                b = int(bs[bad[0]])
                raise RlaccelError(
                    f"the action is not finite ({us[bad[0]]}) at step {self.t[b] + 1} of trial "
                    f"{len(self.trials[b].steps) + 1}: the networks diverged (try smaller "
                    f"learning rates or a fixed-point architecture, which saturates)")
            term = self._term[:len(step)]
            cartpole_steps(self.S, us, bs, self.P, term)
            self.t[bs] += 1
            ended = (term == 1) | (self.t[bs] >= self.max_steps[bs])
            for j in np.flatnonzero(ended).tolist():
                b = int(bs[j])
                tr = self.trials[b]
                tr.steps.append(int(self.t[b]))
                tr.failed.append(bool(term[j]))
                tr.running = False
                self.running[b] = False
            o = self.offsets
            rows = step
            words[rows, o["R"][0]] = np.where(term == 1, -1.0, 0.0)
            words[rows, o["TERM"][0]] = term.astype(np.float64)
            words[rows, o["LRC"][0]] = self._lr(self.lr["lr_critic"], bs)
            words[rows, o["LRA"][0]] = self._lr(self.lr["lr_actor"], bs)
            off, k = o["X"]
            words[rows, off:off + k] = self.S[bs] / self.scale[bs]
        if self.K is None:
            raw = self.dt.quantize(words)
        else:                                            # FixedType.quantize, compiled
            raw = np.empty(words.shape, dtype=np.int64)
            sats = fx.quantize(words, raw, self.K, 0)
            self.dt.saturations += sats
        self.calls[idx] += 1
        self.seconds[idx] += (time.perf_counter() - t0) / len(idx)
        return raw

    def close(self) -> None:
        """Leave every member's Trials and host time line as its own run would."""
        self._hand_over(range(len(self.trials)))
        for b, tr in enumerate(self.trials):
            tr.t = int(self.t[b])
            if self.running[b]:
                tr.obs = self.S[b].copy()
            tl = self.hosts[b].timeline
            if self.calls[b]:
                tl.seconds["environment"] = tl.seconds.get("environment", 0.0) + self.seconds[b]
                tl.calls["environment"] = tl.calls.get("environment", 0) + int(self.calls[b])
        self.calls[:] = 0
        self.seconds[:] = 0.0


_ = REPLY_FIELDS
