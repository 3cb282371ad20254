"""The Hauser-Sastry-Kokotović torque-driven ball and beam (machines/adhdp/envs/ball_beam.py)."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from rlaccel.machines.adhdp.envs.ball_beam import BallBeamEnv

ID = "rlaccel/BallBeam-v0"
DEG = math.pi / 180.0


def make(**kwargs) -> BallBeamEnv:
    return gym.make(ID, **kwargs).unwrapped


def energy(env: BallBeamEnv, s: np.ndarray) -> float:
    """E = ½(M + Jb/R²) r'² + ½(J + Jb + M r²) θ'² + M g r sinθ (rolling ball on a beam)."""
    r, rd, th, thd = s
    M, R, Jb, J = env.ball_mass, env.ball_radius, env.ball_inertia, env.beam_inertia
    return (0.5 * (M + Jb / R ** 2) * rd ** 2 + 0.5 * (J + Jb + M * r ** 2) * thd ** 2
            + M * env.gravity * r * math.sin(th))


def random_states(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform((-0.5, -1.0, -0.5, -2.0), (0.5, 1.0, 0.5, 2.0), size=(n, 4))


@pytest.mark.parametrize("torque", [0.0, 0.3, -0.5])
def test_power_balance(torque, power):
    """dE/dt = τ θ' − b_r r'² − b_θ θ'²: the torque does work, the damping only dissipates,
    and the centrifugal and Coriolis terms exchange energy without creating it."""
    env = make(ball_damping=0.01, beam_damping=0.02)
    for s in random_states(20, seed=1):
        expected = torque * s[3] - 0.01 * s[1] ** 2 - 0.02 * s[3] ** 2
        got = power(lambda y: energy(env, y), s, env.state_derivative(s, torque))
        assert got == pytest.approx(expected, abs=1e-8)


def _energy_drift(run, substeps: int) -> float:
    env = make(tau_max=0.0, substeps=substeps)
    out = run(env, lambda k, obs: 0.0, 250, state=(0.1, 0.0, 5 * DEG, 0.0), stop=False)
    assert np.max(np.abs(out.array[:, 0])) > 0.4  # the ball really rolled along the beam
    e = np.array([energy(env, s) for s in out.states])
    return float(np.max(np.abs(e - e[0])) / abs(e[0]))


def test_energy_is_conserved_without_damping_and_torque(run):
    """No damping (the default) and τ = 0: E stays within 1e-9 (relative) over 5 s, and the
    drift is RK4's (it shrinks more than ten-fold when the step is halved)."""
    drift = _energy_drift(run, 1)
    assert drift < 1e-7
    assert _energy_drift(run, 2) < drift / 10


def test_energy_decreases_with_damping(run):
    """With ball and beam damping on and τ = 0 the energy falls at every step."""
    env = make(ball_damping=0.01, beam_damping=0.01)
    out = run(env, lambda k, obs: 0.0, 100, state=(0.1, 0.2, 5 * DEG, 0.3), stop=False)
    e = np.array([energy(env, s) for s in out.states])
    assert np.all(np.diff(e) < 0)


def test_ball_rolls_off_open_loop(run):
    """τ = 0 from a 1° tilt with the ball centred: the ball rolls downhill, its weight tilts
    the beam further, and the ball leaves the beam within 2-8 s (100-400 steps; 214)."""
    out = run(make(), lambda k, obs: 0.0, 2000, state=(0.0, 0.0, 1 * DEG, 0.0))
    assert out.infos[-1]["failure"] in ("r", "theta")
    assert 100 <= out.terminated_at <= 400
    assert out.states[-1][0] < 0 and out.states[-1][2] > 0  # downhill, and tilted further


def test_torque_balancing_the_ball_holds_the_beam():
    """At rest with the beam level, τ = M g r exactly cancels the ball's weight: no motion."""
    env = make()
    s = np.array((0.3, 0.0, 0.0, 0.0))
    d = env.state_derivative(s, env.ball_mass * env.gravity * 0.3)
    np.testing.assert_allclose(d, 0.0, atol=1e-15)


