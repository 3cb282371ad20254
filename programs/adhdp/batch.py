"""The ADHDP hosts of a batch (``rlaccel run ... --seeds``), answered together.

:class:`AdhdpBatchHosts` is the batch host (:class:`rlaccel.tlm.fast.batch.MemberHosts`'
interface) of members whose plant is the cart-pole (``rlaccel/CartPoleADP-v0``): the running
members' plants are stepped at once by :func:`cartpole_steps`, a compiled twin of
:class:`~rlaccel.programs.envs.cartpole_adp.CartPoleADPEnv`'s ``step`` (the same
floating-point operations in the same order, ``math.sin``/``math.cos`` of the C library, RK4
as :func:`~rlaccel.programs.envs.rk4.rk4_step`), and their replies are packed and quantized
as arrays. Each member keeps its own :class:`~rlaccel.programs.adhdp.host.Trials`: trial
starts (the environment's own ``reset`` with its own random stream) and the end of the run go
through it, and it holds every finished trial, so its ``learning()`` is the single run's.
``tests/programs/adhdp/test_batch.py`` checks the twin against the environment and batch
members against single runs.
"""

from __future__ import annotations

import math
import time

import numpy as np

from rlaccel.isa.errors import RlaccelError
from rlaccel.tlm.fast import fixedpoint as fx
from rlaccel.tlm.fast.jit import njit

from .host import REPLY_FIELDS

__all__ = ["AdhdpBatchHosts", "batch_hosts", "cartpole_steps", "cartpole_params"]

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


@njit
def cartpole_steps(S, actions, members, P, terminated):
    """Step the plant of each member of ``members`` (rows of ``S``, parameters ``P``) under
    its action (CartPoleADPEnv.step: clip to [-1, 1], force, RK4 over the period, failure);
    ``terminated[i]`` is 1 when member i failed."""
    for i in range(len(members)):
        b = members[i]
        p = P[b]
        a = actions[i]
        a = a if a > -1.0 else -1.0                  # min(1.0, max(-1.0, a))
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
        terminated[i] = 1 if (abs(y0) > p[_THLIM] or abs(y2) > p[_XLIM]) else 0


def batch_hosts(runs, dt):
    """The batch host of members' plugin runs (their ``state`` a Trials, their ``hosts`` an
    AdhdpHost), or None when their plant has no compiled twin."""
    from rlaccel.programs.envs.cartpole_adp import CartPoleADPEnv
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

    def _lr(self, l0, idx):
        v = l0[idx] - self.lr["lr_decay"][idx] * (self.t[idx] // self.lr_every[idx])
        return np.where(v < self.lr["lr_threshold"][idx], self.lr["lr_floor"][idx], v)

    def exchange(self, members, outs: np.ndarray, nin: int) -> np.ndarray:
        t0 = time.perf_counter()
        idx = np.asarray(members, dtype=np.int64)
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
