"""The two MPE tasks of the MADDPG paper (section V-B) through PettingZoo's parallel API, as the
reference MADDPG (openai/maddpg) sees them.

* ``simple_speaker_listener_v4`` -- Cooperative Communication: a speaker (observes the goal
  colour, 3; says one of 3 words) and a listener (velocity, landmarks, the word: 11; moves, 5).
* ``simple_tag_v3`` -- Predator-Prey: three slower predators (``adversary_0..2``: obs 16,
  move 5) trained by MADDPG and one faster prey (``agent_0``: obs 14, move 5) trained by DDPG
  (the MADDPG paper: "three slower Predator MADDPG agents ... a single faster Prey DDPG agent").

What we choose, and why (``machines/maddpg/README.md``, "Environments"):

* ``continuous_actions=True``: openai/maddpg feeds the environment the Gumbel-softmax
  *vector* of a discrete action space (the original MPE's ``discrete_action_input=False``):
  movement ``u = accel * (a[2] - a[1], a[4] - a[3])`` and the message ``c = a``. MPE2's
  continuous actions are exactly that vector in ``Box(0, 1)`` (its movement axes are the
  original's with the sign of each axis flipped, a relabelling of the actions).
* ``shared_reward=True`` (default): the original MPE gives every agent of a collaborative
  world the *sum* of the agents' rewards; MPE2 gives each its own. On Cooperative
  Communication that doubles each agent's reward to ``-2 d^2`` per step, as in the reference
  (and as behind its reported -20 level). simple_tag is not collaborative, so it is unchanged.
* ``max_cycles=25`` (openai/maddpg's ``max-episode-len``); episodes never terminate early in
  MPE, so every transition's ``done`` is 0 (the reference stores ``done`` that way too).

Observations and actions are float32 arrays in the agents' order (``Task.agents``).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

import numpy as np

from rlaccel.programs.manifest import ManifestError
from rlaccel.util.numbers import is_whole

__all__ = ["TASKS", "AgentSpec", "Task", "make_task"]

#: task name -> (MPE2 module, names of the agents the reference trains with DDPG by default)
TASKS = {
    "simple_speaker_listener_v4": ("mpe2.simple_speaker_listener_v4", ()),
    "simple_tag_v3": ("mpe2.simple_tag_v3", ("agent_0",)),
}


@dataclass(frozen=True)
class AgentSpec:
    """One agent: its name, observation and action widths, whether it is an adversary
    (predator), and how it is trained: ``"maddpg"`` (centralised critic over every agent's
    observation and action) or ``"ddpg"`` (a critic over its own only)."""

    name: str
    obs_dim: int
    act_dim: int
    adversary: bool
    policy: str


class Task:
    """One MPE environment with the reference's action and reward conventions."""

    def __init__(self, name: str, *, max_cycles: int = 25, shared_reward: bool = True,
                 policies: dict | None = None, env_kwargs: dict | None = None):
        if name not in TASKS:
            raise ManifestError(f"environment {name!r} is not a MADDPG task: known tasks are "
                                f"{', '.join(TASKS)}")
        if not is_whole(max_cycles):
            raise ManifestError(f"{name}: max_cycles must be a positive integer, not "
                                f"{max_cycles!r}")
        module, ddpg = TASKS[name]
        kwargs = dict(env_kwargs or {})
        try:
            self.env = import_module(module).parallel_env(
                max_cycles=max_cycles, continuous_actions=True, **kwargs)
        except TypeError as exc:
            raise ManifestError(f"environment {name} with {kwargs}: {exc}") from None
        self.name = name
        self.max_cycles = max_cycles
        self.agents = tuple(self.env.possible_agents)
        policies = dict(policies or {})
        unknown = sorted(set(policies) - set(self.agents))
        if unknown:
            raise ManifestError(f"{name}: no agent named {', '.join(unknown)} (agents: "
                                f"{', '.join(self.agents)})")
        for who, kind in policies.items():
            if kind not in ("maddpg", "ddpg"):
                raise ManifestError(f"{name}: policy of {who} must be 'maddpg' or 'ddpg', not "
                                    f"{kind!r}")
        raw = self.env.aec_env.unwrapped
        world = raw.world
        self.collaborative = bool(getattr(world, "collaborative", False))
        self.shared_reward = shared_reward and self.collaborative
        specs = []
        for a, ag in zip(self.agents, world.agents):
            kind = policies.get(a, "ddpg" if a in ddpg else "maddpg")
            specs.append(AgentSpec(a, int(self.env.observation_space(a).shape[0]),
                                   int(self.env.action_space(a).shape[0]),
                                   bool(getattr(ag, "adversary", False)), kind))
        self.specs = tuple(specs)
        self.n = len(self.agents)
        self._obs: dict | None = None

    @property
    def obs_dims(self) -> tuple[int, ...]:
        return tuple(s.obs_dim for s in self.specs)

    @property
    def act_dims(self) -> tuple[int, ...]:
        return tuple(s.act_dim for s in self.specs)

    def reset(self, seed: int | None = None) -> list[np.ndarray]:
        """Start an episode (``seed`` reseeds the environment's generator; None continues
        it). Returns the observations in agent order."""
        obs, _ = self.env.reset(seed=seed)
        return [np.asarray(obs[a], dtype=np.float32) for a in self.agents]

    def step(self, actions) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, bool]:
        """Apply one action vector per agent (in agent order). Returns the next observations,
        the rewards (float32, one per agent, shared as the original MPE does when
        ``shared_reward``), the terminations (float32 0/1) and whether the episode is over
        (terminated or truncated at ``max_cycles``)."""
        if len(actions) != self.n:
            raise ManifestError(f"{self.name}: {len(actions)} actions for {self.n} agents")
        act = {a: np.asarray(u, dtype=np.float32) for a, u in zip(self.agents, actions)}
        obs, rew, term, trunc, _ = self.env.step(act)
        r = np.array([rew[a] for a in self.agents], dtype=np.float64)
        if self.shared_reward:
            r = np.full(self.n, r.sum())
        done = np.array([float(term[a]) for a in self.agents], dtype=np.float32)
        over = any(term.values()) or any(trunc.values())
        return ([np.asarray(obs[a], dtype=np.float32) for a in self.agents],
                r.astype(np.float32), done, over)

    # ---- checkpoints (rlaccel.programs.checkpoint) ----
    def checkpoint_state(self) -> tuple[dict, dict]:
        """The episode in progress as ``(arrays, fields)``: the MPE world's entities (their
        positions, velocities, messages, colours, actions and goals), the environment's
        generator, step count and per-agent bookkeeping, and its wrappers' flags."""
        from rlaccel.programs.checkpoint import rng_state
        raw, aec = self.env.aec_env.unwrapped, self.env.aec_env
        world = raw.world
        arrays: dict = {}
        entities = [_entity_state(e, f"entity{j}.", world.entities, arrays)
                    for j, e in enumerate(world.entities)]
        actions = []
        for j, a in enumerate(raw.current_actions):
            actions.append(a is not None)
            if a is not None:
                arrays[f"action{j}"] = np.asarray(a)
        fields = {"entities": entities, "actions": actions, "np_random": rng_state(raw.np_random),
                  "raw": {k: getattr(raw, k) for k in _RAW},
                  "selector": dict(vars(raw._agent_selector)),
                  "parallel_agents": list(self.env.agents),
                  "flags": {k: getattr(aec, k) for k in ("_has_reset", "_has_updated")}}
        return arrays, fields

    def restore(self, saved) -> None:
        """Continue the episode :meth:`checkpoint_state` saved in this fresh task (reset
        first, so that the wrappers take the next step)."""
        self.env.reset()
        raw, aec = self.env.aec_env.unwrapped, self.env.aec_env
        world = raw.world
        entities = saved.get("entities", list)
        if len(entities) != len(world.entities):
            raise saved.unfit(f"it has {len(entities)} MPE entities, this world "
                              f"{len(world.entities)}")
        for j, (e, f) in enumerate(zip(world.entities, entities)):
            _restore_entity(e, f, f"entity{j}.", world.entities, saved)
        actions = saved.get("actions", list)
        if len(actions) != len(raw.current_actions):
            raise saved.unfit(f"it has {len(actions)} actions for {self.n} agents")
        raw.current_actions = [saved.array(f"action{j}") if a else None
                               for j, a in enumerate(actions)]
        saved.rng("np_random", raw.np_random)
        rw = saved.get("raw", dict)
        if set(rw) != set(_RAW):
            raise saved.unfit("its environment's bookkeeping is not an MPE environment's")
        for k, v in rw.items():
            setattr(raw, k, v)
        sel = saved.get("selector", dict)
        if set(sel) != set(vars(raw._agent_selector)):
            raise saved.unfit("its agent selector is not this environment's")
        vars(raw._agent_selector).update(sel)
        self.env.agents = saved.get("parallel_agents", list)
        for k, v in saved.get("flags", dict).items():
            if k not in ("_has_reset", "_has_updated") or type(v) is not bool:
                raise saved.unfit(f"the wrapper flag {k!r} = {v!r}")
            setattr(aec, k, v)

    def random_actions(self, rng: np.random.Generator) -> list[np.ndarray]:
        """A uniformly random discrete action per agent, as a one-hot vector (the random
        policy the learning curves are compared with)."""
        out = []
        for s in self.specs:
            u = np.zeros(s.act_dim, dtype=np.float32)
            u[rng.integers(s.act_dim)] = 1.0
            out.append(u)
        return out


