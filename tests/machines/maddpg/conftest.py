import numpy as np
import pytest

from rlaccel.machines.maddpg.config import MaddpgConfig
from rlaccel.machines.maddpg.reference import MaddpgReference
from rlaccel.machines.maddpg.replay import Batch, gumbel_noise
from rlaccel.machines.maddpg.task import AgentSpec

#: Cooperative Communication's widths, a MADDPG pair
PAIR = (AgentSpec("speaker_0", 3, 3, False, "maddpg"), AgentSpec("listener_0", 11, 5, False,
                                                                   "maddpg"))
#: a predator (MADDPG) and a prey (DDPG)
MIXED = (AgentSpec("adversary_0", 4, 5, True, "maddpg"), AgentSpec("agent_0", 3, 2, False,
                                                                     "ddpg"))


def make_batch(specs, B, rng, dtype=np.float32):
    """A random batch for agents ``specs``."""
    def arr(*shape):
        return rng.normal(size=shape).astype(dtype)
    return Batch(index=np.arange(B),
                 obs=[arr(B, s.obs_dim) for s in specs],
                 act=[np.abs(arr(B, s.act_dim)) for s in specs],
                 rew=[arr(B) for _ in specs],
                 next_obs=[arr(B, s.obs_dim) for s in specs],
                 done=[(rng.random(B) < 0.3).astype(dtype) for _ in specs],
                 noise_target=[gumbel_noise(rng, (B, s.act_dim)).astype(dtype) for s in specs],
                 noise_policy=[gumbel_noise(rng, (B, s.act_dim)).astype(dtype) for s in specs])


@pytest.fixture
def small():
    """A reference with small networks: ``small(specs, **config)``."""
    def build(specs=PAIR, seed=0, **kw):
        cfg = MaddpgConfig(hidden=kw.pop("hidden", (8, 8)), **kw)
        return MaddpgReference(cfg, specs, np.random.default_rng(seed))
    return build
