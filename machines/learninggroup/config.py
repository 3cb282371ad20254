"""The knobs of an IC3Net + FLGW run: the network the accelerator holds (:class:`NetConfig`)
and the learning the host drives (:class:`LearningConfig`).

Defaults follow IC3Net's reference code (``IC3Net/IC3Net`` ``main.py``, ``trainer.py`` with
``--ic3net --recurrent``, IC3Net's grid sizes) and the paper
(section IV-A: RMSprop, learning rate 0.001, mini-batch B, 2000 iterations). Where the two
differ the paper wins and the docstring of the field says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlaccel.util.errors import RlaccelError

__all__ = ["NetConfig", "LearningConfig", "LAYERS", "GROUPABLE", "ConfigError"]

#: IC3Net's weight matrices, in the order the reference stores them (input x output)
LAYERS = ("encoder", "comm", "lstm_ih", "lstm_hh", "action", "talk", "value")
#: the layers FLGW may group; the three heads (5, 2 and 1 outputs) stay dense, since G
#: groups of one output would leave most of the G-1 other groups without an output
GROUPABLE = ("encoder", "comm", "lstm_ih", "lstm_hh")


class ConfigError(RlaccelError):
    """A network or learning knob is out of range."""


@dataclass(frozen=True)
class NetConfig:
    """IC3Net's network with fully learnable weight grouping.

    ``hid`` -- hidden size H (IC3Net's ``hid_size``; 128 in every README command, and the
    paper's 128 x 512 mask of Fig. 10 is the LSTM's H x 4H input matrix at H = 128).
    ``groups`` -- G, the number of weight groups (1 = dense; the paper sweeps 1..32).
    ``grouped`` -- the layers FLGW masks (each gets its own IG and OG matrices).
    ``nactions`` -- the environment actions (5 for predator-prey); the talk head has 2.
    """

    hid: int = 128
    groups: int = 1
    grouped: tuple[str, ...] = GROUPABLE
    nactions: int = 5

    def __post_init__(self):
        if self.hid < 1:
            raise ConfigError(f"hid must be >= 1, not {self.hid}")
        if self.groups < 1:
            raise ConfigError(f"groups must be >= 1, not {self.groups}")
        bad = [g for g in self.grouped if g not in GROUPABLE]
        if bad:
            raise ConfigError(f"grouped layers {bad} are not among {', '.join(GROUPABLE)}")

    def is_grouped(self, layer: str) -> bool:
        return self.groups > 1 and layer in self.grouped


@dataclass(frozen=True)
class LearningConfig:
    """What the host keeps: environment, batches, returns, optimiser constants, seed.

    ``batch_episodes`` -- B, episodes per weight update (the paper's mini-batch, 1..32; IC3Net
    instead collects 500 steps per process per update). ``iterations`` -- weight updates
    (the paper runs 2000). RMSprop ``lr``/``alpha``/``eps`` as IC3Net's trainer (torch's
    RMSprop: ``v = alpha v + (1-alpha) g^2``, ``p -= lr g / (sqrt(v) + eps)``). ``gamma``
    1.0, ``value_coeff`` 0.01, ``entropy_coeff`` 0 and individual returns (IC3Net's
    ``--ic3net`` sets ``mean_ratio = 0``). ``detach_gap``: the LSTM state is cut from the
    gradient every 10 steps (the README's ``--detach_gap 10``). Gradients are summed over the
    batch and divided by its number of time steps, as IC3Net's ``train_batch`` does.
    ``dtype``: float32 (the reference) or float64 (for gradient checks).
    """

    env_id: str = "rlaccel/PredatorPrey-v2"
    env_kwargs: dict = field(default_factory=lambda: {"nagents": 4, "dim": 5, "vision": 0,
                                                      "max_steps": 20})
    batch_episodes: int = 8
    iterations: int = 2000
    lr: float = 1e-3
    alpha: float = 0.97
    eps: float = 1e-6
    gamma: float = 1.0
    value_coeff: float = 0.01
    entropy_coeff: float = 0.0
    detach_gap: int = 10
    seed: int = 1
    dtype: str = "float32"

    def __post_init__(self):
        if self.batch_episodes < 1:
            raise ConfigError(f"batch_episodes must be >= 1, not {self.batch_episodes}")
        if self.iterations < 0:
            raise ConfigError(f"iterations must be >= 0, not {self.iterations}")
        if self.detach_gap < 1:
            raise ConfigError(f"detach_gap must be >= 1, not {self.detach_gap}")
        if self.dtype not in ("float32", "float64"):
            raise ConfigError(f"dtype must be float32 or float64, not {self.dtype!r}")
