"""Plant environments of the ADHDP benchmarks, registered with gymnasium as ``rlaccel/...``.

The seed's three ADHDP benchmarks (Zheng & Mazumder 2018, §III): cart-pole, triple-link
inverted pendulum, beam balancing. No package provides these variants, so they live here::

    import gymnasium as gym
    import programs.envs                      # registers the ids below

    env = gym.make("rlaccel/CartPoleADP-v0", force_mode="analog")
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step([0.3])

==========================  =====================  =========================================
id                          class                  plant
==========================  =====================  =========================================
``rlaccel/CartPoleADP-v0``  :class:`CartPoleADPEnv` Si & Wang / He 2012 cart-pole, friction
``rlaccel/TripleLink-v0``   :class:`TripleLinkEnv`  He 2012 triple-link pendulum on a cart
``rlaccel/BallBeam-v0``     :class:`BallBeamEnv`    Hauser et al. 1992 torque ball and beam
==========================  =====================  =========================================

No id sets ``max_episode_steps`` (the host counts steps to success); pass it to
``gymnasium.make`` to get a ``TimeLimit``.
"""

from __future__ import annotations

import gymnasium as gym

from programs.envs.ball_beam import BallBeamEnv
from programs.envs.cartpole_adp import CartPoleADPEnv
from programs.envs.triple_link import TripleLinkEnv

__all__ = ["ENV_IDS", "BallBeamEnv", "CartPoleADPEnv", "TripleLinkEnv", "register_envs"]

ENV_IDS = {
    "rlaccel/CartPoleADP-v0": "programs.envs.cartpole_adp:CartPoleADPEnv",
    "rlaccel/TripleLink-v0": "programs.envs.triple_link:TripleLinkEnv",
    "rlaccel/BallBeam-v0": "programs.envs.ball_beam:BallBeamEnv",
}


def register_envs() -> None:
    """Register every id of :data:`ENV_IDS` with gymnasium; calling it again does nothing."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, max_episode_steps=None)


register_envs()