def test_ball_acceleration_uses_rolling_factor():
    """On a beam held at θ, the ball accelerates at −B g sinθ with B = M/(M + Jb/R²)."""
    env = make()
    assert env.B == pytest.approx(0.0162 / (0.0162 + 4.32e-5 / 0.02 ** 2))
    d = env.state_derivative(np.array((0.0, 0.0, 10 * DEG, 0.0)), 0.0)
    assert d[1] == pytest.approx(-env.B * 9.8 * math.sin(10 * DEG))


@pytest.mark.parametrize("a", [1.0, 0.4, 0.0, -1.0])
def test_torque_is_tau_max_times_action(a):
    """τ = tau_max a; tau_max defaults to 0.5 N m."""
    env = make()
    env.reset(seed=0)
    assert env.step(np.array([a]))[4]["plant_input"] == 0.5 * a
    env = make(tau_max=2.0)
    env.reset(seed=0)
    assert env.step(np.array([a]))[4]["plant_input"] == 2.0 * a


@pytest.mark.parametrize("kwargs, state, failure", [
    ({}, (0.49, 0.1, 0.0, 0.0), None),
    ({}, (0.4999, 0.1, 0.0, 0.0), "r"),
    ({}, (-0.4999, -0.1, 0.0, 0.0), "r"),
    ({}, (0.0, 0.0, 29.9 * DEG, 1.0), "theta"),
    ({}, (0.0, 0.0, 25 * DEG, 0.0), None),
    ({"theta_limit_deg": 10.0}, (0.0, 0.0, 9.9 * DEG, 1.0), "theta"),
    ({"beam_length": 2.0}, (0.95, 0.1, 0.0, 0.0), None),
    ({"beam_length": 2.0}, (0.9999, 0.1, 0.0, 0.0), "r"),
])
def test_failure_limits(kwargs, state, failure):
    """Failure (reward -1, terminated) when |r| > L/2 or |θ| > theta_limit after the step."""
    env = make(**kwargs)
    env.reset(options={"state": state})
    _, reward, terminated, _, info = env.step(np.zeros(1))
    assert info["failure"] == failure
    assert reward == (-1.0 if failure else 0.0) and terminated is (failure is not None)


def test_initial_state_ranges():
    """r ~ U[-0.05, 0.05] m, θ ~ U[-1°, 1°], r' = θ' = 0 by default."""
    env = make()
    starts = np.array([env.reset(seed=seed)[0] for seed in range(100)])
    assert np.all(np.abs(starts[:, 0]) <= 0.05) and np.max(np.abs(starts[:, 0])) > 0.045
    assert np.all(np.abs(starts[:, 2]) <= DEG) and np.max(np.abs(starts[:, 2])) > 0.9 * DEG
    assert np.all(starts[:, [1, 3]] == 0.0)


def test_state_order_and_scale():
    """State [r, r', θ, θ']; scale [L/2, rolling speed at the limit tilt, θ limit, beam rate
    under full torque] = [0.5 m, 0.80 m/s, 30°, 2.73 rad/s] with the defaults."""
    env = make()
    assert env.state_names == ("r", "r_dot", "theta", "theta_dot")
    np.testing.assert_allclose(env.state_scale, (0.5, 0.7995, 30 * DEG, 2.732), rtol=1e-3)
    assert make(beam_length=2.0).state_scale[0] == 1.0


@pytest.mark.parametrize("kwargs, message", [
    ({"ball_mass": 0.0}, "ball_mass must be positive, not 0.0"),
    ({"beam_inertia": -1}, "beam_inertia must be positive, not -1"),
    ({"theta_limit_deg": 90}, r"theta_limit_deg must be below 90 \(a vertical beam drops "
                              r"the ball\), not 90"),
    ({"init_r": 0.6}, r"init_r must be below beam_length/2 = 0.5, not 0.6"),
    ({"init_theta_deg": 45}, "init_theta_deg must be below theta_limit_deg = 30.0, not 45"),
    ({"tau_max": "big"}, "tau_max must be a number, not 'big'"),
    ({"ball_damping": -0.1}, "ball_damping must be non-negative, not -0.1"),
])
def test_bad_options_are_refused(kwargs, message):
    """Each constructor option is checked and the error names it and the bad value."""
    with pytest.raises(ValueError, match=message):
        make(**kwargs)
