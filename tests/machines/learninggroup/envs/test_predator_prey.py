"""IC3Net's predator-prey as a PettingZoo parallel env (machines/learninggroup/envs/predator_prey.py)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from rlaccel.util.errors import RlaccelError
from rlaccel.programs.envs import PARALLEL_ENV_IDS, make_parallel
from rlaccel.machines.learninggroup.envs.predator_prey import PredatorPreyEnv, PredatorPreyError


def _placed(env: PredatorPreyEnv, predators, prey) -> None:
    """Put the pieces on chosen cells after a reset."""
    env.predator_loc = np.array(predators, dtype=np.int64)
    env.prey_loc = np.array(prey, dtype=np.int64)


def _step(env: PredatorPreyEnv, *acts):
    return env.step({a: act for a, act in zip(env.possible_agents, acts)})


@pytest.mark.parametrize("kwargs", [dict(), dict(nagents=1, dim=3),
                                    dict(nagents=4, dim=5, vision=1, max_steps=50),
                                    dict(nagents=8, dim=6, vision=2, mode="cooperative")])
def test_passes_the_pettingzoo_parallel_api_test(kwargs):
    """PettingZoo's own API test passes for several sizes, visions and modes."""
    parallel_api_test(PredatorPreyEnv(**kwargs), num_cycles=300)


def test_registered_under_the_rlaccel_namespace():
    """make_parallel builds the class from its id with the options given."""
    assert "rlaccel/PredatorPrey-v2" in PARALLEL_ENV_IDS
    env = make_parallel("rlaccel/PredatorPrey-v2", nagents=4, dim=7)
    assert isinstance(env, PredatorPreyEnv) and env.nagents == 4 and env.dim == 7
    with pytest.raises(RlaccelError, match=r"no multi-agent environment 'rlaccel/Nope-v0' "
                                           r"\(known: rlaccel/PredatorPrey-v2\)"):
        make_parallel("rlaccel/Nope-v0")


def test_a_seed_fixes_the_start_on_distinct_cells():
    """reset(seed) draws distinct cells for the predators and the prey, the same for the
    same seed."""
    env = PredatorPreyEnv(nagents=8, dim=3)
    starts = []
    for seed in (5, 5, 6):
        env.reset(seed=seed)
        cells = {tuple(p) for p in env.predator_loc} | {tuple(env.prey_loc)}
        assert len(cells) == 9
        starts.append((env.predator_loc.copy(), env.prey_loc.copy()))
    assert np.array_equal(starts[0][0], starts[1][0])
    assert not np.array_equal(starts[0][0], starts[2][0])


def test_observation_is_the_ic3net_multi_hot_window():
    """vision 0: the own cell's index, the predator count and (on it) the prey; vision 1:
    OUTSIDE for window cells beyond the border; index dim*dim is never set."""
    env = PredatorPreyEnv(nagents=2, dim=4, vision=0)
    env.reset(seed=0)
    _placed(env, [[1, 2], [1, 2]], [3, 0])
    obs = env.observations()
    assert obs.shape == (2, 1, 1, 20) and obs.dtype == np.float32
    expect = np.zeros(20, np.float32)
    expect[1 * 4 + 2] = 1.0
    expect[16 + 3] = 2.0                    # two predators share the cell
    assert np.array_equal(obs[0, 0, 0], expect)
    env = PredatorPreyEnv(nagents=1, dim=4, vision=1)
    env.reset(seed=0)
    _placed(env, [[0, 0]], [1, 1])
    win = env.observations()[0]
    assert win.shape == (3, 3, 20) and env.obs_dim == 180
    for r in range(3):
        for c in range(3):
            v = win[r, c]
            if r == 0 or c == 0:
                assert v[17] == 1.0 and v.sum() == 1.0          # OUTSIDE only
            else:
                assert v[(r - 1) * 4 + (c - 1)] == 1.0 and v[17] == 0.0
    assert win[1, 1, 19] == 1.0 and win[2, 2, 18] == 1.0        # self, prey
    assert not env.observations()[..., 16].any()


