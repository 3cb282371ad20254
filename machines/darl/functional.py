"""HDQL on the accelerator's unit models (``machines/darl/tlm``), no simulator: the values and
updates the machine computes, in its number format, with none of its timing.

The same algorithm as :mod:`.reference`, step for step, but every operation is a unit's
semantics: the codebook encoder (position matrix in turns, the triangle codebook) in fixed
point or the float cos/sin in float64, the chunked regression, select, the update value and
hypervectors, the delayed update cache (an update lands on Q when its row is next marked)
and the butterfly all-reduce. The host quantizes what it writes to the kernel (state,
reward, beta, gamma) to the format, round half up. Phase B's simulator must reproduce this
learner bit for bit; the float64 reference is what it approximates
(``machines/darl/bench/reference.py --number fixed32`` compares their learning).

Per training sample ``(s, a, r, s')``, in the kernel's order: stream Q with ``a``'s mask bit
(the pending update of row ``a`` lands), ``V_Q(s)`` and ``q_pred`` (select), ``V_{Q'}(s')``
and ``q_true`` (its maximum), ``v`` (eq. 14), ``U = v (Re, Im)`` pushed to the cache and
added to the shard. At the end of a stage the caches are emptied (their updates are in the
shards), the shards are all-reduced and added to Q', and every Q becomes Q'.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.programs.manifest import ManifestError
from rlaccel.machines.darl.tlm import (Encoder, UpdateCache, butterfly_allreduce, encode_float,
                                       position_matrix, regress, select, update_hypervectors,
                                       update_value)
from rlaccel.machines.darl.tlm import kernels as _k
from rlaccel.machines.darl.tlm.printed import regress_cosine, update_value_printed
from rlaccel.machines.darl.tlm.regression import regress_rows

from rlaccel.machines.darl.config import HdqlConfig
from rlaccel.machines.darl.models import AgentModels
from rlaccel.machines.darl.replay import Batch

__all__ = ["FunctionalHdql", "CompiledHdql", "compiled_available"]


class FunctionalHdql(AgentModels):
    """The learner of :mod:`.reference` computed by the unit models in ``fmt`` (``fixed32``
    by default from ``cfg.number``, or ``float64``)."""

    def __init__(self, cfg: HdqlConfig, n_obs: int, n_actions: int, rng: np.random.Generator,
                 fmt: str | None = None):
        self.cfg = cfg
        name = get_dtype(fmt or cfg.number).name
        if name not in ("fixed32", "float64"):
            raise ManifestError(f"HDQL functional model: fixed32 or float64, not {name}")
        # the learner's arrays are always inside the format: skip the operand re-checks
        self.fmt = get_dtype(name).trusted()
        self.fixed = not self.fmt.is_float
        self.n_obs, self.n_actions, self.d = n_obs, n_actions, cfg.d
        self.P = position_matrix(n_obs, cfg.d, rng)
        self.counter = SaturationCounter()
        if self.fixed:
            self.encoder = Encoder(self.P, self.fmt)
            self.beta = self.fmt.quantize(cfg.learning_rate)
            self.gamma = self.fmt.quantize(cfg.gamma)
            zeros = np.zeros((n_actions, cfg.d), dtype=np.int64)
        else:
            self.beta, self.gamma = cfg.learning_rate, cfg.gamma
            zeros = np.zeros((n_actions, cfg.d))
        super().__init__(zeros, cfg.agents)
        self.caches = [UpdateCache(n_actions, cfg.d, self.fmt) for _ in range(cfg.agents)]
        # each iteration's update, per agent, while the shards are all-reduced every iteration
        self.each = cfg.allreduce_each_iteration
        self.deltas: list[list] = [[] for _ in range(cfg.agents)]

    # ------------------------------------------------------------------ units
    def encode(self, states) -> tuple[np.ndarray, np.ndarray]:
        """``(Re, Im)``, each (B, D) (raw in fixed point), of float states (B, N)."""
        states = np.asarray(states, dtype=np.float64)
        if not self.fixed:
            return encode_float(states, self.P)
        s = self.fmt.quantize(states, counter=self.counter)
        re, im = self.encoder.encode(s.T, counter=self.counter)
        return re.T, im.T

    def values(self, re, im, qr, qi) -> np.ndarray:
        """``V`` (A,) of one encoded state against a model (the regression layer)."""
        c = self.cfg
        if c.form == "printed":
            return regress_cosine(re, im, qr, qi, chunk=c.chunk, fmt=self.fmt,
                                  counter=self.counter)
        return regress(re, im, qr, qi, chunk=c.chunk, fmt=self.fmt, norm=c.norm,
                       imag_sign=c.imag_sign, counter=self.counter)

    # ------------------------------------------------------------------ the learner
    def act(self, k: int, obs) -> int:
        """An inference iteration: no mask bit, select returns the greedy index (eq. 11)."""
        re, im = self.encode(np.asarray(obs)[None, :])
        qr, qi = self.model(k, self.cfg.act_with)
        return select(self.values(re[0], im[0], qr, qi), np.zeros(self.n_actions, bool))[0]

    def train(self, k: int, batch: Batch) -> np.ndarray:
        """One training batch of agent ``k``: one kernel iteration per sample."""
        t, cnt = self.fmt, self.counter
        c = self.cfg
        printed = c.form == "printed"
        re, im = self.encode(batch.obs)
        if printed:        # eq. 13: q_true of the same state, one encoding (none of s')
            q_true_all = [self.values(re[j], im[j], self.tr, self.ti)[int(batch.act[j])]
                          for j in range(len(batch))]
        else:
            re2, im2 = self.encode(batch.next_obs)
        rew = t.quantize(batch.rew, counter=cnt) if self.fixed else np.asarray(batch.rew)
        qr, qi, cache = self.qr[k], self.qi[k], self.caches[k]
        # Q' does not change within a batch: every sample's q_true in one pass (fixed point:
        # the same exact sums and roundings as sample by sample)
        if not printed:
            q_true_all = (regress_rows(re2, im2, self.tr, self.ti, chunk=c.chunk, fmt=t,
                                       imag_sign=c.imag_sign, counter=cnt).max(axis=1)
                          if self.fixed and c.norm == "dimension" else None)
        out = []
        for j in range(len(batch)):
            a = int(batch.act[j])
            mask = np.zeros(self.n_actions, dtype=bool)
            mask[a] = True
            cache.stream(qr, qi, mask, counter=cnt)
            _, q_pred = select(self.values(re[j], im[j], qr, qi), mask)
            q_true = (q_true_all[j] if q_true_all is not None
                      else self.values(re2[j], im2[j], self.tr, self.ti).max())
            if printed:
                v = update_value_printed(q_pred, q_true, rew[j], beta=self.beta, fmt=t,
                                         counter=cnt)
            else:
                v = update_value(q_pred, q_true, rew[j], beta=self.beta, gamma=self.gamma,
                                 fmt=t, counter=cnt)
            ur, ui = update_hypervectors(v, re[j], im[j], fmt=t, counter=cnt)
            cache.push(a, ur, ui)
            self._accumulate(self.sr[k][a], ur)
            self._accumulate(self.si[k][a], ui)
            if self.each:
                self.deltas[k].append((a, ur, ui))
            out.append(float(t.to_float(v)) if self.fixed else float(v))
        return np.array(out)

    def _accumulate(self, row, u) -> None:
        if self.fixed:
            row[...] = self.fmt.add(row, u, counter=self.counter)
        else:
            row += u

    def _running_average(self) -> tuple[np.ndarray, np.ndarray]:
        """The shards as the machine leaves them when iteration ``j`` of every agent ends with
        the all-reduce (average) of the shards: every agent adds its ``j``-th update (none after
        its batch) to the common average so far, and the butterfly averages again; a fixed-
        point average is rounded at every iteration, as the machine rounds it."""
        sr, si = np.zeros_like(self.tr), np.zeros_like(self.ti)
        for j in range(max(len(d) for d in self.deltas)):
            parts_r, parts_i = [], []
            for d in self.deltas:
                r, i = sr.copy(), si.copy()
                if j < len(d):
                    a, ur, ui = d[j]
                    self._accumulate(r[a], ur)
                    self._accumulate(i[a], ui)
                parts_r.append(r)
                parts_i.append(i)
            sr = butterfly_allreduce(parts_r, self.fmt, counter=self.counter)[0]
            si = butterfly_allreduce(parts_i, self.fmt, counter=self.counter)[0]
        for d in self.deltas:
            d.clear()
        return sr, si

    def _clear_caches(self) -> None:
        for cache in self.caches:
            cache.clear()

    def end_stage(self) -> None:
        """Empty the caches, all-reduce the shards into Q', every Q <- Q'."""
        self._clear_caches()
        if self.each:
            avg_r, avg_i = self._running_average()
        else:
            average = self.cfg.sync == "average"
            avg_r = butterfly_allreduce(self.sr, self.fmt, average=average,
                                        counter=self.counter)[0]
            avg_i = butterfly_allreduce(self.si, self.fmt, average=average,
                                        counter=self.counter)[0]
        self._accumulate(self.tr, avg_r)
        self._accumulate(self.ti, avg_i)
        self._restart_agents()


def compiled_available(cfg: HdqlConfig) -> bool:
    """Whether :class:`CompiledHdql` computes ``cfg``'s learner: fixed32 with QHD's 1/D scale
    or the printed form (the fixed-point regressions there are) and numba present."""
    return _k.HAVE_NUMBA and cfg.number == "fixed32" and cfg.norm == "dimension"


class CompiledHdql(FunctionalHdql):
    """:class:`FunctionalHdql` in fixed32 with every iteration's hypervector work in the
    compiled kernels of :mod:`rlaccel.machines.darl.tlm.kernels` (encode, regression, select,
    update value and hypervectors, the update cache, the shard, the per-iteration running
    all-reduce): the same bits, the same saturation count, several times faster per step
    (``machines/darl/bench/speed.py``). The update cache is held as a pending flag and update per row
    (``pending``, ``pr``, ``pi``), which is what the FIFO holds under the kernel's schedule."""

    def __init__(self, cfg: HdqlConfig, n_obs: int, n_actions: int, rng: np.random.Generator,
                 fmt: str | None = None):
        super().__init__(cfg, n_obs, n_actions, rng, fmt)
        if not self.fixed or cfg.norm != "dimension":
            raise ManifestError("HDQL compiled kernels: fixed32 with norm = 'dimension' only "
                                "(use FunctionalHdql for the others)")
        t, cb = self.fmt, self.encoder.codebook
        if not _k.encode_fits(self.encoder.P_turns_T, t):
            raise ManifestError("HDQL compiled kernels: the position matrix is too large for "
                                "an exact int64 phase sum (use FunctionalHdql)")
        # P in turns, N x D: the kernel adds a feature's whole row at a time
        self._pt = np.ascontiguousarray(self.encoder.P_turns_T.T, dtype=np.int64)
        period = cb._period.astype(np.int32)      # the same values, half the cache footprint
        if not np.array_equal(period, cb._period):
            raise ManifestError("HDQL compiled kernels: the codebook's words exceed 32 bits")
        self._cb = (period, t.frac_bits - cb.addr_bits, (1 << cb.addr_bits) - 1,
                    cb.quarter)
        self._ar = (t.frac_bits, t.min_raw, t.max_raw)
        a, d, n = n_actions, cfg.d, cfg.agents
        self.pending = np.zeros((n, a), dtype=np.bool_)
        self.pr = np.zeros((n, a, d), dtype=np.int64)
        self.pi = np.zeros((n, a, d), dtype=np.int64)
        self._s = np.zeros(n_obs, dtype=np.int64)
        self._acc = np.zeros(d, dtype=np.int64)
        self._re = np.zeros(d, dtype=np.int64)
        self._im = np.zeros(d, dtype=np.int64)
        # each iteration's update per agent (the running all-reduce), in preallocated rows
        self._cap = cfg.batch
        self._dact = np.zeros((n, self._cap), dtype=np.int64)
        self._dlen = np.zeros(n, dtype=np.int64)
        self._dur = np.zeros((n, self._cap, d), dtype=np.int64)
        self._dui = np.zeros((n, self._cap, d), dtype=np.int64)

    def _count(self, n: int) -> None:
        if n:
            self.counter.saturations += int(n)

    @staticmethod
    def _floats(x, ndim: int) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(
            (-1,) if ndim == 1 else (-1, np.shape(x)[-1])))

    def encode(self, states) -> tuple[np.ndarray, np.ndarray]:
        re, im, sats = _k.encode(self._pt, self._floats(np.atleast_2d(states), 2), *self._cb,
                                 *self._ar)
        self._count(sats)
        return re, im

    def act(self, k: int, obs) -> int:
        c = self.cfg
        qr, qi = self.model(k, c.act_with)
        printed = c.form == "printed"
        index, sats = _k.act(self._pt, self._floats(obs, 1), *self._cb, qr, qi, printed,
                             c.chunk if printed else c.imag_sign, *self._ar, self._s,
                             self._acc, self._re, self._im)
        self._count(sats)
        return int(index)

    def train(self, k: int, batch: Batch) -> np.ndarray:
        re, im = self.encode(batch.obs)
        rew = self._floats(batch.rew, 1)
        acts = np.asarray(batch.act, dtype=np.int64).reshape(-1)
        m = len(acts)
        if m and (acts.min() < 0 or acts.max() >= self.n_actions):
            raise ManifestError(f"HDQL: a training action outside 0..{self.n_actions - 1}")
        ur = np.empty((m, self.d), dtype=np.int64)
        ui = np.empty((m, self.d), dtype=np.int64)
        v = np.empty(m, dtype=np.int64)
        c = self.cfg
        printed = c.form == "printed"      # eq. 13 as printed: q_true on the same state
        re2, im2 = (re, im) if printed else self.encode(batch.next_obs)
        sats = _k.train(re, im, re2, im2, rew, acts, self.qr[k], self.qi[k], self.tr, self.ti,
                        self.pending[k], self.pr[k], self.pi[k], self.sr[k], self.si[k],
                        np.int64(self.beta), np.int64(self.gamma), printed,
                        c.chunk if printed else c.imag_sign, *self._ar, ur, ui, v)
        self._count(sats)
        if self.each:
            self._keep(k, acts, ur, ui)
        return self.fmt.to_float(v)

    def _keep(self, k: int, acts, ur, ui) -> None:
        start, m = int(self._dlen[k]), len(acts)
        if start + m > self._cap:                # more iterations in a round than a batch
            grow = max(start + m, 2 * self._cap)
            n, d = self.cfg.agents, self.d
            for name, shape in (("_dact", (n, grow)), ("_dur", (n, grow, d)),
                                ("_dui", (n, grow, d))):
                old = getattr(self, name)
                new = np.zeros(shape, dtype=np.int64)
                new[:, :self._cap] = old
                setattr(self, name, new)
            self._cap = grow
        self._dact[k, start:start + m] = acts
        self._dur[k, start:start + m] = ur
        self._dui[k, start:start + m] = ui
        self._dlen[k] = start + m

    def _running_average(self) -> tuple[np.ndarray, np.ndarray]:
        from rlaccel.machines.darl.tlm.allreduce import stages
        avg_r, avg_i = np.zeros_like(self.tr), np.zeros_like(self.ti)
        sats = _k.running_average(self._dact, self._dlen, self._dur, self._dui,
                                  stages(self.cfg.agents), *self._ar, avg_r, avg_i)
        self._count(sats)
        self._dlen[:] = 0
        return avg_r, avg_i

    def _clear_caches(self) -> None:
        self.pending[:] = False
