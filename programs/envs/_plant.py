"""What the three ADHDP plants share: the gymnasium contract around an integrated ODE.

Each plant is a continuous-time system ``state' = state_derivative(state, plant_input)``
sampled every ``dt`` seconds. The actor's output ``action`` in [-1, 1] is turned into a
physical input (force, voltage or torque) and held for one period (zero-order hold), and the
state is advanced with :func:`programs.envs.rk4.rk4_step`. The reinforcement is the
Si & Wang (2001) binary signal: -1 at the step where the state leaves its allowed region
(the episode terminates), 0 otherwise.

Conventions common to all plants:

* Everything is float64. Observations are the raw physical state in SI units (radians,
  metres, seconds), unbounded like the MuJoCo envs; a host normalises by ``state_scale``.
* Randomness comes only from ``self.np_random`` (seeded by ``reset(seed=...)``), so a seed
  fixes the whole trajectory bit for bit.
* ``reset(options={"state": array})`` starts from that exact state instead of a random one.
* Actions outside [-1, 1] are clipped (actuator saturation); a non-finite action or one of
  the wrong size raises ``ValueError``.
* ``step`` after termination keeps integrating the plant (gymnasium leaves this undefined;
  here it is the physics continued) and keeps reporting the failure.
* ``info`` of ``step`` holds ``plant_input`` (the physical input applied, in the units the
  plant documents) and ``failure`` (``None`` or the name of the first state variable found
  outside its limit).
* ``render_mode`` is ``None`` or ``"ansi"`` (one fixed-width text line of the state).
* ``state_derivative(state, plant_input)`` is public (linearisation, model-based hosts,
  tests) and ``state`` returns a copy of the current state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from rlaccel.programs.envs.rk4 import rk4_step
from rlaccel.util.numbers import is_whole

__all__ = ["PlantEnv"]

_RENDER_MODES = ("ansi",)


class PlantEnv(gym.Env[np.ndarray, np.ndarray]):
    """Base class: a sampled ODE plant with a scalar input and the 0/-1 reinforcement.

    Subclasses set ``state_names``, ``self.state_scale``, ``self.dt`` and
    ``self.substeps`` (through :meth:`_setup`) and implement :meth:`state_derivative`,
    :meth:`_plant_input`, :meth:`_limits` and :meth:`_initial_state`.
    """

    metadata: dict[str, Any] = {"render_modes": list(_RENDER_MODES), "render_fps": 50}
    state_names: tuple[str, ...] = ()

    # ----- construction helpers ------------------------------------------------------------

    def _setup(self, *, dt: float, substeps: int, render_mode: str | None) -> None:
        """Check the common options and build the spaces."""
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise ValueError(
                f"render_mode must be None or 'ansi', not {render_mode!r} "
                "(the rlaccel plants have no graphical rendering)")
        self.render_mode = render_mode
        self.dt = _positive("dt", dt)
        if not is_whole(substeps, types=(int, np.integer)):
            raise ValueError(f"substeps must be a positive integer, not {substeps!r}")
        self.substeps = int(substeps)
        n = len(self.state_names)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(n,), dtype=np.float64)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float64)
        self._state: np.ndarray | None = None

    def _keep(self, check, **options: Any) -> None:
        """Keep each option as the attribute of its name once ``check(name, value)``
        (:func:`_positive`, :func:`_nonnegative`) has accepted it (a ValueError otherwise)."""
        for name, value in options.items():
            setattr(self, name, check(name, value))

    # ----- what a plant defines ------------------------------------------------------------

    def state_derivative(self, state: np.ndarray, plant_input: float) -> np.ndarray:
        """The time derivative of ``state`` under the physical input ``plant_input``."""
        raise NotImplementedError

    def _plant_input(self, action: float) -> float:
        """The physical input for an action already clipped to [-1, 1]."""
        raise NotImplementedError

    def _limits(self) -> Sequence[tuple[int, float]]:
        """The allowed region: (state index, largest magnitude) pairs, in the order checked."""
        raise NotImplementedError

    def _failure(self, state: np.ndarray) -> str | None:
        """``None`` inside the allowed region, else the name of the first variable outside it."""
        for i, limit in self._limits():
            if abs(state[i]) > limit:
                return self.state_names[i]
        return None

    def _initial_state(self) -> np.ndarray:
        """A random initial state drawn from ``self.np_random``."""
        raise NotImplementedError

    # ----- gymnasium API -------------------------------------------------------------------

    @property
    def state(self) -> np.ndarray:
        """A copy of the current plant state (raises ``ResetNeeded`` before ``reset``)."""
        if self._state is None:
            raise ResetNeeded("call reset() before reading the state")
        return self._state.copy()

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = {} if options is None else options
        unknown = sorted(set(options) - {"state"})
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; the only option is 'state'")
        if "state" in options:
            self._state = self._check_state(options["state"])
        else:
            self._state = np.asarray(self._initial_state(), dtype=np.float64)
        return self._state.copy(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._state is None:
            raise ResetNeeded("call reset() before step()")
        u = self._plant_input(self._check_action(action))
        self._state = rk4_step(lambda s: self.state_derivative(s, u), self._state,
                               self.dt, self.substeps)
        failure = self._failure(self._state)
        terminated = failure is not None
        reward = -1.0 if terminated else 0.0
        return (self._state.copy(), reward, terminated, False,
                {"plant_input": u, "failure": failure})

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: one fixed-width line ``name=+value ...`` (SI units)."""
        if self.render_mode != "ansi":
            return None
        if self._state is None:
            return "<not reset>"
        return " ".join(f"{name}={value:+.6e}"
                        for name, value in zip(self.state_names, self._state))

    # ----- argument checks -----------------------------------------------------------------

    def _check_state(self, state: Any) -> np.ndarray:
        n = len(self.state_names)
        try:
            arr = np.array(state, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"options['state'] must be {n} numbers {list(self.state_names)}, "
                f"not {state!r}") from None
        if arr.shape != (n,):
            raise ValueError(
                f"options['state'] must have shape ({n},) in the order "
                f"{list(self.state_names)}, not shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"options['state'] must be finite, not {arr.tolist()}")
        return arr

    @staticmethod
    def _check_action(action: Any) -> float:
        arr = np.asarray(action, dtype=np.float64)
        if arr.size != 1:
            raise ValueError(f"action must hold one number, not shape {arr.shape}")
        a = float(arr.reshape(()))
        if not math.isfinite(a):
            raise ValueError(f"action must be finite, not {a}")
        return min(1.0, max(-1.0, a))


# ----- constructor-option checks shared by the plants ----------------------------------------

def _positive(name: str, value: Any) -> float:
    v = _number(name, value)
    if not v > 0.0:
        raise ValueError(f"{name} must be positive, not {value!r}")
    return v


def _nonnegative(name: str, value: Any) -> float:
    v = _number(name, value)
    if not v >= 0.0:
        raise ValueError(f"{name} must be non-negative, not {value!r}")
    return v


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, not {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, not {value!r}")
    return v


def _choice(name: str, value: Any, choices: Sequence[str]) -> str:
    if value not in choices:
        options = " or ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be {options}, not {value!r}")
    return value


def _sign(v: float) -> float:
    """sgn with sgn(0) = 0, as in the Coulomb-friction terms of the sources."""
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)


def _readonly(values: Sequence[float]) -> np.ndarray:
    arr = np.array(values, dtype=np.float64)
    arr.flags.writeable = False
    return arr
