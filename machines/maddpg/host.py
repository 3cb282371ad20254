"""The host of the MADDPG machine (the MADDPG paper's Fig. 3): sample generation on the CPU, the shared
replay buffer, and the learners' batches, weights and policies over the host link.

The machine has one learner per agent, each an agent of the platform with its own host link;
:class:`MaddpgHost` is what they share -- the task, the buffer, the random streams and the
update schedule of :class:`~.training.Training` (the same as the float reference's), the
policies the learners sent back -- and :meth:`MaddpgHost.link` gives each learner its
:class:`LearnerHost`, which answers that learner's exchanges (``machines/maddpg/programs/learner.s``):

1. the first exchange brings the four networks' initial weights (the reference's own
   initialisation, :class:`~.reference.MaddpgReference`, so both start alike);
2. then, per round, a batch request: the first learner to ask runs sample generation with
   the policies of the last round until the next round is due (``Training.due``: every
   ``update_every`` steps once the buffer holds ``learning_starts``), draws the round's batch
   and its Gumbel noise, and every learner gets its rows of that batch (its critic's inputs,
   the next observations, reward and done, the noise of its two policy evaluations) and
   Adam's ``lr_t`` of the step; or, when the episode budget is spent, ``DONE``;
3. and the learner's new policy, which the host acts with in the next round (the program's
   barrier makes sure every learner has sent its policy before any asks for a batch).

Every buffer is found by its symbol in the learner's binary. The host's own time goes to
the link's :class:`~rlaccel.tlm.hostlink.HostTimeline` of learner 0 (sample generation and
replay sampling, measured on this machine): eq. 7's T_SG and the replay part of T_MU. The
process's CPU time of both is kept beside the wall clock (``cpu_sg``, ``cpu_sample``): on a
shared machine the wall clock also counts waiting for a core.
"""

from __future__ import annotations

import copy
import time

import numpy as np

from rlaccel.util.errors import RlaccelError, SimError
from rlaccel.machines.maddpg.tlm.update import adam_rate
from rlaccel.tlm.hostlink import HostTimeline

from rlaccel.machines.maddpg.reference import MaddpgReference
from rlaccel.machines.maddpg.training import Training

__all__ = ["MaddpgHost", "LearnerHost", "flatten", "unflatten", "layout"]


def flatten(layers) -> np.ndarray:
    """A network as the learner stores it: every layer's W (row-major), then its b."""
    return np.concatenate([np.concatenate([W.reshape(-1), b]) for W, b in layers]).astype(
        np.float32)


def unflatten(words, sizes) -> list:
    """The inverse of :func:`flatten` for widths ``sizes = (in, h1, ..., out)``."""
    out, k = [], 0
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        W = np.array(words[k:k + n_in * n_out], np.float32).reshape(n_out, n_in)
        k += n_in * n_out
        out.append((W, np.array(words[k:k + n_out], np.float32)))
        k += n_out
    return out


def layout(spec, specs) -> dict:
    """Where agent ``spec``'s learner finds what: its widths and the offsets of its critic
    input (``[o_1..o_N, a_1..a_N]`` for MADDPG, ``[o_i, a_i]`` for DDPG)."""
    i = specs.index(spec)
    obs = [s.obs_dim for s in specs]
    act = [s.act_dim for s in specs]
    if spec.policy == "ddpg":
        nobs, nact, ooff, acol = obs[i], act[i], 0, obs[i]
    else:
        nobs, nact = sum(obs), sum(act)
        ooff, acol = sum(obs[:i]), sum(obs) + sum(act[:i])
    return {"OBS": obs[i], "ACT": act[i], "QIN": nobs + nact, "NACT": nact,
            "SUMACT": sum(act), "OOFF": ooff, "ACOL": acol,
            "DDPG": int(spec.policy == "ddpg")}