#: the MPE environment's own bookkeeping a checkpoint holds (plain values, lists and dicts)
_RAW = ("steps", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations",
        "infos", "agent_selection")
#: an entity's parts that are objects of their own (saved attribute by attribute)
_PARTS = ("state", "action")


def _entity_state(obj, prefix: str, entities: list, arrays: dict) -> dict:
    """An MPE entity (or its state or action) as fields, its arrays into ``arrays``: plain
    values, arrays, references to other entities (by index) and its parts."""
    from rlaccel.programs.checkpoint import CheckpointError
    out: dict = {"plain": {}, "arrays": [], "refs": {}, "parts": {}}
    for k, v in vars(obj).items():
        if v is None or type(v) in (bool, int, float, str):
            out["plain"][k] = v
        elif isinstance(v, np.ndarray):
            arrays[prefix + k] = v
            out["arrays"].append(k)
        elif any(v is e for e in entities):
            out["refs"][k] = next(j for j, e in enumerate(entities) if v is e)
        elif k in _PARTS:
            out["parts"][k] = _entity_state(v, f"{prefix}{k}.", entities, arrays)
        else:
            raise CheckpointError(f"MPE {type(obj).__name__}.{k}: a {type(v).__name__}, "
                                  f"which a checkpoint cannot hold")
    return out


