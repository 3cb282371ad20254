"""Inferences per second (the DARL paper, eq. 23-25) on hand-computed cases."""

import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import ips, ips_terms, iteration_seconds


def test_one_agent_hand_computed():
    """Two episodes of 10 and 20 steps, 8 and 15 greedy steps, a batch of 8 every step,
    F = 2 us, T_env = 5 us: T_inf = 1 + (23 * 2 + 30 * 5) us, T_train = 2 + 30 * 8 * 2 us."""
    t = ips_terms(1, [10, 20], [8, 15], [10, 20], batch=8, F=2e-6, T_env=5e-6,
                  T_comm1=1e-6, T_comm2=2e-6, T_other=3e-6)
    assert t["samples"] == 30
    assert t["t_inf"] == pytest.approx(1e-6 + 23 * 2e-6 + 30 * 5e-6)
    assert t["t_train"] == pytest.approx(2e-6 + 30 * 8 * 2e-6)
    assert t["ips"] == pytest.approx(30 / (197e-6 + 482e-6 + 3e-6))


def test_agents_multiply_the_samples_not_the_time():
    one = ips(1, [100], [90], [100], batch=8, F=1e-6, T_env=1e-5)
    eight = ips(8, [100], [90], [100], batch=8, F=1e-6, T_env=1e-5)
    assert eight == pytest.approx(8 * one)


def test_a_separate_training_iteration_time():
    t = ips_terms(1, [1], [1], [1], batch=2, F=1.0, T_env=0.0, f_train=3.0)
    assert t["t_train"] == 6.0 and t["ips"] == pytest.approx(1 / 7)


def test_iteration_seconds_at_the_clock():
    assert iteration_seconds(417, 171.0) == pytest.approx(417 / 171e6)
    with pytest.raises(ArchError, match="a clock of 0 MHz is not positive"):
        iteration_seconds(417, 0)


def test_errors():
    with pytest.raises(ArchError, match="T, T', T'' cover 2, 1, 2 episodes"):
        ips(1, [1, 2], [1], [1, 2], batch=8, F=1.0, T_env=0.0)
    with pytest.raises(ArchError, match="the batch M must be a positive integer"):
        ips(1, [1], [1], [1], batch=0, F=1.0, T_env=0.0)
    with pytest.raises(ArchError, match="T_env must be a non-negative time"):
        ips(1, [1], [1], [1], batch=1, F=1.0, T_env=-1.0)
