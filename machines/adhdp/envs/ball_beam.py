"""Ball-and-beam ("beam balancing"), torque driven (``rlaccel/BallBeam-v0``).

The ADHDP accelerator paper (Zheng & Mazumder 2018) balances a beam but omits the model,
and the model of the ADP literature it cites could not be retrieved
(``shared/reference/benchmarks.md`` §1.3). This env uses the torque-driven nonlinear ball
and beam of Hauser, Sastry & Kokotović, "Nonlinear control via approximate input-output
linearization: the ball and beam example", IEEE TAC 37(3):392-398, 1992, in the form of the
PyMoskito example (``cklb/pymoskito``, ``examples/ballbeam``)::

    r''  = B (r θ'² − g sinθ) − b_r r' / (M + Jb/R²),          B = M / (Jb/R² + M)
    θ''  = (τ − M (2 r r' θ' + g r cosθ) − b_θ θ') / (M r² + J + Jb)

r is the ball position along the beam from the pivot (positive to the right), θ the beam
angle (positive lifts the right end), τ the torque at the pivot. These are the
Euler-Lagrange equations of ``T = ½(M + Jb/R²) r'² + ½(J + Jb + M r²) θ'²`` and
``V = M g r sinθ``. The viscous terms b_r (ball rolling, N s/m) and b_θ (beam pivot,
N m s) are not in Hauser's model; they default to 0 and exist so the dissipation can be
tested.

Parameters and where they come from — every one is a keyword argument:

==================  ===========  ===========================================================
kwarg               default      source
==================  ===========  ===========================================================
``ball_mass`` M     0.0162 kg    [M] recollection of the He-group ADP ball-and-beam,
                                 benchmarks.md §1.3 — **unverified**
``ball_radius`` R   0.02 m       [M] same recollection — unverified
``ball_inertia`` Jb 4.32e-5      [M] same recollection — unverified. Note: (2/3) M R² =
                    kg m²        4.32e-6 kg m² (thin spherical shell), so the recalled value
                                 may be ten times too large; with 4.32e-5 the ball's rolling
                                 inertia Jb/R² = 0.108 kg dwarfs its mass and B = 0.13
                                 (a solid ball has B = 5/7, a shell 3/5).
``beam_inertia`` J  0.14025      [M] same recollection — unverified (a uniform 1 m beam of
                    kg m²        1.68 kg about its centre)
``beam_length`` L   1.0 m        [M] same recollection — unverified
``gravity`` g       9.8 m/s²     as in the cart-pole and triple-link models
``tau_max``         0.5 N m      our choice (below)
``theta_limit_deg`` 30°          our choice (below)
==================  ===========  ===========================================================

``tau_max`` = 0.5 N m: about six times the largest gravity torque the ball can put on the
beam (M g L/2 = 0.079 N m), so the beam can always be driven back whatever the ball does,
yet a full-scale torque held from rest needs about 0.54 s (27 steps) to swing the beam to
the 30° limit, so a 50 Hz controller has time to act (comparable with the ≈0.6-0.8 s the
cart-pole takes to fall). ``theta_limit_deg`` = 30°: the beam must stay well inside the
range where the ball stays on a real beam; PyMoskito fails only at 90°.

Action a in [-1, 1]: torque τ = tau_max·a (``info["plant_input"]`` in N m).
State and observation: ``[r, r', θ, θ']`` (m, m/s, rad, rad/s).
Reinforcement: -1 and termination when |r| > L/2 (the ball leaves the beam) or
|θ| > theta_limit, else 0. Sample period 0.02 s (as the cart-pole), RK4 with ``substeps``
(default 1: the plant is slow, λ ≈ 1.1 s⁻¹ open loop, and one RK4 step already errs by less
than 1e-9 of ``state_scale``).
Initial state: r ~ U[-init_r, init_r] (0.05 m), θ ~ U[-init_theta_deg, init_theta_deg]
(1°), r' = θ' = 0.

``state_scale`` = [L/2, v_r, theta_limit, w_θ], derived from the parameters: the position
limits, v_r = sqrt(2 B g sin(theta_limit) L/2) the speed of a ball rolling from the centre
to the end on a beam held at the limit angle, and w_θ = sqrt(2 (tau_max/(J + Jb))
(2 theta_limit)) the rate a full-scale torque gives the empty beam across its whole angle
range. With the defaults: [0.5 m, 0.80 m/s, 0.524 rad, 2.73 rad/s].
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.programs.envs._plant import PlantEnv, _nonnegative, _positive, _readonly

__all__ = ["BallBeamEnv"]

_DEG = math.pi / 180.0


class BallBeamEnv(PlantEnv):
    """Hauser-Sastry-Kokotović torque-driven ball and beam; see the module docstring.

    Options (all keyword): ``ball_mass``, ``ball_radius``, ``ball_inertia``,
    ``beam_inertia``, ``beam_length``, ``gravity``, ``tau_max``, ``theta_limit_deg``,
    ``ball_damping``, ``beam_damping``, ``init_r``, ``init_theta_deg``, ``substeps``
    (RK4 sub-steps per period, default 1), ``dt`` (0.02 s), ``render_mode`` (None | "ansi").
    """

    state_names = ("r", "r_dot", "theta", "theta_dot")

    def __init__(self, *, ball_mass: float = 0.0162, ball_radius: float = 0.02,
                 ball_inertia: float = 4.32e-5, beam_inertia: float = 0.14025,
                 beam_length: float = 1.0, gravity: float = 9.8, tau_max: float = 0.5,
                 theta_limit_deg: float = 30.0, ball_damping: float = 0.0,
                 beam_damping: float = 0.0, init_r: float = 0.05,
                 init_theta_deg: float = 1.0, substeps: int = 1, dt: float = 0.02,
                 render_mode: str | None = None):
        self._keep(_positive, ball_mass=ball_mass, ball_radius=ball_radius,
                   beam_inertia=beam_inertia, beam_length=beam_length, gravity=gravity)
        self._keep(_nonnegative, ball_inertia=ball_inertia, tau_max=tau_max,
                   ball_damping=ball_damping, beam_damping=beam_damping, init_r=init_r)
        theta_limit_deg = _positive("theta_limit_deg", theta_limit_deg)
        if theta_limit_deg >= 90.0:
            raise ValueError(
                f"theta_limit_deg must be below 90 (a vertical beam drops the ball), "
                f"not {theta_limit_deg!r}")
        self.theta_limit = theta_limit_deg * _DEG
        self.r_limit = 0.5 * self.beam_length
        if self.init_r >= self.r_limit:
            raise ValueError(f"init_r must be below beam_length/2 = {self.r_limit}, "
                             f"not {init_r!r}")
        self.init_theta = _nonnegative("init_theta_deg", init_theta_deg) * _DEG
        if self.init_theta >= self.theta_limit:
            raise ValueError(f"init_theta_deg must be below theta_limit_deg = "
                             f"{theta_limit_deg}, not {init_theta_deg!r}")
        self._ball_mass_eff = self.ball_mass + self.ball_inertia / self.ball_radius ** 2
        self.B = self.ball_mass / self._ball_mass_eff
        v_r = math.sqrt(2.0 * self.B * self.gravity * math.sin(self.theta_limit) * self.r_limit)
        w_theta = math.sqrt(2.0 * self.tau_max / (self.beam_inertia + self.ball_inertia)
                            * 2.0 * self.theta_limit)
        self.state_scale = _readonly([self.r_limit, v_r, self.theta_limit,
                                      w_theta if w_theta > 0.0 else 1.0])
        self._setup(dt=dt, substeps=substeps, render_mode=render_mode)

    def state_derivative(self, state: np.ndarray, plant_input: float) -> np.ndarray:
        """[r', r'', θ', θ''] of Hauser et al. (1992) for the torque ``plant_input`` (N m)."""
        r, rd, th, thd = state.tolist()
        M, g = self.ball_mass, self.gravity
        rdd = (self.B * (r * thd * thd - g * math.sin(th))
               - self.ball_damping * rd / self._ball_mass_eff)
        thdd = ((plant_input - M * (2.0 * r * rd * thd + g * r * math.cos(th))
                 - self.beam_damping * thd)
                / (M * r * r + self.beam_inertia + self.ball_inertia))
        return np.array((rd, rdd, thd, thdd))

    def _plant_input(self, action: float) -> float:
        return self.tau_max * action

    def _limits(self) -> tuple[tuple[int, float], ...]:
        return (0, self.r_limit), (2, self.theta_limit)

    def _initial_state(self) -> np.ndarray:
        r, th = self.np_random.uniform((-self.init_r, -self.init_theta),
                                       (self.init_r, self.init_theta))
        return np.array((r, 0.0, th, 0.0))
