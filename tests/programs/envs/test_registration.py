"""Registration of the plants with gymnasium (programs/envs/__init__.py)."""

from __future__ import annotations

import gymnasium as gym

from rlaccel.programs import envs as programs_envs
from rlaccel.programs.envs import ENV_IDS, BallBeamEnv, CartPoleADPEnv, TripleLinkEnv, register_envs


def test_importing_the_package_registers_the_three_ids():
    """After ``import rlaccel.programs.envs`` the three rlaccel/ ids make the three plant classes."""
    assert set(ENV_IDS) == {"rlaccel/CartPoleADP-v0", "rlaccel/TripleLink-v0",
                            "rlaccel/BallBeam-v0"}
    classes = {env_id: type(gym.make(env_id).unwrapped) for env_id in ENV_IDS}
    assert classes == {"rlaccel/CartPoleADP-v0": CartPoleADPEnv,
                       "rlaccel/TripleLink-v0": TripleLinkEnv,
                       "rlaccel/BallBeam-v0": BallBeamEnv}


def test_register_envs_is_idempotent():
    """Calling register_envs() again changes nothing and raises no duplicate warning."""
    before = {env_id: gym.spec(env_id) for env_id in ENV_IDS}
    register_envs()
    register_envs()
    assert {env_id: gym.spec(env_id) for env_id in ENV_IDS} == before


def test_kwargs_pass_through_make():
    """Constructor options given to gymnasium.make reach the env."""
    env = gym.make("rlaccel/CartPoleADP-v0", force_mode="analog", substeps=3).unwrapped
    assert env.force_mode == "analog" and env.substeps == 3


def test_public_names():
    """The package exports the three classes, the id table and register_envs, the
    multi-agent id table with its make_parallel, and make_checked, nothing else."""
    assert sorted(programs_envs.__all__) == ["BallBeamEnv", "CartPoleADPEnv", "ENV_IDS",
                                             "PARALLEL_ENV_IDS", "TripleLinkEnv",
                                             "make_checked", "make_parallel",
                                             "register_envs"]
