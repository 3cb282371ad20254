"""The knobs of a FIXAR DDPG run, in one frozen dataclass, with where each value comes from.

The FIXAR paper (section VI-B) fixes the networks (actor S-400-300-A, ReLU, tanh output; critic
(S+A)-400-300-1, ReLU, the action entering at the input layer), Adam with a learning rate of
1e-4 for both networks, mini-batches of 64..512, 1 M time steps with an evaluation every 5000
(the mean return of 10 episodes). What it leaves to DDPG (Lillicrap et al. 2016, via
``../shared/reference/benchmarks.md`` section 2.1) we take from there: gamma 0.99, tau 0.001,
a replay buffer of 1 M transitions, final layers initialised in +-3e-3; Gaussian exploration
noise of sigma 0.1 (benchmarks.md's advice; the hardware PRNG draws Gaussians) and 10,000
uniformly random warm-up steps before training starts (rl-zoo's ``learning_starts`` for
MuJoCo DDPG). ``machines/fixar/README.md`` lists every choice.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from rlaccel.util.errors import RlaccelError

__all__ = ["DdpgConfig", "ConfigError", "NUMERICS", "ACT_FORMATS", "TANH_GRADS"]

#: how the reference computes: float32 (the CPU baseline), float64 (for gradient checks),
#: fixed (the accelerator's arithmetic through tlm.families.fixar and isa.dtypes)
NUMERICS = ("float32", "float64", "fixed")
#: how the fixed-point machine differentiates the actor's PWL tanh: "segment" (the table's
#: own slope at the pre-activation, zero beyond xmax) or "output" (``1 - y^2``)
TANH_GRADS = ("segment", "output")
#: storage formats of activations on the fixed-point machine before the quantization delay
#: (or throughout, without QAT)
ACT_FORMATS = ("fixed32", "fixed16")


class ConfigError(RlaccelError):
    """A DDPG configuration value is out of range or of the wrong kind."""


@dataclass(frozen=True)
class DdpgConfig:
    """One run. Steps are environment time steps (the paper's ``t``)."""

    env_id: str = "HalfCheetah-v5"
    seed: int = 1
    steps: int = 100_000             # environment steps of the run
    start_steps: int = 10_000        # uniform random actions, no training, before this step
    batch: int = 64                  # B (the paper: 64, 128, 256, 512)
    buffer: int = 1_000_000          # replay capacity (transitions)
    hidden: tuple = (400, 300)       # the paper, VI-B
    lr_actor: float = 1e-4           # the paper, VI-B
    lr_critic: float = 1e-4          # the paper, VI-B
    beta1: float = 0.9
    beta2: float = 0.999
    adam_eps: float = 1e-8
    gamma: float = 0.99
    tau: float = 0.001
    noise_sigma: float = 0.1         # Gaussian, in units of the action's half-range
    eval_every: int = 5000           # the paper, VI-B
    eval_episodes: int = 10          # the paper, VI-B
    numerics: str = "float32"
    weight_format: str = "fixed32"   # weights and biases (fixed numerics)
    act_format: str = "fixed32"      # stored activations before the delay / without QAT
    error_format: str = "fixed32"    # back-propagated errors
    grad_format: str = "fixed32"     # weight gradients
    qat_delay: int | None = None     # step d of Algorithm 1 (None: no QAT)
    qat_bits: int = 16               # n of Algorithm 1
    pwl_segments: int = 32           # the activation unit's tanh table
    tanh_grad: str = "segment"       # fixed point: tanh' from the table's slope (see TANH_GRADS)

    def __post_init__(self):
        def need(ok, what):
            if not ok:
                raise ConfigError(f"DDPG configuration: {what}")
        need(self.numerics in NUMERICS,
             f"numerics = {self.numerics!r}; must be one of {', '.join(NUMERICS)}")
        need(self.act_format in ACT_FORMATS,
             f"act_format = {self.act_format!r}; must be one of {', '.join(ACT_FORMATS)}")
        for name in ("steps", "batch", "buffer", "eval_every", "eval_episodes"):
            need(isinstance(getattr(self, name), int) and getattr(self, name) >= 1,
                 f"{name} = {getattr(self, name)!r} must be a positive integer")
        need(self.tanh_grad in TANH_GRADS,
             f"tanh_grad = {self.tanh_grad!r}; must be one of {', '.join(TANH_GRADS)}")
        need(0 <= self.start_steps, f"start_steps = {self.start_steps} is negative")
        need(self.batch <= self.buffer, f"batch {self.batch} exceeds the buffer {self.buffer}")
        need(len(self.hidden) >= 1 and all(int(h) >= 1 for h in self.hidden),
             f"hidden = {self.hidden!r} must be positive layer widths")
        need(0 < self.gamma <= 1, f"gamma = {self.gamma} must be in (0, 1]")
        need(0 < self.tau <= 1, f"tau = {self.tau} must be in (0, 1]")
        need(self.lr_actor > 0 and self.lr_critic > 0, "learning rates must be positive")
        need(self.noise_sigma >= 0, f"noise_sigma = {self.noise_sigma} is negative")
        need(self.qat_delay is None or self.qat_delay >= 0,
             f"qat_delay = {self.qat_delay} is negative")
        need(self.qat_delay is None or self.numerics == "fixed",
             "qat_delay needs numerics = 'fixed' (QAT quantises the fixed-point activations)")

    @property
    def qat(self) -> bool:
        return self.qat_delay is not None

    def with_(self, **changes) -> "DdpgConfig":
        """A copy with ``changes``; an unknown key is a ConfigError naming it."""
        known = {f.name for f in fields(self)}
        bad = sorted(set(changes) - known)
        if bad:
            raise ConfigError(f"DDPG configuration has no key {', '.join(map(repr, bad))} "
                              f"(keys: {', '.join(sorted(known))})")
        return replace(self, **changes)
