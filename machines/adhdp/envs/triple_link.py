"""Triple-link inverted pendulum on a cart (``rlaccel/TripleLink-v0``).

The model of Si & Wang (2001) and Eltohamy & Kuo (1998) as re-printed by He, Ni & Fu (2012)
§4, eq. (28) and Table 3 (transcribed in ``shared/reference/benchmarks.md`` §1.2)::

    F(q) q'' = −G(q, q') q' − H(q) + L(q, u),        q = [x, θ1, θ2, θ3]

    F = [ A1      A2 c1     A3 c2     A4 c3   ]
        [ A9 c1   A10       A11 c12   A12 c13 ]
        [ A18 c2  A19 c12   A20       A21 c23 ]
        [ A28 c3  A29 c13   A30 c23   A31     ]

    G = [ A5  A6 s1 θ1'            A7 s2 θ2'            A8 s3 θ3'           ]
        [ 0   A13                  A14 s12 θ2' + A15    A16 s13 θ3'         ]
        [ 0   A22 s12 θ1' + A23    A24                  A25 s23 θ3' + A26   ]
        [ 0   A33 s13 θ1'          A35 s23 θ2' + A36    A32                 ]

    H = [0, A17 s1, A27 s2, A34 s3]ᵀ
    L = [Ks u − sgn(x') μx A37, −sgn(θ1') μ1 A38, −sgn(θ2') μ2 A39,
         −sgn(θ3') μ3 A40]ᵀ

with ci = cos θi, cij = cos(θi − θj), si, sij likewise, sgn(0) = 0. θi is the absolute angle
of link i from upright (the cos(θi − θj) couplings say so). The constants A1..A40 come from
Table 3: cart M = 1.014 kg; links m = (0.4506, 0.219, 0.0568) kg, lengths L = (0.43, 0.33,
0.13) m, joint-to-centre-of-gravity l = (0.37, 0.3, 0.05) m, inertias I = (0.0042, 0.0012,
0.00010609) kg m²; g = 9.8; viscous Cc = 5.5 N s/m (cart), C1 = C2 = C3 = 0.00026875 N m s
(joints); Coulomb μx = 0.07, μ1 = μ2 = μ3 = 0.003 with A37..A40 = 1.3, 0.506, 0.219, 0.568;
amplifier gain Ks = 24.7125 N/V. The equations of motion are solved for q'' with
``numpy.linalg.solve`` and integrated with RK4, sample period 5 ms (He 2012 §4), in 4
sub-steps by default: then the one-step error of the smooth (Coulomb-free) dynamics stays
below the accelerator's Q6.18 resolution (2^-18) after division by ``state_scale`` in 99 %
of the states a random policy visits (1 sub-step: about 200 times more). The Coulomb terms
switch sign inside a step whenever a velocity crosses zero; there RK4 is only first order
and a few sub-steps do not change that.

Two places where the printed paper is doubtful are switches:

* ``a10_mass="m1"`` (default): A10 = I1 + m1 l1² + (m2 + m3) L1², the link-1 inertia about
  its joint; ``"m2"`` uses the printed ``I1 + m2 l1² + ...``. F stays symmetric and
  positive definite either way (the Coriolis terms do not involve A10), so both conserve
  ``½ q'ᵀ F q' + V``, but only "m1" is the kinetic energy of the links.
* ``friction_sign="velocity"`` (default): Coulomb friction opposes the velocities x', θi';
  ``"position"`` uses sgn(x), sgn(θi) as printed.

Kept as printed although doubtful: the Coulomb terms of joints 2 and 3 act on the absolute
rates θ2', θ3', where the viscous terms (A15, A23, A26, A36) act on the relative rates
θ2' − θ1', θ3' − θ2'; and A38..A40 = 0.506, 0.219, 0.568 resemble the link masses m1, m2,
10 m3 (0.4506, 0.219, 0.0568), as if garbled.

Linearised at the upright with every friction term zero, the plant has eigenvalues 0, 0
(the cart) and ±4.87, ±9.08, ±11.75 s⁻¹; with the viscous terms kept (Coulomb terms off)
the unstable ones are 4.45, 8.84, 11.11 s⁻¹, the figures quoted in benchmarks.md. A 1° tilt
of all three links with u = 0 fails after 120 steps (0.6 s).

State and observation: ``[x, θ1, θ2, θ3, x', θ1', θ2', θ3']`` (m, rad, m/s, rad/s).
Action a in [-1, 1]: voltage u = 30 a V (He 2012: u in [-30 V, 30 V]); the cart force is
Ks u. ``info["plant_input"]`` is the voltage.
Reinforcement: -1 and termination when |x| > 1.0 m or any |θi| > 20°, else 0.
Initial state: x = x' = 0, θi ~ U[-1°, 1°], θi' ~ U[-0.5, 0.5] in °/s
(``init_rate_units="deg"``, He 2012's notation) or rad/s (``"rad"``, as He & Zhong 2018
print it).

``state_scale`` = [1 m, 20°, 20°, 20°, 2 m/s, 200°/s, 200°/s, 200°/s]. Positions: the
failure limits. Link rates: the limit times 10 s⁻¹, the ratio of the Si-lab cart-pole
normalisation (12° and 120°/s) and about the rate of the fastest unstable mode (λ ≈ 11 s⁻¹)
at the failure angle; open-loop falls from the initial distribution reach 1.5-2.9 rad/s
(85-165°/s) when they fail. Cart rate: 2 m/s, the 1 m limit over 0.5 s. The actuator is
strong: one full-scale 5 ms step changes x' by about 3.6 m/s and θ1' by about 9 rad/s, so a
balancing controller uses a small fraction of the range.
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.programs.envs._plant import (PlantEnv, _choice, _nonnegative, _positive, _readonly,
                                  _sign)

__all__ = ["TripleLinkEnv", "table3_constants"]

_DEG = math.pi / 180.0

# He 2012 Table 3: physical parameters.
_M = 1.014
_m = (0.4506, 0.219, 0.0568)
_L = (0.43, 0.33, 0.13)
_l = (0.37, 0.3, 0.05)
_I = (0.0042, 0.0012, 0.00010609)
_G = 9.8
_KS = 24.7125
_A37_40 = (1.3, 0.506, 0.219, 0.568)


def table3_constants(*, a10_mass: str = "m1", c_cart: float = 5.5,
                     c_joints: tuple[float, float, float] = (0.00026875,) * 3,
                     gravity: float = _G) -> np.ndarray:
    """The constants A1..A40 of He 2012 Table 3 as a read-only array ``A`` with ``A[k]`` = Ak.

    ``A[0]`` is unused (NaN). ``a10_mass`` chooses m1 (physical) or m2 (as printed) in A10;
    ``c_cart`` and ``c_joints`` are the viscous coefficients Cc and C1, C2, C3.
    """
    _choice("a10_mass", a10_mass, ("m1", "m2"))
    m1, m2, m3 = _m
    L1, L2, _L3 = _L
    l1, l2, l3 = _l
    I1, I2, I3 = _I
    C1, C2, C3 = c_joints
    g = gravity
    A = np.full(41, np.nan)
    A[1] = _M + m1 + m2 + m3
    A[2] = m1 * l1 + (m2 + m3) * L1
    A[3] = m2 * l2 + m3 * L2
    A[4] = m3 * l3
    A[5] = c_cart
    A[6] = -m1 * l1 - (m2 + m3) * L1
    A[7] = -(m2 * l2 + m3 * L2)
    A[8] = -m3 * l3
    A[9] = m1 * l1 + (m2 + m3) * L1
    A[10] = I1 + (m1 if a10_mass == "m1" else m2) * l1 ** 2 + (m2 + m3) * L1 ** 2
    A[11] = (m2 * l2 + m3 * L2) * L1
    A[12] = m3 * l3 * L1
    A[13] = C1 + C2
    A[14] = (m2 * l2 + m3 * L2) * L1
    A[15] = -C2
    A[16] = m3 * l3 * L1
    A[17] = -g * (m1 * l1 + m2 * L1 + m3 * L1)
    A[18] = m2 * l2 + m3 * L2
    A[19] = (m2 * l2 + m3 * L2) * L1
    A[20] = I2 + m3 * L2 ** 2 + m2 * l2 ** 2
    A[21] = m3 * l3 * L2
    A[22] = -(m2 * l2 + m3 * L2) * L1
    A[23] = -C2
    A[24] = C2 + C3
    A[25] = m3 * l3 * L2
    A[26] = -C3
    A[27] = -g * (m2 * l2 + m3 * L2)
    A[28] = m3 * l3
    A[29] = m3 * l3 * L1
    A[30] = m3 * l3 * L2
    A[31] = I3 + m3 * l3 ** 2
    A[32] = C3
    A[33] = -m3 * l3 * L1
    A[34] = -g * m3 * l3
    A[35] = -m3 * l3 * L2
    A[36] = -C3
    A[37:41] = _A37_40
    A.flags.writeable = False
    return A


class TripleLinkEnv(PlantEnv):
    """He 2012 triple-link inverted pendulum on a cart; see the module docstring for the model.

    Options (all keyword): ``a10_mass`` ("m1" | "m2"), ``friction_sign`` ("velocity" |
    "position"), ``init_rate_units`` ("deg" | "rad"), ``substeps`` (RK4 sub-steps per
    period, default 4), ``dt`` (default 0.005 s), ``voltage_max`` (30 V), ``ks`` (24.7125
    N/V), ``c_cart`` (Cc), ``c_joints`` (C1, C2, C3), ``mu_cart`` (μx), ``mu_joints``
    (μ1, μ2, μ3), ``gravity``, ``render_mode`` (None | "ansi"). ``A`` holds the constants
    (``A[k]`` = Ak, see :func:`table3_constants`); :meth:`mass_matrix` gives F(q).
    """

    metadata = {**PlantEnv.metadata, "render_fps": 200}
    state_names = ("x", "theta1", "theta2", "theta3",
                   "x_dot", "theta1_dot", "theta2_dot", "theta3_dot")
    state_scale = _readonly([1.0, 20.0 * _DEG, 20.0 * _DEG, 20.0 * _DEG,
                             2.0, 200.0 * _DEG, 200.0 * _DEG, 200.0 * _DEG])
    x_limit = 1.0
    theta_limit = 20.0 * _DEG

    def __init__(self, *, a10_mass: str = "m1", friction_sign: str = "velocity",
                 init_rate_units: str = "deg", substeps: int = 4, dt: float = 0.005,
                 voltage_max: float = 30.0, ks: float = _KS, c_cart: float = 5.5,
                 c_joints: tuple[float, float, float] = (0.00026875,) * 3,
                 mu_cart: float = 0.07,
                 mu_joints: tuple[float, float, float] = (0.003,) * 3,
                 gravity: float = _G, render_mode: str | None = None):
        self.a10_mass = _choice("a10_mass", a10_mass, ("m1", "m2"))
        self.friction_sign = _choice("friction_sign", friction_sign, ("velocity", "position"))
        self.init_rate_units = _choice("init_rate_units", init_rate_units, ("deg", "rad"))
        self.voltage_max = _nonnegative("voltage_max", voltage_max)
        self.ks = _nonnegative("ks", ks)
        c_cart = _nonnegative("c_cart", c_cart)
        c_joints = _triple("c_joints", c_joints)
        self.mu_cart = _nonnegative("mu_cart", mu_cart)
        self.mu_joints = _triple("mu_joints", mu_joints)
        self.A = table3_constants(a10_mass=a10_mass, c_cart=c_cart, c_joints=c_joints,
                                  gravity=_positive("gravity", gravity))
        A = self.A
        self._A = A.tolist()  # plain floats: faster to index in the derivative
        # Coulomb friction magnitudes μx A37, μ1 A38, μ2 A39, μ3 A40.
        self._coulomb = (self.mu_cart * A[37], self.mu_joints[0] * A[38],
                         self.mu_joints[1] * A[39], self.mu_joints[2] * A[40])
        self._setup(dt=dt, substeps=substeps, render_mode=render_mode)

    def mass_matrix(self, q: np.ndarray) -> np.ndarray:
        """F(q) of He 2012 eq. (28) for q = [x, θ1, θ2, θ3]."""
        _x, t1, t2, t3 = (float(v) for v in q)
        return self._mass_matrix(t1, t2, t3)

    def _mass_matrix(self, t1: float, t2: float, t3: float) -> np.ndarray:
        A = self._A
        c1, c2, c3 = math.cos(t1), math.cos(t2), math.cos(t3)
        c12, c13, c23 = math.cos(t1 - t2), math.cos(t1 - t3), math.cos(t2 - t3)
        return np.array((
            (A[1], A[2] * c1, A[3] * c2, A[4] * c3),
            (A[9] * c1, A[10], A[11] * c12, A[12] * c13),
            (A[18] * c2, A[19] * c12, A[20], A[21] * c23),
            (A[28] * c3, A[29] * c13, A[30] * c23, A[31]),
        ))

    def state_derivative(self, state: np.ndarray, plant_input: float) -> np.ndarray:
        """[q', q''] with q'' = F⁻¹(−G q' − H + L) (He 2012 eq. 35); ``plant_input`` in V."""
        A = self._A
        x, t1, t2, t3, xd, d1, d2, d3 = state.tolist()
        s1, s2, s3 = math.sin(t1), math.sin(t2), math.sin(t3)
        s12, s13, s23 = math.sin(t1 - t2), math.sin(t1 - t3), math.sin(t2 - t3)
        # G(q, q') q', row by row.
        gq0 = A[5] * xd + A[6] * s1 * d1 * d1 + A[7] * s2 * d2 * d2 + A[8] * s3 * d3 * d3
        gq1 = A[13] * d1 + (A[14] * s12 * d2 + A[15]) * d2 + A[16] * s13 * d3 * d3
        gq2 = (A[22] * s12 * d1 + A[23]) * d1 + A[24] * d2 + (A[25] * s23 * d3 + A[26]) * d3
        gq3 = A[33] * s13 * d1 * d1 + (A[35] * s23 * d2 + A[36]) * d2 + A[32] * d3
        if self.friction_sign == "velocity":
            sx, sg1, sg2, sg3 = _sign(xd), _sign(d1), _sign(d2), _sign(d3)
        else:
            sx, sg1, sg2, sg3 = _sign(x), _sign(t1), _sign(t2), _sign(t3)
        fx, f1, f2, f3 = self._coulomb
        rhs = np.array((
            -gq0 + self.ks * plant_input - sx * fx,
            -gq1 - A[17] * s1 - sg1 * f1,
            -gq2 - A[27] * s2 - sg2 * f2,
            -gq3 - A[34] * s3 - sg3 * f3,
        ))
        qdd = np.linalg.solve(self._mass_matrix(t1, t2, t3), rhs).tolist()
        return np.array((xd, d1, d2, d3, *qdd))

    def _plant_input(self, action: float) -> float:
        return self.voltage_max * action

    def _limits(self) -> tuple[tuple[int, float], ...]:
        return ((0, self.x_limit),) + tuple((i, self.theta_limit) for i in (1, 2, 3))

    def _initial_state(self) -> np.ndarray:
        rate = 0.5 * _DEG if self.init_rate_units == "deg" else 0.5
        th = self.np_random.uniform(-1.0 * _DEG, 1.0 * _DEG, size=3)
        thd = self.np_random.uniform(-rate, rate, size=3)
        return np.concatenate(((0.0,), th, (0.0,), thd))


def _triple(name: str, values: object) -> tuple[float, float, float]:
    try:
        items = tuple(values)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"{name} must be three non-negative numbers, not {values!r}") from None
    if len(items) != 3:
        raise ValueError(f"{name} must be three non-negative numbers, not {values!r}")
    a, b, c = (_nonnegative(f"{name}[{i}]", v) for i, v in enumerate(items))
    return a, b, c
