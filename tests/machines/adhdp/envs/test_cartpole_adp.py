"""The Si & Wang / He 2012 cart-pole with friction (machines/adhdp/envs/cartpole_adp.py)."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from rlaccel.machines.adhdp.envs.cartpole_adp import CartPoleADPEnv

ID = "rlaccel/CartPoleADP-v0"
DEG = math.pi / 180.0


def make(**kwargs) -> CartPoleADPEnv:
    return gym.make(ID, **kwargs).unwrapped


def energy(env: CartPoleADPEnv, s: np.ndarray) -> float:
    """E = ½(mc+m)x'² + m l x' θ' cosθ + ⅔ m l² θ'² + m g l cosθ (cart plus uniform rod)."""
    th, thd, _x, xd = s
    m, l, mt = env.pole_mass, env.pole_half_length, env.cart_mass + env.pole_mass
    return (0.5 * mt * xd ** 2 + m * l * xd * thd * math.cos(th)
            + (2.0 / 3.0) * m * l ** 2 * thd ** 2 + m * env.gravity * l * math.cos(th))


def random_states(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform((-1.0, -3.0, -2.0, -2.0), (1.0, 3.0, 2.0, 2.0), size=(n, 4))


def test_without_friction_the_model_is_gymnasium_cartpole():
    """With μc = μp = 0 the accelerations equal those of Gymnasium's CartPole (Florian's form)."""
    env = make(mu_c=0.0, mu_p=0.0)
    reference = gym.make("CartPole-v1").unwrapped
    reference.reset(seed=0)
    for th, thd, x, xd in random_states(20, seed=1):
        reference.state = np.array((x, xd, th, thd))
        reference.steps_beyond_terminated = None  # these states may lie beyond its limits
        reference.step(1)  # +10 N, one explicit Euler step of tau
        _, xd1, _, thd1 = reference.state
        expected = ((thd1 - thd) / reference.tau, (xd1 - xd) / reference.tau)
        d = env.state_derivative(np.array((th, thd, x, xd)), 10.0)
        assert d[0] == thd and d[2] == xd
        np.testing.assert_allclose((d[1], d[3]), expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("force", [0.0, 10.0, -3.7])
def test_power_balance_with_friction(force, power):
    """dE/dt = F x' − μc |x'| − μp θ'²: the force does work, both frictions only dissipate."""
    env = make(mu_c=0.05, mu_p=0.002)  # larger than the defaults so the terms are visible
    for s in random_states(20, seed=2):
        d = env.state_derivative(s, force)
        expected = force * s[3] - env.mu_c * abs(s[3]) - env.mu_p * s[1] ** 2
        assert power(lambda y: energy(env, y), s, d) == pytest.approx(expected, abs=1e-7)


def _energy_drift(run, substeps: int) -> float:
    env = make(mu_c=0.0, mu_p=0.0, force_mode="analog", substeps=substeps)
    out = run(env, lambda k, obs: 0.0, 250, state=(10 * DEG, 0.0, 0.0, 0.3), stop=False)
    assert abs(out.states[-1][0]) > math.pi / 2  # the pole really fell and swung
    e = np.array([energy(env, s) for s in out.states])
    return float(np.max(np.abs(e - e[0])) / e[0])


def test_energy_is_conserved_without_friction_and_force(run):
    """With μc = μp = 0 and F = 0, E stays within 1e-6 (relative) over 5 s of swinging, and
    the small drift left is RK4's: it shrinks about 16-fold when the step is halved."""
    drift = _energy_drift(run, 2)
    assert drift < 1e-6
    assert _energy_drift(run, 4) < drift / 10


def test_energy_decreases_with_friction(run):
    """With the default friction and F = 0 the energy never rises and has fallen after 5 s."""
    env = make(force_mode="analog")
    out = run(env, lambda k, obs: 0.0, 250, state=(10 * DEG, 0.0, 0.0, 0.3), stop=False)
    e = np.array([energy(env, s) for s in out.states])
    assert np.all(np.diff(e) < 1e-9)
    assert e[-1] < e[0] - 1e-4


def test_pole_falls_without_force(run):
    """Open loop, F = 0: a 1° tilt grows past 12° in under 2 s (the upright is unstable)."""
    out = run(make(force_mode="analog"), lambda k, obs: 0.0, 500, state=(1 * DEG, 0, 0, 0))
    assert out.infos[-1]["failure"] == "theta"
    assert 20 <= out.terminated_at <= 100


def test_pole_falls_under_alternating_bang_bang(run):
    """Bang-bang ±10 N alternating every step (zero on average) does not hold a 1° tilt."""
    out = run(make(), lambda k, obs: (-1.0) ** k, 500, state=(1 * DEG, 0, 0, 0))
    assert out.infos[-1]["failure"] == "theta"
    assert 20 <= out.terminated_at <= 100


