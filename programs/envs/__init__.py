"""Environments the machines provide, registered with gymnasium as ``rlaccel/...``.

Environments no package provides (the ADHDP paper's cart-pole variant, triple-link pendulum
and beam balancing; IC3Net's predator-prey) live in the machine that uses them
(``machines/<name>/envs/``) and are named in its descriptor (``MACHINE.environments`` and
``MACHINE.parallel_environments``); importing this package registers every one::

    import gymnasium as gym
    import rlaccel.programs.envs                      # registers the ids

    env = gym.make("rlaccel/CartPoleADP-v0", force_mode="analog")
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step([0.3])

No id sets ``max_episode_steps`` (the host counts steps to success); pass it to
``gymnasium.make`` to get a ``TimeLimit``.

Multi-agent environments are PettingZoo parallel environments, which gymnasium's registry
cannot hold; :data:`PARALLEL_ENV_IDS` names them and :func:`make_parallel` builds one::

    from rlaccel.programs.envs import make_parallel

    env = make_parallel("rlaccel/PredatorPrey-v2", nagents=4, dim=5, vision=0, max_steps=20)
    observations, infos = env.reset(seed=1)

The plant machinery several of them share is here: :mod:`._plant` (a continuous-time plant
integrated with :mod:`.rk4`).
"""

from __future__ import annotations

import importlib

import gymnasium as gym

from rlaccel.isa.machine import machines

__all__ = ["ENV_IDS", "register_envs", "PARALLEL_ENV_IDS", "make_parallel", "make_checked"]

#: gymnasium environments: id -> "module:class" (imported when first made)
ENV_IDS = {env_id: m.qualified(ref) for m in machines().values()
           for env_id, ref in m.environments.items()}

#: PettingZoo parallel environments: id -> "module:class" (imported when first made)
PARALLEL_ENV_IDS = {env_id: m.qualified(ref) for m in machines().values()
                    for env_id, ref in m.parallel_environments.items()}


def make_parallel(env_id: str, **kwargs):
    """A new PettingZoo parallel environment of :data:`PARALLEL_ENV_IDS` with ``kwargs`` as
    its options; an unknown id is an ``RlaccelError`` that lists the known ones."""
    from rlaccel.util.errors import RlaccelError

    if env_id not in PARALLEL_ENV_IDS:
        raise RlaccelError(f"no multi-agent environment {env_id!r} (known: "
                           f"{', '.join(sorted(PARALLEL_ENV_IDS))})")
    module, _, cls = PARALLEL_ENV_IDS[env_id].partition(":")
    return getattr(importlib.import_module(module), cls)(**kwargs)


def register_envs() -> None:
    """Register every id of :data:`ENV_IDS` with gymnasium; calling it again does nothing."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point, max_episode_steps=None)


register_envs()


def make_checked(env_id: str, kwargs: dict | None = None, *, actions: int | None = None,
                 origin: str = ""):
    """``gymnasium.make(env_id, **kwargs)`` for a manifest: an id that is not registered,
    whose module is missing or whose arguments are wrong, and (with ``actions``) an
    environment whose action space is not a flat Box of that many values, raise a
    ManifestError naming the environment -- never gymnasium's own exception."""
    from rlaccel.programs.manifest import ManifestError
    where = f"{origin}: " if origin else ""
    what = f"environment {env_id!r}" + (f" with {kwargs}" if kwargs else "")
    try:
        env = gym.make(env_id, **(kwargs or {}))
    except (gym.error.Error, ImportError, ValueError, TypeError, AttributeError) as exc:
        raise ManifestError(f"{where}{what}: {exc}") from None
    space = env.action_space
    if actions is not None and not (isinstance(space, gym.spaces.Box)
                                    and space.shape == (actions,)):
        env.close()
        raise ManifestError(f"{where}{what}: the program needs a continuous action space of "
                            f"{actions} value(s) (a Box of shape ({actions},)), not {space}")
    return env
