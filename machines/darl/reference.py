"""The float reference: HDC-based Q-learning (the DARL paper, sections 3-4; QHD, the algorithm DARL
accelerates) in float64 numpy, with no simulator and no unit model. It is what the
accelerator must compute and the CPU baseline of the paper's 19.41 s to target on CartPole.

The model of every agent is the complex hypervector matrix ``Q = QR + j QI`` (A x D); all
agents share the delayed model ``Q' = TR + j TI`` (each keeps a replica). With the position
matrix ``P`` (N x D, N(0, 1)):

* encode (eq. 1-6): ``Re = cos(s P)``, ``Im = sin(s P)``;
* value (eq. 9-10 as QHD computes them): ``V[a] = (Re . QR[a] + Im . QI[a]) / D``
  (``imag_sign=-1``: the printed minus sign; ``norm="chunk"``: the printed per-chunk cosine,
  :func:`rlaccel.machines.darl.tlm.regress`);
* act (eq. 11): the host's greedy action is ``argmax_a V_{Q'}(s)[a]`` (Q' is the inference
  model, sections 3.3 and 4.1; ``act_with="online"`` reads the agent's Q as QHD does);
* train, per sample ``(s, a, r, s')`` of a batch, in order (eq. 12-16):
  ``q_pred = V_Q(s)[a]``, ``q_true = max_a' V_{Q'}(s')[a']``,
  ``v = beta ((r + gamma q_true) - q_pred)``, ``Q[a] += v (Re + j Im)``, and the same update
  is added to the agent's *shard* (section 4.1, Fig. 6 process 2);
* ``form="printed"``: eq. 9-10 as printed (a cosine per chunk, the imaginary part
  subtracted), ``q_true = V_{Q'}(s)[a]`` of the same state (eq. 13) and
  ``v = (q_true - q_pred) beta + r`` (eq. 14);
* end of a training stage (section 4.1-4.2, eq. 19-22): ``Q' += mean_k shard_k`` by the
  butterfly all-reduce, every agent's ``Q <- Q'``, shards to zero. With one agent this is
  the paper's target refresh at the start of every episode.

Updates are applied at once here; the accelerator's delayed update cache applies them when
the row is next used, which gives the same values (``machines/darl/tlm/update_cache.py``).
Every random choice comes from the generator the caller passes, so a seed fixes every bit.
"""

from __future__ import annotations

import numpy as np

from rlaccel.machines.darl.tlm import butterfly_allreduce, position_matrix, regress

from rlaccel.machines.darl.config import HdqlConfig
from rlaccel.machines.darl.models import AgentModels
from rlaccel.machines.darl.replay import Batch

__all__ = ["HdqlReference"]


class HdqlReference(AgentModels):
    """sHDQL (one agent) or dHDQL (``cfg.agents``) in float64: ``act``, ``train``,
    ``end_stage``."""

    def __init__(self, cfg: HdqlConfig, n_obs: int, n_actions: int, rng: np.random.Generator):
        self.cfg = cfg
        self.n_obs, self.n_actions, self.d = n_obs, n_actions, cfg.d
        self.P = position_matrix(n_obs, cfg.d, rng)
        super().__init__(np.zeros((n_actions, cfg.d)), cfg.agents)

    # ------------------------------------------------------------------ the algorithm
    def encode(self, states) -> tuple[np.ndarray, np.ndarray]:
        """``(Re, Im)``, each (B, D), of states (B, N)."""
        e = np.asarray(states, dtype=np.float64) @ self.P
        return np.cos(e), np.sin(e)

    def values(self, re, im, qr, qi) -> np.ndarray:
        """``V`` (B, A) of encoded states (B, D) against a model."""
        c = self.cfg
        if c.norm == "chunk" or c.form == "printed":
            sign = -1 if c.form == "printed" else c.imag_sign
            return np.stack([regress(r, i, qr, qi, chunk=c.chunk, norm="chunk",
                                     imag_sign=sign) for r, i in zip(re, im)])
        return (re @ qr.T + c.imag_sign * (im @ qi.T)) / self.d

    def _value(self, re, im, qr, qi, a: int) -> float:
        """``V[a]`` of one encoded state (the marked row only)."""
        c = self.cfg
        if c.norm == "chunk" or c.form == "printed":
            sign = -1 if c.form == "printed" else c.imag_sign
            return float(regress(re, im, qr[a:a + 1], qi[a:a + 1], chunk=c.chunk, norm="chunk",
                                 imag_sign=sign)[0])
        return float((re @ qr[a] + c.imag_sign * (im @ qi[a])) / self.d)

    def act(self, k: int, obs) -> int:
        """Agent ``k``'s greedy action on ``obs`` (eq. 11)."""
        re, im = self.encode(np.asarray(obs, dtype=np.float64)[None, :])
        return int(np.argmax(self.values(re, im, *self.model(k, self.cfg.act_with))[0]))

    def train(self, k: int, batch: Batch) -> np.ndarray:
        """One training batch of agent ``k``, sample after sample; returns the update values."""
        c = self.cfg
        printed = c.form == "printed"
        re, im = self.encode(batch.obs)
        if printed:        # eq. 13: the marked entry of V_Q' of the same state
            q_true = [self._value(re[j], im[j], self.tr, self.ti, int(batch.act[j]))
                      for j in range(len(batch))]
        else:
            re2, im2 = self.encode(batch.next_obs)
            q_true = self.values(re2, im2, self.tr, self.ti).max(axis=1)
        qr, qi, sr, si = self.qr[k], self.qi[k], self.sr[k], self.si[k]
        out = np.empty(len(batch))
        for j in range(len(batch)):
            a = int(batch.act[j])
            q_pred = self._value(re[j], im[j], qr, qi, a)
            if printed:    # eq. 14 as printed
                v = (float(q_true[j]) - float(q_pred)) * c.learning_rate + float(batch.rew[j])
            else:
                v = c.learning_rate * ((float(batch.rew[j]) + c.gamma * float(q_true[j]))
                                       - float(q_pred))
            ur, ui = v * re[j], v * im[j]
            qr[a] += ur
            qi[a] += ui
            sr[a] += ur
            si[a] += ui
            out[j] = v
        return out

    def end_stage(self) -> None:
        """Synchronise: ``Q' += mean of the shards`` (butterfly; their sum with
        ``sync="sum"``), every ``Q <- Q'``."""
        average = self.cfg.sync == "average"
        avg_r = butterfly_allreduce(self.sr, average=average)[0]
        avg_i = butterfly_allreduce(self.si, average=average)[0]
        self.tr += avg_r
        self.ti += avg_i
        self._restart_agents()
