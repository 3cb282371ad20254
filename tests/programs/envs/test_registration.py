"""Registration of the machines' environments with gymnasium (programs/envs/__init__.py)."""

from __future__ import annotations

import gymnasium as gym

from rlaccel.programs import envs as programs_envs
from rlaccel.machines.adhdp.envs.ball_beam import BallBeamEnv
from rlaccel.machines.adhdp.envs.cartpole_adp import CartPoleADPEnv
from rlaccel.machines.adhdp.envs.triple_link import TripleLinkEnv
from rlaccel.programs.envs import ENV_IDS, PARALLEL_ENV_IDS, register_envs


def test_importing_the_package_registers_the_machines_ids():
    """After ``import rlaccel.programs.envs`` the ids the machines declare (ADHDP's three
    plants; LearningGroup's multi-agent predator-prey) make their classes."""
    assert set(PARALLEL_ENV_IDS) == {"rlaccel/PredatorPrey-v2"}
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
    """The package exports the id tables, register_envs, make_parallel and make_checked,
    nothing else: the classes stay in their machines."""
    assert sorted(programs_envs.__all__) == ["ENV_IDS", "PARALLEL_ENV_IDS", "make_checked",
                                             "make_parallel", "register_envs"]