def _restore_entity(obj, f, prefix: str, entities: list, saved) -> None:
    if not (isinstance(f, dict) and set(f) == {"plain", "arrays", "refs", "parts"}):
        raise saved.unfit(f"{prefix} is not an MPE entity's state")
    known = set(vars(obj))
    names = [*f["plain"], *f["arrays"], *f["refs"], *f["parts"]]
    if not all(isinstance(k, str) and k in known for k in names):
        raise saved.unfit(f"{prefix} names attributes the MPE {type(obj).__name__} lacks")
    for k, v in f["plain"].items():
        if not (v is None or type(v) in (bool, int, float, str)):
            raise saved.unfit(f"{prefix}{k} is not a plain value")
        setattr(obj, k, v)
    for k in f["arrays"]:
        setattr(obj, k, saved.array(prefix + k))
    for k, j in f["refs"].items():
        if type(j) is not int or not 0 <= j < len(entities):
            raise saved.unfit(f"{prefix}{k} refers to entity {j!r}")
        setattr(obj, k, entities[j])
    for k, sub in f["parts"].items():
        _restore_entity(getattr(obj, k), sub, f"{prefix}{k}.", entities, saved)


def make_task(name: str, **kwargs) -> Task:
    """The task called ``name`` (one of :data:`TASKS`); keyword arguments as :class:`Task`."""
    return Task(name, **kwargs)
