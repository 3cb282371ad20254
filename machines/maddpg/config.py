"""The knobs of a MADDPG run, with the reference implementation's values as defaults.

Defaults are openai/maddpg @ 3ceefa0 (``experiments/train.py``, ``maddpg/trainer/maddpg.py``;
``../shared/reference/benchmarks.md`` section 3.1): 25-step episodes, Adam with learning rate
1e-2, gamma 0.95, tau 0.01, batch 1024, a 10^6-step buffer, learning from 1024 * 25 stored
steps, an update every 100 environment steps, two hidden layers of 64 ReLU units, gradient
norm clipped to 0.5 per tensor, the actor's 1e-3 * mean(logits^2) regulariser.

Two choices are ours and switchable (``machines/maddpg/README.md``, "The reference"):

* ``schedule``: ``"parallel"`` (default) computes every agent's critic and actor gradients
  from the parameters at the start of the round and soft-updates all targets after every
  agent (the MADDPG paper's Algorithm 1, line 14; the accelerator's learners and their two pipelines
  run concurrently on one batch). ``"sequential"`` is openai/maddpg's order: agent by agent,
  critic step, actor step with the new critic, then that agent's targets.
* ``shared_batch``: True (default) draws one mini-batch for all agents (the batch the host
  streams to every learner, so the target actions exchanged over the ring belong to the same
  transitions); False draws one per agent as openai/maddpg does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from rlaccel.programs.manifest import ManifestError
from rlaccel.util.numbers import is_whole

__all__ = ["MaddpgConfig"]


@dataclass(frozen=True)
class MaddpgConfig:
    """One MADDPG run: task, budget and hyper-parameters."""

    env: str = "simple_speaker_listener_v4"
    policies: dict = field(default_factory=dict)   # agent name -> "maddpg" | "ddpg"
    env_kwargs: dict = field(default_factory=dict)  # the MPE2 environment's own arguments
    shared_reward: bool = True
    max_episode_len: int = 25
    episodes: int = 60000
    seed: int = 1
    hidden: tuple = (64, 64)
    lr: float = 1e-2
    gamma: float = 0.95
    tau: float = 0.01
    batch: int = 1024
    buffer: int = 1_000_000
    update_every: int = 100
    learning_starts: int | None = None             # None: batch * max_episode_len
    grad_clip: float | None = 0.5
    actor_reg: float = 1e-3
    optimizer: str = "adam"                        # "adam" (TF1 Adam) or "sgd"
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_eps: float = 1e-8
    schedule: str = "parallel"                     # or "sequential" (openai/maddpg)
    shared_batch: bool = True
    target_init: str = "independent"               # or "copy"

    def __post_init__(self):
        def positive_int(name):
            v = getattr(self, name)
            if not is_whole(v):
                raise ManifestError(f"MADDPG: {name} must be a positive integer, not {v!r}")
        for name in ("max_episode_len", "episodes", "batch", "buffer", "update_every"):
            positive_int(name)
        if self.learning_starts is not None and not is_whole(self.learning_starts):
            raise ManifestError(f"MADDPG: learning_starts must be a positive integer or None, "
                                f"not {self.learning_starts!r}")
        if not self.hidden or not all(map(is_whole, self.hidden)):
            raise ManifestError(f"MADDPG: hidden must list positive layer widths, not "
                                f"{self.hidden!r}")
        for name, lo, hi in (("gamma", 0.0, 1.0), ("tau", 0.0, 1.0)):
            v = getattr(self, name)
            if not lo <= v <= hi:
                raise ManifestError(f"MADDPG: {name} must be in [{lo}, {hi}], not {v!r}")
        for name in ("adam_beta1", "adam_beta2"):
            v = getattr(self, name)
            if not 0.0 <= v < 1.0:
                raise ManifestError(f"MADDPG: {name} must be in [0, 1) (Adam divides by "
                                    f"1 - {name[5:]}^t), not {v!r}")
        if not self.adam_eps > 0:
            raise ManifestError(f"MADDPG: adam_eps must be positive, not {self.adam_eps!r}")
        if not self.lr > 0:
            raise ManifestError(f"MADDPG: lr must be positive, not {self.lr!r}")
        if self.grad_clip is not None and not self.grad_clip > 0:
            raise ManifestError(f"MADDPG: grad_clip must be positive or None, not "
                                f"{self.grad_clip!r}")
        for name, allowed in (("optimizer", ("adam", "sgd")),
                              ("schedule", ("parallel", "sequential")),
                              ("target_init", ("independent", "copy"))):
            if getattr(self, name) not in allowed:
                raise ManifestError(f"MADDPG: {name} must be one of {', '.join(allowed)}, not "
                                    f"{getattr(self, name)!r}")

    @property
    def start(self) -> int:
        """Stored steps before the first update."""
        return (self.batch * self.max_episode_len if self.learning_starts is None
                else self.learning_starts)

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))
