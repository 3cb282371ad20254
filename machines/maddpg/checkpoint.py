"""MADDPG's part of a checkpoint (:mod:`rlaccel.programs.checkpoint`): the host at the start
of a round and the marl family's per-agent state.

The host is saved only when no round's batch is out (every learner has had as many batches
as were drawn, so the last one is needed no more): the task's episode in progress
(:meth:`.task.Task.checkpoint_state`), the shared replay buffer, the random streams, the
curve and counters of :class:`~.training.Training`, and the policies the learners sent back
(what sample generation acts with). A learner (``agent.state["marl.learner"]``, :mod:`.tlm.
learner`) keeps its compute units' unroll factors, the per-sample ready cycles of what its
streams wrote, its ring counts and every unit's last stream (the report's pipeline figures);
agent 0 also keeps the learners' count of ring exchanges (``"marl.exchange"``), saved when
none is under way.
"""

from __future__ import annotations

import numpy as np

__all__ = ["training_state", "restore_training", "learner_state", "restore_learner",
           "exchange_state", "restore_exchange", "actors_state", "restore_actors"]

_CURVE = ("returns", "agent_returns", "touches")
_BUFFER = ("_obs", "_next", "_act", "_rew", "_done")


def training_state(tr) -> tuple[dict, dict]:
    """:class:`~.training.Training` as ``(arrays, fields)``."""
    from rlaccel.programs.checkpoint import nest, rng_state
    rb = tr.replay
    arrays = {f"buffer.{k}": getattr(rb, k)[:rb.size] for k in _BUFFER}
    arrays.update({f"obs{i}": o for i, o in enumerate(tr._obs)})
    arrays["ret"] = tr._ret
    fields = {"curve": {k: getattr(tr.curve, k) for k in _CURVE}, "steps": tr.steps,
              "rounds": tr.rounds, "t_sg": tr.t_sg, "t_sample": tr.t_sample,
              "t_learn": tr.t_learn, "act": rng_state(tr.rng["act"]),
              "replay": rng_state(tr.rng["replay"]),
              "buffer": {"rows": rb._rows, "size": rb.size, "next": rb.next,
                         "added": rb.added}}
    nest("task", tr.task.checkpoint_state(), arrays, fields)
    return arrays, fields


def restore_training(tr, saved) -> None:
    """Continue from :func:`training_state`'s state in this fresh Training."""
    curve = saved.part("curve")
    for k in _CURVE:
        setattr(tr.curve, k, curve.get(k, list))
    tr.steps = saved.get("steps", int, lo=0)
    tr.rounds = saved.get("rounds", int, lo=0)
    for k in ("t_sg", "t_sample", "t_learn"):
        setattr(tr, k, saved.get(k, float))
    saved.rng("act", tr.rng["act"])
    saved.rng("replay", tr.rng["replay"])
    rb, b = tr.replay, saved.part("buffer")
    rows = b.get("rows", int, lo=0, hi=rb.capacity)
    size = b.get("size", int, lo=0, hi=rows)
    for k in _BUFFER:
        old = getattr(rb, k)
        new = np.zeros((rows, old.shape[1]), np.float32)
        new[:size] = saved.array(f"buffer.{k}", np.float32, (size, old.shape[1]))
        setattr(rb, k, new)
    rb._rows, rb.size = rows, size
    rb.next = b.get("next", int, lo=0, hi=max(rb.capacity - 1, 0))
    rb.added = b.get("added", int, lo=size)
    tr._obs = [saved.array(f"obs{i}", np.float32, (s.obs_dim,))
               for i, s in enumerate(tr.task.specs)]
    tr._ret = saved.array("ret", tr._ret.dtype, tr._ret.shape)
    tr.task.restore(saved.part("task"))


def actors_state(reference) -> tuple[dict, dict]:
    """Every agent's policy as sample generation uses it (the learners' last)."""
    arrays = {f"{i}.{l}.{k}": x for i, ag in enumerate(reference.agents)
              for l, layer in enumerate(ag.actor) for k, x in zip("Wb", layer)}
    return arrays, {"agents": len(reference.agents)}


def restore_actors(reference, saved) -> None:
    if saved.get("agents", int) != len(reference.agents):
        raise saved.unfit("its policies are not of this task's agents")
    for i, ag in enumerate(reference.agents):
        ag.actor = [tuple(saved.array(f"{i}.{l}.{k}", np.float32, x.shape)
                          for k, x in zip("Wb", layer)) for l, layer in enumerate(ag.actor)]


def learner_state(L) -> tuple[dict, dict]:
    """A learner's state (:class:`~.tlm.learner.Learner`) as ``(arrays, fields)``."""
    arrays = {f"written{j}": w.done for j, w in enumerate(L.written)}
    for u, (start, done, _) in L.last.items():
        arrays[f"last{u}.start"], arrays[f"last{u}.done"] = start, done
    fields = {"factors": [[u, f] for u, f in L.factors.items()],
              "written": [[w.space, w.lo, w.hi, w.ring] for w in L.written],
              "ring_wait": int(L.ring_wait), "ring_samples": int(L.ring_samples),
              "last": [[u, int(T)] for u, (_, _, T) in L.last.items()]}
    return arrays, fields


def _pairs(saved, key: str) -> list:
    v = saved.get(key, list)
    if not all(isinstance(p, list) and len(p) == 2 and all(type(x) is int for x in p)
               for p in v):
        raise saved.unfit(f"{saved.where}{key} is not a list of pairs of integers")
    return v


def restore_learner(L, saved) -> None:
    """Continue from :func:`learner_state`'s state in this fresh learner."""
    from rlaccel.machines.maddpg.tlm.learner import _Written
    L.factors = {u: f for u, f in _pairs(saved, "factors")}
    written = saved.get("written", list)
    if not all(isinstance(w, list) and len(w) == 4 and all(type(x) is int for x in w[:3])
               and type(w[3]) is bool for w in written):
        raise saved.unfit("written is not a list of ranges")
    L.written = [_Written(s, lo, hi, saved.array(f"written{j}", np.int64, (None,)), ring)
                 for j, (s, lo, hi, ring) in enumerate(written)]
    L.ring_wait = saved.get("ring_wait", int, lo=0)
    L.ring_samples = saved.get("ring_samples", int, lo=0)
    L.last = {u: (saved.array(f"last{u}.start", np.int64, (None,)),
                  saved.array(f"last{u}.done", np.int64, (None,)), T)
              for u, T in _pairs(saved, "last")}


def exchange_state(ex) -> tuple[dict, dict] | None:
    """The learners' ring-exchange count, or None while an exchange is under way."""
    if ex.slots:
        return None
    return {}, {"calls": list(ex.calls)}


def restore_exchange(ex, saved) -> None:
    calls = saved.get("calls", list)
    if len(calls) != ex.n or not all(type(c) is int and c >= 0 for c in calls):
        raise saved.unfit(f"calls is not a count for each of {ex.n} learners")
    ex.calls = calls
