"""The ADHDP hosts of a batch (``rlaccel run ... --seeds``), answered together.

:class:`AdhdpBatchHosts` is the batch host (:class:`rlaccel.tlm.fast.batch.MemberHosts`'
interface) of members whose plant is the cart-pole (``rlaccel/CartPoleADP-v0``): the running
members' plants are stepped in one compiled call, the cart-pole's compiled twin
:func:`~.plant.cartpole_exchange` (``exchange_into``; :func:`cartpole_rounds` answers whole
rounds of the batch in compiled code with it). Each member keeps its own
:class:`~rlaccel.machines.adhdp.host.Trials`: trial starts (the environment's own ``reset``
with its own random stream) and the end of the run go through it, and it receives every
trial the compiled call ended, so its ``learning()`` is the single run's.
``tests/machines/adhdp/test_batch.py`` checks the twin against the environment and batch
members against single runs.
"""

from __future__ import annotations

import time

import numpy as np

from rlaccel.util.errors import RlaccelError
from rlaccel.tlm.fast import fixedpoint as fx
from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.automaton import run_round
from rlaccel.tlm.fast.batch import (H_BUSY, H_DEPTH, H_INP, H_LATENCY, H_NIN, H_OUT, H_PC,
                                    retire_hosts)
from rlaccel.tlm.fast.jit import njit
from rlaccel.tlm.fast.native import call_clock

from rlaccel.machines.adhdp.plant import (LR_COLUMNS, Plants, cartpole_exchange,
                                          cartpole_params, cartpole_steps, make_plants)

__all__ = ["AdhdpBatchHosts", "Plants", "batch_hosts", "cartpole_steps", "cartpole_exchange",
           "cartpole_rounds", "cartpole_params"]


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
        h0 = self.hosts[0]
        self.offsets = h0.offsets
        self.nin = h0.nin
        # what exchange_into reads (make_plants): the plants, the schedule per member, the
        # reply's offsets, the trials it ended (steps, failed) until they are handed to each
        # member's Trials
        self.plants = p = make_plants(self.trials, self.offsets, self.nin, dt)
        self.S, self.P, self.t, self.running = p.S, p.P, p.t, p.running
        self.max_steps, self.LR, self.lr_every, self.scale = (p.max_steps, p.LR, p.lr_every,
                                                              p.scale)
        self.OFF, self.rec, self.nrec = p.OFF, p.rec, p.nrec
        self.calls, self.seconds = p.calls, p.seconds
        self._done, self._res = p.done, p.res
        self.lr = {k: p.LR[:, i] for i, k in enumerate(LR_COLUMNS)}
        self.K = None if dt.is_float else p.K
        self._term = np.zeros(len(runs), dtype=np.int64)

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

