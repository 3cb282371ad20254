"""The stages of the value (5L) and policy (5L-1) training pipelines (seed 003, Fig. 4)."""

import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.maddpg.tlm.pipeline import learner_stages, policy_stages, value_stages

SPEAKER = ((3, 64, 64, 3), (22, 64, 64, 1))      # Cooperative Communication's speaker


@pytest.mark.parametrize("L", [1, 2, 3, 4])
def test_stage_counts(L):
    """n = 5L value stages and m = 5L - 1 policy stages for L-layer networks."""
    actor = (4,) + (8,) * (L - 1) + (2,)
    critic = (9,) + (8,) * (L - 1) + (1,)
    assert len(value_stages(actor, critic)) == 5 * L
    assert len(policy_stages(actor, critic)) == 5 * L - 1


def test_value_pipeline_of_the_speaker():
    """FP pi' (3 layers), FP q' and FP q over the 22-wide critic input, LOSS, BP q L3..L2,
    WU q L3..L1."""
    names = [(s.name, s.id, s.od) for s in value_stages(*SPEAKER)]
    assert names == [
        ("FP pi' L1", 3, 64), ("FP pi' L2", 64, 64), ("FP pi' L3", 64, 3),
        ("FP q' L1", 22, 64), ("FP q' L2", 64, 64), ("FP q' L3", 64, 1),
        ("FP q L1", 22, 64), ("FP q L2", 64, 64), ("FP q L3", 64, 1),
        ("LOSS", 1, 1), ("BP q L3", 64, 1), ("BP q L2", 64, 64),
        ("WU q L3", 64, 1), ("WU q L2", 64, 64), ("WU q L1", 22, 64)]


def test_policy_pipeline_of_the_speaker():
    """FP pi, FP q, BP q L3..L1 (layer 1 only for the speaker's 3 action columns), BP pi
    L3..L2, WU pi L3..L1."""
    names = [(s.name, s.id, s.od) for s in policy_stages(*SPEAKER)]
    assert names == [
        ("FP pi L1", 3, 64), ("FP pi L2", 64, 64), ("FP pi L3", 64, 3),
        ("FP q L1", 22, 64), ("FP q L2", 64, 64), ("FP q L3", 64, 1),
        ("BP q L3", 64, 1), ("BP q L2", 64, 64), ("BP q L1", 3, 64),
        ("BP pi L3", 64, 3), ("BP pi L2", 64, 64),
        ("WU pi L3", 64, 3), ("WU pi L2", 64, 64), ("WU pi L1", 3, 64)]
    # six 3 x 64 or 64 x 3 stages, one 22 x 64, five 64 x 64, two 64 x 1
    assert sum(s.work for s in policy_stages(*SPEAKER)) == 6 * 192 + 1408 + 5 * 4096 + 2 * 64


def test_both_pipelines():
    s = learner_stages(*SPEAKER)
    assert (len(s["value"]), len(s["policy"])) == (15, 14)


@pytest.mark.parametrize("actor, critic, message", [
    ((3, 64, 3), (22, 64, 64, 1), r"policy \(2 layers\) and value \(3 layers\)"),
    ((3, 64, 3), (22, 64, 2), "value network must end in one output, not 2"),
    ((3,), (22, 1), "policy network widths must be two or more positive integers"),
    ((3, 0, 3), (22, 4, 1), "policy network widths must be two or more"),
])
def test_errors(actor, critic, message):
    with pytest.raises(ArchError, match=message):
        value_stages(actor, critic)
