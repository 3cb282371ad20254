"""The gymnasium contract every rlaccel plant keeps (programs/envs/_plant.py), run on all three."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

from rlaccel.programs.envs import ENV_IDS

IDS = list(ENV_IDS)

# check_env warns about unbounded Box observations; the plants' states are unbounded
# physical quantities (as in the MuJoCo envs), so these two warnings are expected.
_EXPECTED = ("observation space minimum value is -infinity",
             "observation space maximum value is infinity")


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes(env_id):
    """gymnasium's env checker accepts the env; its only warnings are the unbounded observations."""
    env = gym.make(env_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    unexpected = [str(w.message) for w in caught
                  if not any(text in str(w.message) for text in _EXPECTED)]
    assert unexpected == []


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_are_float64(env_id):
    """Observations and actions are float64; the action is one number in [-1, 1]."""
    env = gym.make(env_id).unwrapped
    assert env.observation_space.dtype == np.float64
    assert env.action_space.dtype == np.float64
    assert env.action_space.shape == (1,)
    assert env.action_space.low[0] == -1.0 and env.action_space.high[0] == 1.0
    n = len(env.state_names)
    assert env.observation_space.shape == (n,)
    assert env.state_scale.shape == (n,) and env.state_scale.dtype == np.float64
    assert np.all(env.state_scale > 0)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float64
    obs, *_ = env.step(np.zeros(1))
    assert obs.dtype == np.float64


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_trajectory_bit_for_bit(env_id, run):
    """Two envs reset with the same seed and fed the same actions produce identical states."""
    actions = np.random.default_rng(7).uniform(-1, 1, size=300)
    runs = [run(gym.make(env_id).unwrapped, lambda k, obs: actions[k - 1], 300, seed=42,
                stop=False) for _ in range(2)]
    assert np.array_equal(runs[0].array, runs[1].array)
    assert runs[0].rewards == runs[1].rewards


@pytest.mark.parametrize("env_id", IDS)
def test_different_seeds_different_initial_states(env_id):
    """The initial state is random: two seeds give two different starts."""
    env = gym.make(env_id).unwrapped
    a, _ = env.reset(seed=1)
    b, _ = env.reset(seed=2)
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("env_id", IDS)
def test_reset_option_state_sets_the_exact_state(env_id):
    """reset(options={"state": s}) starts from s exactly, whatever the seed."""
    env = gym.make(env_id).unwrapped
    s = np.linspace(-0.01, 0.02, len(env.state_names))
    obs, info = env.reset(seed=3, options={"state": s})
    assert np.array_equal(obs, s) and info == {}
    assert np.array_equal(env.state, s)
    obs[0] = 99.0  # the returned observation is a copy
    assert env.state[0] == s[0]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("bad, message", [
    ([0.0], r"must have shape \(\d,\)"),
    ("abc", r"must be \d numbers"),
    ("nan", r"must be finite"),
])
def test_reset_option_state_is_checked(env_id, bad, message):
    """A state of the wrong size or with non-finite values is refused with ValueError."""
    env = gym.make(env_id).unwrapped
    if bad == "nan":
        bad = [np.nan] * len(env.state_names)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"state": bad})


@pytest.mark.parametrize("env_id", IDS)
def test_unknown_reset_option_is_refused(env_id):
    """A misspelt reset option is an error, not silently ignored."""
    env = gym.make(env_id).unwrapped
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['stat'\]; the only "
                                         r"option is 'state'"):
        env.reset(options={"stat": [0.0]})


@pytest.mark.parametrize("env_id", IDS)
def test_actions_saturate_at_the_box(env_id):
    """An action beyond [-1, 1] acts like the bound (actuator saturation)."""
    env = gym.make(env_id).unwrapped
    s = np.zeros(len(env.state_names))
    env.reset(options={"state": s})
    big = env.step(np.array([5.0]))
    env.reset(options={"state": s})
    one = env.step(np.array([1.0]))
    assert np.array_equal(big[0], one[0])
    assert big[4]["plant_input"] == one[4]["plant_input"]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("bad, message", [
    (np.array([np.nan]), "action must be finite"),
    (np.zeros(2), r"action must hold one number, not shape \(2,\)"),
])
def test_bad_actions_are_refused(env_id, bad, message):
    """A non-finite action or one of the wrong size raises ValueError."""
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        env.step(bad)


@pytest.mark.parametrize("env_id", IDS)
def test_step_before_reset_is_refused(env_id):
    """Stepping a fresh env is an error that says to reset first."""
    env = gym.make(env_id).unwrapped
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before step\(\)"):
        env.step(np.zeros(1))


@pytest.mark.parametrize("env_id", IDS)
def test_reward_is_zero_until_the_failure_step(env_id, run):
    """The reinforcement is 0 on every step inside the limits and -1 on the failing step."""
    out = run(gym.make(env_id).unwrapped, lambda k, obs: 1.0, 2000, seed=0)
    assert out.terminated_at is not None
    assert out.rewards[:-1] == [0.0] * (len(out.rewards) - 1)
    assert out.rewards[-1] == -1.0
    assert all(info["failure"] is None for info in out.infos[:-1])
    assert out.infos[-1]["failure"] in gym.make(env_id).unwrapped.state_names


@pytest.mark.parametrize("env_id", IDS)
def test_no_default_time_limit_but_one_can_be_asked(env_id):
    """The ids set no max_episode_steps; gymnasium.make(max_episode_steps=n) truncates at n."""
    assert gym.spec(env_id).max_episode_steps is None
    env = gym.make(env_id, max_episode_steps=3)
    env.reset(seed=0, options={"state": np.zeros(len(env.unwrapped.state_names))})
    flags = [env.step(np.zeros(1))[3] for _ in range(3)]
    assert flags == [False, False, True]


@pytest.mark.parametrize("env_id", IDS)
def test_ansi_render_is_one_line_of_named_values(env_id):
    """render_mode="ansi" renders the state as ``name=value`` pairs on one line."""
    env = gym.make(env_id, render_mode="ansi")
    env.reset(options={"state": np.zeros(len(env.unwrapped.state_names))})
    text = env.render()
    assert "\n" not in text
    assert [pair.split("=")[0] for pair in text.split()] == list(env.unwrapped.state_names)


@pytest.mark.parametrize("env_id", IDS)
def test_unsupported_render_mode_is_refused(env_id):
    """There is no graphical rendering: render_mode="human" raises ValueError."""
    with pytest.warns(UserWarning, match="not in the possible render_modes"), \
            pytest.raises(ValueError, match=r"render_mode must be None or 'ansi', not 'human'"):
        gym.make(env_id, render_mode="human")


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kwargs, message", [
    ({"substeps": 0}, "substeps must be a positive integer, not 0"),
    ({"substeps": 1.5}, "substeps must be a positive integer, not 1.5"),
    ({"dt": -0.01}, "dt must be positive, not -0.01"),
    ({"dt": "fast"}, "dt must be a number, not 'fast'"),
])
def test_bad_common_options_are_refused(env_id, kwargs, message):
    """Constructor options are checked and a bad one names itself and its value."""
    with pytest.raises(ValueError, match=message):
        gym.make(env_id, **kwargs)
