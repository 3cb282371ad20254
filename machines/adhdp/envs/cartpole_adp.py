"""Cart-pole with cart and pole friction, as balanced by ADHDP (``rlaccel/CartPoleADP-v0``).

The plant of Barto, Sutton & Anderson (1983) as used by Si & Wang (2001) and restated by
He, Ni & Fu (2012) §3.1 eqs. (24)-(27) (see ``shared/reference/benchmarks.md`` §1.1)::

    θ'' = [ g sinθ + cosθ (−F − m l θ'² sinθ + μc sgn(x')) / (mc + m)
            − μp θ' / (m l) ]  /  [ l (4/3 − m cos²θ / (mc + m)) ]
    x'' = [ F + m l (θ'² sinθ − θ'' cosθ) − μc sgn(x') ] / (mc + m)

θ is the pole angle from upright (positive = the direction of +x), x the cart position, F the
force on the cart, sgn(0) = 0. g = +9.8 m/s², mc = 1.0 kg, m = 0.1 kg, l = 0.5 m (half the
pole length), μc = 0.0005 (cart-track Coulomb friction, N), μp = 0.000002 (pole-pivot
viscous friction, N m s). Without friction these are the Euler-Lagrange equations of a cart
carrying a uniform rod, whose energy is
``E = ½(mc+m)x'² + m l x' θ' cosθ + ⅔ m l² θ'² + m g l cosθ``.

State and observation, in the order of the Si-lab MATLAB code: ``[θ, θ', x, x']`` (rad,
rad/s, m, m/s). Sample period 0.02 s (Si-lab ``tstep``), integrated by RK4 with
``substeps`` sub-steps, default 2 (the Si-lab code uses ``ode45``). The one-step error is
then below 2^-18 (the accelerator's Q6.18 resolution) of ``state_scale``; what is left comes
from the Coulomb term switching sign inside a step, which more sub-steps hardly reduce.

Action: the actor output u in [-1, 1]. ``force_mode="bang-bang"`` (default, Si-lab
``CTL_TYPE=0``): F = +10 N if u >= 0 else -10 N — the Si-lab code tests ``newAction >= 0``,
so u = 0 pushes with +10 N (MATLAB's ``sign(0)`` would give 0 N, but the code does not use
it). ``force_mode="analog"`` (``CTL_TYPE=1``): F = 10 u N.

Reinforcement: -1 and termination when |θ| > 12° or |x| > 2.4 m, else 0.

Initial state: ``init="he2012"`` (default): θ ~ U[-0.1°, 0.1°], θ' ~ U[-0.5, 0.5] °/s,
x = x' = 0 (He 2012's 100 runs; the printed unit of θ' is ambiguous, °/s is the likely
reading). ``init="zero"``: all zeros, as in the Si-lab code.

``state_scale`` is the Si-lab input normalisation ``NF = [12°, 120°/s, 2.4 m, 1.5 m/s]``
(in rad, rad/s, m, m/s); the host divides the observation by it before the networks.
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.programs.envs._plant import (PlantEnv, _choice, _nonnegative, _positive, _readonly,
                                  _sign)

__all__ = ["CartPoleADPEnv"]

_DEG = math.pi / 180.0


class CartPoleADPEnv(PlantEnv):
    """Si & Wang / He 2012 cart-pole with friction; see the module docstring for the model.

    Options (all keyword): ``force_mode`` ("bang-bang" | "analog"), ``init``
    ("he2012" | "zero"), ``substeps`` (RK4 sub-steps per 0.02 s period, default 2), ``dt``,
    ``gravity``, ``cart_mass``, ``pole_mass``, ``pole_half_length``, ``mu_c``, ``mu_p``,
    ``force_mag``, ``render_mode`` (None | "ansi"). ``info["plant_input"]`` is the force in N.
    """

    state_names = ("theta", "theta_dot", "x", "x_dot")
    state_scale = _readonly([12.0 * _DEG, 120.0 * _DEG, 2.4, 1.5])
    theta_limit = 12.0 * _DEG
    x_limit = 2.4

    def __init__(self, *, force_mode: str = "bang-bang", init: str = "he2012",
                 substeps: int = 2, dt: float = 0.02, gravity: float = 9.8,
                 cart_mass: float = 1.0, pole_mass: float = 0.1,
                 pole_half_length: float = 0.5, mu_c: float = 0.0005,
                 mu_p: float = 0.000002, force_mag: float = 10.0,
                 render_mode: str | None = None):
        self.force_mode = _choice("force_mode", force_mode, ("bang-bang", "analog"))
        self.init = _choice("init", init, ("he2012", "zero"))
        self._keep(_positive, gravity=gravity, cart_mass=cart_mass, pole_mass=pole_mass,
                   pole_half_length=pole_half_length)
        self._keep(_nonnegative, mu_c=mu_c, mu_p=mu_p, force_mag=force_mag)
        self._setup(dt=dt, substeps=substeps, render_mode=render_mode)

    def state_derivative(self, state: np.ndarray, plant_input: float) -> np.ndarray:
        """[θ', θ'', x', x''] from He 2012 eqs. (24)-(25) for the force ``plant_input`` (N)."""
        th, thd, _x, xd = state.tolist()
        g, m, l = self.gravity, self.pole_mass, self.pole_half_length
        mt = self.cart_mass + m
        s, c = math.sin(th), math.cos(th)
        friction_c = self.mu_c * _sign(xd)
        thdd = ((g * s + c * (-plant_input - m * l * thd * thd * s + friction_c) / mt
                 - self.mu_p * thd / (m * l))
                / (l * (4.0 / 3.0 - m * c * c / mt)))
        xdd = (plant_input + m * l * (thd * thd * s - thdd * c) - friction_c) / mt
        return np.array((thd, thdd, xd, xdd))

    def _plant_input(self, action: float) -> float:
        if self.force_mode == "bang-bang":
            return self.force_mag if action >= 0.0 else -self.force_mag
        return self.force_mag * action

    def _limits(self) -> tuple[tuple[int, float], ...]:
        return (0, self.theta_limit), (2, self.x_limit)

    def _initial_state(self) -> np.ndarray:
        if self.init == "zero":
            return np.zeros(4)
        th, thd = self.np_random.uniform((-0.1 * _DEG, -0.5 * _DEG), (0.1 * _DEG, 0.5 * _DEG))
        return np.array((th, thd, 0.0, 0.0))