def test_moves_clamp_at_the_border():
    """0 up, 1 right, 2 down, 3 left, 4 stay; a move off the grid stays put."""
    env = PredatorPreyEnv(nagents=1, dim=3, max_steps=99)
    env.reset(seed=0)
    _placed(env, [[0, 0]], [2, 2])
    path = []
    for act in (0, 3, 1, 1, 1, 2, 4, 3):
        _step(env, act)
        path.append(tuple(env.predator_loc[0]))
    assert path == [(0, 0), (0, 0), (0, 1), (0, 2), (0, 2), (1, 2), (1, 2), (1, 1)]


def test_mixed_rewards_freeze_and_success():
    """-0.05 per predator off the prey, 0 on it; a predator on the prey stays there; the
    episode terminates for all when every predator is on the prey, and counts a success."""
    env = PredatorPreyEnv(nagents=2, dim=4)
    env.reset(seed=0)
    _placed(env, [[0, 1], [3, 3]], [0, 0])
    obs, rew, term, trunc, info = _step(env, 3, 0)
    assert rew == {"predator_0": 0.0, "predator_1": -0.05}
    assert not any(term.values()) and not any(trunc.values())
    assert info["predator_0"] == {"on_prey": True, "success": 0, "caught": 1, "steps": 1}
    obs, rew, term, trunc, info = _step(env, 1, 0)          # predator 0 is frozen
    assert tuple(env.predator_loc[0]) == (0, 0) and rew["predator_0"] == 0.0
    _placed(env, [[0, 0], [0, 1]], [0, 0])
    obs, rew, term, trunc, info = _step(env, 4, 3)
    assert all(term.values()) and not any(trunc.values())
    assert info["predator_1"]["success"] == 1 and env.success and env.agents == []
    with pytest.raises(PredatorPreyError, match=r"step\(\) after the episode ended"):
        _step(env, 4, 4)


@pytest.mark.parametrize("mode, expect", [("cooperative", [0.1, 0.1, -0.05]),
                                          ("competitive", [0.025, 0.025, -0.05])])
def test_cooperative_and_competitive_rewards(mode, expect):
    """cooperative: 0.05 x predators on the prey each; competitive: 0.05 / that number."""
    env = PredatorPreyEnv(nagents=3, dim=4, mode=mode)
    env.reset(seed=0)
    _placed(env, [[0, 1], [1, 0], [3, 3]], [0, 0])
    _obs, rew, *_ = _step(env, 3, 0, 4)
    assert list(rew.values()) == pytest.approx(expect)


def test_truncated_after_max_steps_without_success():
    """The episode is truncated for every predator at max_steps; success stays 0 and caught
    says whether any predator got there."""
    env = PredatorPreyEnv(nagents=2, dim=5, max_steps=3)
    env.reset(seed=0)
    _placed(env, [[0, 1], [4, 4]], [0, 0])
    for k in range(3):
        _obs, _rew, term, trunc, info = _step(env, 3, 4)
    assert all(trunc.values()) and not any(term.values())
    assert info["predator_0"]["success"] == 0 and info["predator_0"]["caught"] == 1


def test_options_and_actions_are_checked():
    """Bad options and actions are PredatorPreyErrors (also ValueErrors) naming the value."""
    with pytest.raises(PredatorPreyError, match=r"nagents must be an integer >= 1, not 0"):
        PredatorPreyEnv(nagents=0)
    with pytest.raises(PredatorPreyError, match=r"9 predators and a prey do not fit on "
                                                r"distinct cells of a 3x3 grid"):
        PredatorPreyEnv(nagents=9, dim=3)
    with pytest.raises(ValueError, match=r"mode must be one of mixed, cooperative, "
                                         r"competitive, not 'selfish'"):
        PredatorPreyEnv(mode="selfish")
    env = PredatorPreyEnv(nagents=1)
    env.reset(seed=0)
    with pytest.raises(PredatorPreyError, match=r"action 7 of predator_0 is not 0..4"):
        env.step({"predator_0": 7})
    with pytest.raises(PredatorPreyError, match=r"unknown agent 'prey'"):
        env.step({"prey": 1})


def test_ansi_render():
    """render() draws the grid: digits for predators, P for the prey."""
    env = PredatorPreyEnv(nagents=2, dim=3, render_mode="ansi")
    env.reset(seed=0)
    _placed(env, [[0, 0], [2, 1]], [1, 2])
    assert env.render() == "0..\n..P\n.1."