class MaddpgHost:
    """Sample generation, the buffer and the batches for every learner (module docstring);
    ``episodes`` and ``steps`` (0: none) bound the run."""

    def __init__(self, cfg, episodes: int, steps: int = 0, window: int = 100):
        self.cfg = cfg
        self.training = Training(cfg)
        self.specs = self.training.task.specs
        self.reference = MaddpgReference(cfg, self.specs, self.training.rng["init"])
        self.episodes, self.steps, self.window = episodes, steps, window
        self.n = len(self.specs)
        self.hosts = [LearnerHost(self, i) for i in range(self.n)]
        self.timeline = self.hosts[0].timeline
        self.round = 0                  # rounds whose batch has been drawn
        self._batch = None              # this round's batch, (round, batches)
        self._asked = [0] * self.n      # batch requests per learner
        self.done = False
        self.reported = 0               # progress lines given
        self.cpu_sg = 0.0               # CPU seconds of sample generation (this process)
        self.cpu_sample = 0.0           # ... of replay sampling
        self._probe = False

    def link(self, i: int) -> "LearnerHost":
        return self.hosts[i]

    def probe(self) -> "MaddpgHost":
        """A host for one round on what this one's buffer holds, without stepping the
        environment (to time a round when a run had none); it shares nothing this host
        changes: copies of the networks and the random streams, the buffer read only."""
        p = copy.copy(self)
        p.training = copy.copy(self.training)
        p.training.rng = copy.deepcopy(self.training.rng)
        p.training.t_sample, p.training.rounds = 0.0, 0
        p.reference = copy.deepcopy(self.reference)
        p.hosts = [LearnerHost(p, i) for i in range(self.n)]
        p.timeline = p.hosts[0].timeline
        p.round, p._batch, p._asked, p.done = 0, None, [0] * self.n, False
        p.cpu_sg = p.cpu_sample = 0.0
        p._probe = True
        return p

    # ---- sample generation -----------------------------------------------------------------
    def _over(self) -> bool:
        tr = self.training
        return tr.episodes >= self.episodes or (self.steps > 0 and tr.steps >= self.steps)

    def _next_round(self) -> None:
        """Step the environment with the current policies until a round is due, and draw it."""
        tr = self.training
        t0, c0 = time.perf_counter(), time.process_time()
        if self._probe:                       # one round on the buffer as it is, then done
            if self.round == 0 and len(tr.replay):
                self._draw(tr, t0, c0)
                return
            self.done = True
            return
        while not self._over():
            tr.step(self.reference.act)
            if tr.due():
                self._draw(tr, t0, c0)
                return
        self.timeline.add("sample generation", time.perf_counter() - t0)
        self.cpu_sg += time.process_time() - c0
        self.done = True

    def _draw(self, tr, t0: float, c0: float) -> None:
        """The round's batch (replay sampling, timed) after sample generation from t0."""
        t1, c1 = time.perf_counter(), time.process_time()
        self.timeline.add("sample generation", t1 - t0)
        self.cpu_sg += c1 - c0
        batches = tr.batches()
        dt = time.perf_counter() - t1
        self.cpu_sample += time.process_time() - c1
        tr.t_sample += dt
        tr.rounds += 1
        self.timeline.add("replay sampling", dt)
        self.round += 1
        self._batch = (self.round, batches[0])

    def batch_for(self, i: int):
        """Learner i's next batch (None: the run is over)."""
        self._asked[i] += 1
        if self._asked[i] > self.round and not self.done:
            late = [j for j, h in enumerate(self.hosts)
                    if self._asked[j] < self._asked[i] - 1 or h.phase == "policy"]
            if late:
                raise SimError(f"MADDPG host: learner {i} asks for batch {self._asked[i]} "
                               f"before learner(s) {', '.join(map(str, late))} sent the "
                               f"policy of batch {self._asked[i] - 1} (a barrier is missing)")
            self._next_round()
        if self.done and self._asked[i] > self.round:
            return None
        return self._batch[1]

    def lr_t(self) -> float:
        c = self.cfg
        return float(adam_rate(c.lr, self.round, c.adam_beta1, c.adam_beta2))

    @property
    def finished(self) -> bool:
        return self.done

    # ---- checkpoints (saved with learner 0's part, :meth:`LearnerHost.checkpoint_state`) --
    def checkpoint_state(self) -> tuple[dict, dict] | None:
        """What the learners share (:mod:`.checkpoint`), or None while a round's batch is
        out (a learner has not had it yet)."""
        from rlaccel.machines.maddpg.checkpoint import actors_state, training_state
        from rlaccel.programs.checkpoint import nest
        if self._probe or any(a != self.round for a in self._asked):
            return None
        arrays, fields = {}, {"round": self.round, "done": self.done, "cpu_sg": self.cpu_sg,
                              "cpu_sample": self.cpu_sample}
        nest("training", training_state(self.training), arrays, fields)
        nest("actors", actors_state(self.reference), arrays, fields)
        return arrays, fields

    def restore(self, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state in this fresh host."""
        from rlaccel.machines.maddpg.checkpoint import restore_actors, restore_training
        self.round = saved.get("round", int, lo=0)
        self._asked = [self.round] * self.n
        self.done = saved.get("done", bool)
        self.cpu_sg = saved.get("cpu_sg", float)
        self.cpu_sample = saved.get("cpu_sample", float)
        restore_training(self.training, saved.part("training"))
        restore_actors(self.reference, saved.part("actors"))


class LearnerHost:
    """What learner ``i``'s host link talks to (module docstring: init, batch, policy)."""

    def __init__(self, shared: MaddpgHost, i: int):
        self.shared, self.i = shared, i
        self.timeline = HostTimeline()
        self.phase = "init"
        self.sym: dict = {}

    def bind(self, binary) -> None:
        """Find the buffers of this learner's binary by symbol and check its widths."""
        sym = {s.name: s for s in binary.symbols}
        need = ("IN", "DONE", "X", "XN", "RD", "GT", "GP", "LRT", "INIT", "POL")
        missing = [s for s in need if s not in sym]
        if missing:
            raise RlaccelError(f"{binary.origin}: the program has no symbol(s) "
                               f"{', '.join(missing)}, which the MADDPG host needs")
        self.sym = sym
        ag = self.shared.reference.agents[self.i]
        lay = layout(ag.spec, self.shared.specs)
        B = self.shared.cfg.batch
        want = {"X": B * lay["QIN"], "XN": B * (lay["QIN"] - lay["NACT"]), "RD": B * 2,
                "GT": B * lay["ACT"], "GP": B * lay["ACT"],
                "POL": sum(W.size + b.size for W, b in ag.actor),
                "INIT": 2 * sum(W.size + b.size for W, b in ag.actor + ag.critic)}
        for name, n in want.items():
            if sym[name].length != n:
                raise RlaccelError(f"{binary.origin}: symbol {name} has {sym[name].length} "
                                   f"words; learner {self.i} ({ag.spec.name}) needs {n}")
        self.nin = sym["LRT"].address + 1 - sym["IN"].address

    @property
    def finished(self) -> bool:
        return self.shared.finished

    # ---- checkpoints (rlaccel.programs.checkpoint.Checkpointable) ----
    #: the per-agent state of the marl family a checkpoint holds
    checkpoint_agent_state: tuple[str, ...] = ("marl.learner", "marl.exchange")

    def checkpoint_state(self, agent) -> tuple[dict, dict] | None:
        """The learner's phase and its marl family's state and, for learner 0, what the
        learners share (:meth:`MaddpgHost.checkpoint_state`); None when that cannot be
        saved now."""
        from rlaccel.machines.maddpg.checkpoint import exchange_state, learner_state
        from rlaccel.programs.checkpoint import nest
        arrays, fields = {}, {"phase": self.phase}
        L = agent.state.get("marl.learner")
        fields["has_learner"] = L is not None
        if L is not None:
            nest("learner", learner_state(L), arrays, fields)
        ex = agent.state.get("marl.exchange")
        fields["has_exchange"] = ex is not None
        parts = [("exchange", exchange_state(ex) if ex is not None else ({}, {}))]
        if self.i == 0:
            parts.append(("shared", self.shared.checkpoint_state()))
        for name, part in parts:
            if part is None:
                return None
            nest(name, part, arrays, fields)
        return arrays, fields

    def restore(self, agent, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state in this freshly made host and
        agent (learner 0 first: it restores what the learners share)."""
        from rlaccel.machines.maddpg.checkpoint import restore_exchange, restore_learner
        from rlaccel.machines.maddpg.tlm.learner import learner
        from rlaccel.machines.maddpg.tlm.streams import _exchange
        if self.i == 0:
            self.shared.restore(saved.part("shared"))
        self.phase = saved.get("phase", str)
        if self.phase not in ("init", "batch", "policy"):
            raise saved.unfit(f"phase = {self.phase!r}")
        if saved.get("has_learner", bool):
            restore_learner(learner(agent), saved.part("learner"))
        if saved.get("has_exchange", bool):
            restore_exchange(_exchange(agent.platform), saved.part("exchange"))

    def exchange(self, out: np.ndarray) -> np.ndarray:
        sh, i = self.shared, self.i
        ag = sh.reference.agents[i]
        if self.phase == "init":
            self.phase = "batch"
            return np.concatenate([flatten(n) for n in (ag.actor, ag.critic, ag.target_actor,
                                                        ag.target_critic)])
        if self.phase == "policy":
            sh.reference.agents[i].actor = unflatten(out, ag.actor_sizes)
            self.phase = "batch"
            return np.zeros(1, np.float32)
        b = sh.batch_for(i)
        reply = np.zeros(self.nin, np.float32)
        if b is None:
            reply[0] = 1.0                                      # DONE
            return reply
        self.phase = "policy"
        s, base = self.sym, self.sym["IN"].address

        def put(name, rows):
            a = s[name].address - base
            reply[a:a + s[name].length] = np.asarray(rows, np.float32).reshape(-1)
        if ag.kind == "ddpg":
            put("X", np.concatenate([b.obs[i], b.act[i]], axis=1))
            put("XN", b.next_obs[i])
        else:
            put("X", np.concatenate(list(b.obs) + list(b.act), axis=1))
            put("XN", np.concatenate(list(b.next_obs), axis=1))
        put("RD", np.stack([b.rew[i], b.done[i]], axis=1))
        put("GT", b.noise_target[i])
        put("GP", b.noise_policy[i])
        reply[s["LRT"].address - base] = sh.lr_t()
        return reply
