"""The He 2012 triple-link inverted pendulum on a cart (machines/adhdp/envs/triple_link.py)."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from rlaccel.machines.adhdp.envs.triple_link import TripleLinkEnv
from rlaccel.machines.adhdp.envs.triple_link import table3_constants

ID = "rlaccel/TripleLink-v0"
DEG = math.pi / 180.0
FRICTIONLESS = dict(c_cart=0.0, c_joints=(0.0, 0.0, 0.0), mu_cart=0.0,
                    mu_joints=(0.0, 0.0, 0.0))

# He 2012 Table 3, restated here so the test is independent of the module's A constants.
M, m, L, lc, I, g = 1.014, (0.4506, 0.219, 0.0568), (0.43, 0.33), (0.37, 0.3, 0.05), \
    (0.0042, 0.0012, 0.00010609), 9.8


def make(**kwargs) -> TripleLinkEnv:
    return gym.make(ID, **kwargs).unwrapped


def link_energy(s: np.ndarray) -> tuple[float, float]:
    """(T, V) of a cart and three links from first principles: each link's centre of gravity
    sits lc_i along link i from its lower joint, θi are absolute angles from upright, I_i are
    inertias about the centres of gravity."""
    x, t1, t2, t3, xd, d1, d2, d3 = s
    th, om = (t1, t2, t3), (d1, d2, d3)
    T = 0.5 * M * xd ** 2
    V = 0.0
    px, py, vx, vy = x, 0.0, xd, 0.0  # lower joint of the current link
    for i in range(3):
        cy = py + lc[i] * math.cos(th[i])
        cvx = vx + lc[i] * math.cos(th[i]) * om[i]
        cvy = vy - lc[i] * math.sin(th[i]) * om[i]
        T += 0.5 * m[i] * (cvx ** 2 + cvy ** 2) + 0.5 * I[i] * om[i] ** 2
        V += m[i] * g * cy
        if i < 2:
            px, py = px + L[i] * math.sin(th[i]), py + L[i] * math.cos(th[i])
            vx, vy = vx + L[i] * math.cos(th[i]) * om[i], vy - L[i] * math.sin(th[i]) * om[i]
    return T, V


def random_states(n: int, seed: int, spread: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    hi = np.array((0.5, 0.5, 0.5, 0.5, 2.0, 5.0, 5.0, 5.0)) * spread
    return rng.uniform(-hi, hi, size=(n, 8))


def jacobian_at_upright(env: TripleLinkEnv) -> np.ndarray:
    h, J = 1e-6, np.zeros((8, 8))
    for i in range(8):
        d = np.zeros(8)
        d[i] = h
        J[:, i] = (env.state_derivative(d, 0.0) - env.state_derivative(-d, 0.0)) / (2 * h)
    return J


def test_mass_matrix_is_the_kinetic_energy_of_cart_and_links():
    """½ q'ᵀ F(q) q' equals the kinetic energy computed link by link (A10 with m1), F is
    symmetric and positive definite: the transcribed A1..A31 are the physical inertias."""
    env = make()
    for s in random_states(30, seed=1):
        F = env.mass_matrix(s[:4])
        assert np.array_equal(F, F.T)
        assert np.all(np.linalg.eigvalsh(F) > 0)
        qd = s[4:]
        assert 0.5 * qd @ F @ qd == pytest.approx(link_energy(s)[0], rel=1e-12)


def test_printed_a10_is_not_the_kinetic_energy():
    """With A10 as printed (m2 l1²) F stays symmetric and positive definite but no longer
    matches the link-by-link kinetic energy: the printed m2 is a typo for m1."""
    env = make(a10_mass="m2")
    s = np.array((0, 0.1, 0, 0, 0, 1.0, 0, 0))
    F = env.mass_matrix(s[:4])
    assert np.array_equal(F, F.T) and np.all(np.linalg.eigvalsh(F) > 0)
    assert 0.5 * s[4:] @ F @ s[4:] != pytest.approx(link_energy(s)[0], rel=1e-3)


def test_a10_switch_changes_only_a10():
    """a10_mass="m2" gives I1 + m2 l1² + (m2 + m3) L1² for A10 and leaves A1..A40 otherwise."""
    a, b = table3_constants(a10_mass="m1"), table3_constants(a10_mass="m2")
    assert a[10] == pytest.approx(I[0] + m[0] * lc[0] ** 2 + (m[1] + m[2]) * L[0] ** 2)
    assert b[10] == pytest.approx(I[0] + m[1] * lc[0] ** 2 + (m[1] + m[2]) * L[0] ** 2)
    differs = [k for k in range(1, 41) if a[k] != b[k]]
    assert differs == [10]


@pytest.mark.parametrize("a10_mass", ["m1", "m2"])
@pytest.mark.parametrize("voltage", [0.0, 7.5])
def test_power_balance(a10_mass, voltage, power):
    """dE/dt = Ks u x' − Cc x'² − C1 θ1'² − C2 (θ2'−θ1')² − C3 (θ3'−θ2')² − Σ μ A |q'_i|
    with E = ½ q'ᵀ F q' + V: the Coriolis terms of G do no work, the viscous terms act on the
    joints' relative rates and the Coulomb terms (on absolute rates, as printed) dissipate.
    This holds for either A10, since A10 is a constant of F."""
    env = make(a10_mass=a10_mass)
    A = env.A
    C1, C2, C3 = 0.00026875, 0.00026875, 0.00026875

    def energy(s):
        return 0.5 * s[4:] @ env.mass_matrix(s[:4]) @ s[4:] + link_energy(s)[1]

    for s in random_states(20, seed=2):
        xd, d1, d2, d3 = s[4:]
        expected = (env.ks * voltage * xd - 5.5 * xd ** 2 - C1 * d1 ** 2
                    - C2 * (d2 - d1) ** 2 - C3 * (d3 - d2) ** 2
                    - 0.07 * A[37] * abs(xd) - 0.003 * (A[38] * abs(d1) + A[39] * abs(d2)
                                                        + A[40] * abs(d3)))
        got = power(energy, s, env.state_derivative(s, voltage))
        assert got == pytest.approx(expected, rel=1e-6, abs=1e-6)


def _energy_drift(run, a10_mass: str, substeps: int) -> float:
    env = make(a10_mass=a10_mass, substeps=substeps, **FRICTIONLESS)
    out = run(env, lambda k, obs: 0.0, 400, state=(0, 5 * DEG, -3 * DEG, 2 * DEG, 0, 0, 0, 0),
              stop=False)
    assert np.max(np.abs(out.array[:, 1:4])) > 1.0  # it really fell
    e = np.array([0.5 * s[4:] @ env.mass_matrix(s[:4]) @ s[4:] + link_energy(s)[1]
                  for s in out.states])
    return float(np.max(np.abs(e - e[0])) / abs(e[0]))


@pytest.mark.parametrize("a10_mass", ["m1", "m2"])
def test_energy_is_conserved_without_friction_and_input(a10_mass, run):
    """With every friction coefficient 0 and u = 0, E = ½ q'ᵀ F q' + V stays within 2e-6
    (relative) over 2 s while the links fall and swing, and the drift is RK4's: it shrinks
    more than ten-fold when the step is halved. F is symmetric for either A10, so both
    variants conserve this energy (only "m1" makes it the physical one)."""
    drift = _energy_drift(run, a10_mass, 4)
    assert drift < 2e-6
    assert _energy_drift(run, a10_mass, 8) < drift / 10


def test_energy_decreases_with_friction(run):
    """With the default friction and u = 0 the energy never rises over 1 s of falling."""
    env = make()
    out = run(env, lambda k, obs: 0.0, 200, state=(0, 5 * DEG, -3 * DEG, 2 * DEG, 0, 0, 0, 0),
              stop=False)
    e = np.array([sum(link_energy(s)) for s in out.states])
    assert np.all(np.diff(e) < 1e-9)
    assert e[-1] < e[0] - 1e-3


def test_frictionless_linearisation_has_three_unstable_modes():
    """Without friction the upright is a saddle of a conservative system: eigenvalues 0, 0 (the
    cart) and ±λ pairs with λ ≈ 4.87, 9.08, 11.75 s⁻¹ (three unstable modes)."""
    eig = np.linalg.eigvals(jacobian_at_upright(make(**FRICTIONLESS)))
    assert np.max(np.abs(eig.imag)) < 1e-6
    lam = np.sort(eig.real)
    np.testing.assert_allclose(lam[3:5], 0.0, atol=1e-6)
    np.testing.assert_allclose(lam[5:], (4.865, 9.079, 11.755), rtol=1e-3)
    np.testing.assert_allclose(lam[:3], -lam[5:][::-1], rtol=1e-6)


def test_linearisation_with_viscous_friction_reproduces_the_note():
    """Coulomb terms off (they have no derivative at rest) but viscous Cc, Ci on: the unstable
    eigenvalues are 4.45, 8.84, 11.11 s⁻¹, the values quoted in benchmarks.md §1.2."""
    env = make(mu_cart=0.0, mu_joints=(0.0, 0.0, 0.0))
    lam = np.sort(np.linalg.eigvals(jacobian_at_upright(env)).real)
    np.testing.assert_allclose(lam[5:], (4.450, 8.840, 11.109), rtol=1e-3)
    assert np.all(lam[:4] < 0) and abs(lam[4]) < 1e-6  # the cart position stays neutral


def test_one_degree_tilt_falls_open_loop(run):
    """u = 0 from all links tilted 1°: some link passes 20° after 0.2-1 s (40-200 steps;
    it takes 120 steps, 0.6 s)."""
    out = run(make(), lambda k, obs: 0.0, 1000, state=(0, DEG, DEG, DEG, 0, 0, 0, 0))
    assert out.infos[-1]["failure"] in ("theta1", "theta2", "theta3")
    assert 40 <= out.terminated_at <= 200


@pytest.mark.parametrize("state, failure", [
    ((0.99, 0, 0, 0, 0, 0, 0, 0), None),
    ((0.999, 0, 0, 0, 1.0, 0, 0, 0), "x"),
    ((-0.999, 0, 0, 0, -1.0, 0, 0, 0), "x"),
    ((0, 0, 19.99 * DEG, 0, 0, 0, 1.0, 0), "theta2"),
    ((0, 0, 0, -19.99 * DEG, 0, 0, 0, -1.0), "theta3"),
    ((0, -19.99 * DEG, 0, 0, 0, -1.0, 0, 0), "theta1"),
])
def test_failure_limits(state, failure):
    """Failure (reward -1, terminated) when |x| > 1 m or any |θi| > 20° after the step."""
    env = make()
    env.reset(options={"state": state})
    obs, reward, terminated, _, info = env.step(np.zeros(1))
    assert info["failure"] == failure
    assert reward == (-1.0 if failure else 0.0) and terminated is (failure is not None)


@pytest.mark.parametrize("a", [1.0, 0.2, 0.0, -0.5, -1.0])
def test_voltage_is_thirty_times_the_action(a):
    """u = 30 a volts, applied to the cart as the force Ks u."""
    env = make()
    env.reset(seed=0)
    assert env.step(np.array([a]))[4]["plant_input"] == 30.0 * a
    env0 = make(**FRICTIONLESS)
    qdd = env0.state_derivative(np.zeros(8), 30.0 * a)[4:]
    np.testing.assert_allclose(env0.mass_matrix(np.zeros(4)) @ qdd, (24.7125 * 30 * a, 0, 0, 0),
                               atol=1e-9)


def test_friction_sign_switch():
    """friction_sign="position" (as printed) puts sgn(x), sgn(θi) where "velocity" has sgn(x'),
    sgn(θi'): with positions and rates of opposite sign, F Δq'' = −2 (μx A37, μi A37+i)."""
    s = np.array((0.1, 0.1, 0.2, 0.3, -1.0, -1.0, -1.0, -1.0))
    v, p = make(), make(friction_sign="position")
    A = v.A
    delta = v.mass_matrix(s[:4]) @ (p.state_derivative(s, 0.0) - v.state_derivative(s, 0.0))[4:]
    np.testing.assert_allclose(delta, -2 * np.array((0.07 * A[37], 0.003 * A[38],
                                                      0.003 * A[39], 0.003 * A[40])), atol=1e-12)


def test_coulomb_friction_is_zero_at_rest():
    """sgn(0) = 0: at rest upright with u = 0 nothing moves (no friction pushes)."""
    assert np.array_equal(make().state_derivative(np.zeros(8), 0.0), np.zeros(8))


@pytest.mark.parametrize("units, rate", [("deg", 0.5 * DEG), ("rad", 0.5)])
def test_initial_state_ranges(units, rate):
    """x = x' = 0, θi ~ U[-1°, 1°], θi' ~ U[-0.5, 0.5] in °/s or rad/s (init_rate_units)."""
    env = make(init_rate_units=units)
    starts = np.array([env.reset(seed=seed)[0] for seed in range(100)])
    assert np.all(starts[:, [0, 4]] == 0.0)
    assert np.all(np.abs(starts[:, 1:4]) <= DEG) and np.max(np.abs(starts[:, 1:4])) > 0.9 * DEG
    assert np.all(np.abs(starts[:, 5:]) <= rate) and np.max(np.abs(starts[:, 5:])) > 0.9 * rate


def test_state_order_and_scale():
    """State [x, θ1, θ2, θ3, x', θ1', θ2', θ3']; scale [1 m, 20°×3, 2 m/s, 200°/s×3]."""
    assert TripleLinkEnv.state_names == ("x", "theta1", "theta2", "theta3", "x_dot",
                                         "theta1_dot", "theta2_dot", "theta3_dot")
    np.testing.assert_allclose(TripleLinkEnv.state_scale,
                               (1.0, *(3 * (20 * DEG,)), 2.0, *(3 * (200 * DEG,))))


@pytest.mark.parametrize("kwargs, message", [
    ({"a10_mass": "m3"}, "a10_mass must be 'm1' or 'm2', not 'm3'"),
    ({"friction_sign": "both"}, "friction_sign must be 'velocity' or 'position', not 'both'"),
    ({"init_rate_units": "rpm"}, "init_rate_units must be 'deg' or 'rad', not 'rpm'"),
    ({"c_joints": (1.0, 2.0)}, r"c_joints must be three non-negative numbers, not \(1.0, 2.0\)"),
    ({"mu_joints": (0.0, -1.0, 0.0)}, r"mu_joints\[1\] must be non-negative, not -1.0"),
    ({"c_cart": -5.5}, "c_cart must be non-negative, not -5.5"),
])
def test_bad_options_are_refused(kwargs, message):
    """Each constructor option is checked and the error names it and the bad value."""
    with pytest.raises(ValueError, match=message):
        make(**kwargs)
