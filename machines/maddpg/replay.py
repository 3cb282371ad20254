"""The shared replay buffer of MADDPG (the MADDPG paper, Fig. 3: one buffer in host memory for every
agent) and the mini-batch the host streams to the learners.

One row per environment step holds every agent's observation, action, reward, next
observation and done flag, so sampling one set of indices gives every agent the same
transitions (what the accelerator's learners need to exchange actions over the ring). The
capacity is the reference's 10^6 steps; storage grows in chunks, so a short run does not
reserve the whole capacity. When full, the oldest rows are overwritten (as openai/maddpg's
``ReplayBuffer``).

A :class:`Batch` also carries the Gumbel noise its Gumbel-softmax samples use (one array per
agent for the target policies on the next observations, one for the policies on the
observations), drawn by the host from a seeded generator: the float reference and the
accelerator consume the same noise, so the same seed gives the same run on both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.programs.manifest import ManifestError
from rlaccel.util.numbers import is_whole

__all__ = ["ReplayBuffer", "Batch", "gumbel_noise"]

_CHUNK = 65536


def gumbel_noise(rng: np.random.Generator, shape) -> np.ndarray:
    """Standard Gumbel samples ``-log(-log(u))``, ``u`` uniform on (0, 1), as float32: the
    noise openai/maddpg's ``SoftCategoricalPd.sample`` adds to the logits."""
    u = np.maximum(rng.random(shape), np.finfo(np.float64).tiny)   # [0, 1) -> (0, 1)
    return (-np.log(-np.log(u))).astype(np.float32)


@dataclass
class Batch:
    """A mini-batch of ``B`` transitions, per agent ``i``: ``obs[i]`` (B, obs_dim_i),
    ``act[i]`` (B, act_dim_i), ``rew[i]`` (B,), ``next_obs[i]``, ``done[i]`` (B,), and the
    Gumbel noise ``noise_target[i]`` (B, act_dim_i) for agent i's target policy on
    ``next_obs[i]`` and ``noise_policy[i]`` for its policy on ``obs[i]``. ``index`` holds the
    buffer rows."""

    index: np.ndarray
    obs: list
    act: list
    rew: list
    next_obs: list
    done: list
    noise_target: list
    noise_policy: list

    @property
    def size(self) -> int:
        return len(self.index)


class ReplayBuffer:
    """A ring buffer of joint transitions for agents with the given observation and action
    widths; float32 storage."""

    def __init__(self, obs_dims, act_dims, capacity: int = 1_000_000):
        if len(obs_dims) != len(act_dims) or not obs_dims:
            raise ManifestError(f"replay buffer: {len(obs_dims)} observation widths and "
                                f"{len(act_dims)} action widths (need one of each per agent)")
        if not is_whole(capacity):
            raise ManifestError(f"replay buffer: capacity must be a positive integer, not "
                                f"{capacity!r}")
        self.obs_dims, self.act_dims = tuple(obs_dims), tuple(act_dims)
        self.n = len(obs_dims)
        self.capacity = capacity
        self._o0 = np.cumsum((0,) + self.obs_dims)
        self._a0 = np.cumsum((0,) + self.act_dims)
        self._rows = 0                        # allocated rows
        self._obs = np.zeros((0, self._o0[-1]), np.float32)
        self._next = np.zeros((0, self._o0[-1]), np.float32)
        self._act = np.zeros((0, self._a0[-1]), np.float32)
        self._rew = np.zeros((0, self.n), np.float32)
        self._done = np.zeros((0, self.n), np.float32)
        self.size = 0                         # rows holding transitions
        self.next = 0                         # row the next transition goes to
        self.added = 0                        # transitions ever added

    def __len__(self) -> int:
        return self.size

    def _grow(self) -> None:
        rows = min(self.capacity, max(self._rows * 2, _CHUNK))
        for name in ("_obs", "_next", "_act", "_rew", "_done"):
            old = getattr(self, name)
            new = np.zeros((rows, old.shape[1]), np.float32)
            new[:len(old)] = old
            setattr(self, name, new)
        self._rows = rows

    def add(self, obs, act, rew, next_obs, done) -> None:
        """Store one joint transition (per-agent lists/arrays in agent order)."""
        if self.next >= self._rows:
            self._grow()
        k = self.next
        self._obs[k] = np.concatenate(obs)
        self._act[k] = np.concatenate(act)
        self._next[k] = np.concatenate(next_obs)
        self._rew[k] = rew
        self._done[k] = done
        self.next = (k + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        self.added += 1

    def sample_index(self, rng: np.random.Generator, batch: int) -> np.ndarray:
        """``batch`` rows drawn uniformly with replacement (openai/maddpg's ``make_index``)."""
        if self.size == 0:
            raise ManifestError("replay buffer: cannot sample from an empty buffer")
        return rng.integers(0, self.size, size=batch)

    def gather(self, index: np.ndarray, rng: np.random.Generator) -> Batch:
        """The transitions at ``index`` and fresh Gumbel noise for them from ``rng``."""
        o, a = self._o0, self._a0
        obs, nxt, act = self._obs[index], self._next[index], self._act[index]
        B = len(index)
        return Batch(
            index=np.asarray(index),
            obs=[obs[:, o[i]:o[i + 1]] for i in range(self.n)],
            act=[act[:, a[i]:a[i + 1]] for i in range(self.n)],
            rew=[self._rew[index, i] for i in range(self.n)],
            next_obs=[nxt[:, o[i]:o[i + 1]] for i in range(self.n)],
            done=[self._done[index, i] for i in range(self.n)],
            noise_target=[gumbel_noise(rng, (B, d)) for d in self.act_dims],
            noise_policy=[gumbel_noise(rng, (B, d)) for d in self.act_dims],
        )

    def sample(self, rng: np.random.Generator, batch: int) -> Batch:
        """:meth:`sample_index` then :meth:`gather`, both from ``rng``."""
        return self.gather(self.sample_index(rng, batch), rng)