@pytest.mark.parametrize("state, failure", [
    ((11.0 * DEG, 0.0, 0.0, 0.0), None),
    ((11.999 * DEG, 0.0, 0.0, 0.0), "theta"),
    ((-11.999 * DEG, 0.0, 0.0, 0.0), "theta"),
    ((0.0, 0.0, 2.3, 1.0), None),
    ((0.0, 0.0, 2.399, 1.0), "x"),
    ((0.0, 0.0, -2.399, -1.0), "x"),
    ((11.999 * DEG, 0.0, 2.399, 1.0), "theta"),  # the angle is checked first, as in Si-lab
])
def test_failure_limits(state, failure):
    """Failure (reward -1, terminated) exactly when |θ| > 12° or |x| > 2.4 m after the step."""
    env = make(force_mode="analog")
    env.reset(options={"state": state})
    obs, reward, terminated, truncated, info = env.step(np.zeros(1))
    assert info["failure"] == failure
    assert terminated is (failure is not None) and truncated is False
    assert reward == (-1.0 if failure else 0.0)
    inside = bool(abs(obs[0]) <= 12 * DEG and abs(obs[2]) <= 2.4)
    assert inside is (failure is None)


@pytest.mark.parametrize("u, force", [
    (1.0, 10.0), (0.5, 10.0), (1e-12, 10.0), (0.0, 10.0), (-1e-12, -10.0), (-0.7, -10.0),
])
def test_bang_bang_force_is_ten_newtons_times_sign(u, force):
    """Bang-bang (Si-lab CTL_TYPE=0): F = +10 N when u >= 0 (u = 0 included), else -10 N."""
    env = make()
    env.reset(seed=0)
    assert env.step(np.array([u]))[4]["plant_input"] == force


@pytest.mark.parametrize("u", [1.0, 0.5, 0.0, -0.25, -1.0])
def test_analog_force_is_ten_newtons_times_u(u):
    """Analog (Si-lab CTL_TYPE=1): F = 10 u N."""
    env = make(force_mode="analog")
    env.reset(seed=0)
    assert env.step(np.array([u]))[4]["plant_input"] == 10.0 * u


def test_push_moves_cart_forward_and_tilts_pole_back():
    """A +10 N push accelerates the cart in +x and the upright pole towards -θ."""
    d = make().state_derivative(np.zeros(4), 10.0)
    assert d[3] > 0 and d[1] < 0


def test_he2012_initial_state_ranges():
    """init="he2012": θ ~ U[-0.1°, 0.1°], θ' ~ U[-0.5, 0.5] °/s, x = x' = 0."""
    env = make()
    starts = np.array([env.reset(seed=seed)[0] for seed in range(200)])
    assert np.all(np.abs(starts[:, 0]) <= 0.1 * DEG)
    assert np.all(np.abs(starts[:, 1]) <= 0.5 * DEG)
    assert np.max(np.abs(starts[:, 0])) > 0.09 * DEG  # the range is used, not a point
    assert np.max(np.abs(starts[:, 1])) > 0.45 * DEG
    assert np.all(starts[:, 2:] == 0.0)


def test_zero_initial_state():
    """init="zero" starts every trial at rest upright, as the Si-lab code."""
    assert np.array_equal(make(init="zero").reset(seed=5)[0], np.zeros(4))


def test_state_order_and_scale_are_si_lab():
    """Observation order [θ, θ', x, x'] and normalisation NF = [12°, 120°/s, 2.4 m, 1.5 m/s]."""
    assert CartPoleADPEnv.state_names == ("theta", "theta_dot", "x", "x_dot")
    np.testing.assert_array_equal(CartPoleADPEnv.state_scale,
                                  (12 * DEG, 120 * DEG, 2.4, 1.5))
    assert not CartPoleADPEnv.state_scale.flags.writeable


@pytest.mark.parametrize("kwargs, message", [
    ({"force_mode": "digital"}, "force_mode must be 'bang-bang' or 'analog', not 'digital'"),
    ({"init": "random"}, "init must be 'he2012' or 'zero', not 'random'"),
    ({"cart_mass": 0}, "cart_mass must be positive, not 0"),
    ({"mu_c": -1}, "mu_c must be non-negative, not -1"),
    ({"pole_half_length": float("nan")}, "pole_half_length must be finite, not nan"),
])
def test_bad_options_are_refused(kwargs, message):
    """Each constructor option is checked and the error names it and the bad value."""
    with pytest.raises(ValueError, match=message):
        make(**kwargs)
