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

    def random_actions(self, rng: np.random.Generator) -> list[np.ndarray]:
        """A uniformly random discrete action per agent, as a one-hot vector (the random
        policy the learning curves are compared with)."""
        out = []
        for s in self.specs:
            u = np.zeros(s.act_dim, dtype=np.float32)
            u[rng.integers(s.act_dim)] = 1.0
            out.append(u)
        return out


def make_task(name: str, **kwargs) -> Task:
    """The task called ``name`` (one of :data:`TASKS`); keyword arguments as :class:`Task`."""
    return Task(name, **kwargs)
