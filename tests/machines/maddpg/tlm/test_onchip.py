"""A learner's block RAMs (machines/maddpg/tlm/onchip.py): weight banks, Adam's moments, stage
buffers and skip FIFOs in 18-Kb halves, on hand-counted cases."""

import pytest

from rlaccel.machines.maddpg.tlm.dse import Learner
from rlaccel.machines.maddpg.tlm.onchip import _fifos, halves, learner_brams
from rlaccel.util.errors import ArchError

SPEAKER = Learner.from_sizes("speaker", (3, 64, 64, 3), (22, 64, 64, 1))


def ones(lr):
    return {p: [1] * len(getattr(lr, p)) for p in ("value", "policy")}


def test_a_half_holds_512_words():
    assert [halves(w) for w in (0, 1, 512, 513, 4096)] == [0, 1, 1, 2, 8]


def test_value_pipeline_fifos_by_hand():
    """Value pipeline: FP q L1..L3 at 6..8, LOSS 9, BP q L3, L2 at 10, 11, WU q L3..L1 at
    12..14: the inputs of q's layers wait from their FP to their WU stage, the errors from
    where they arrive to their WU stage."""
    assert _fifos(SPEAKER.value) == [(4, 64), (2, 1), (6, 64), (2, 64), (8, 22), (3, 64)]


def test_a_first_layer_bp_needs_no_stored_input():
    """The policy pipeline's BP q L1 (the own-action columns) reads no ReLU mask."""
    assert all(w != 3 or d != 5 for d, w in _fifos(SPEAKER.policy))


def test_one_element_per_unit_by_hand():
    b = learner_brams(SPEAKER, ones(SPEAKER))
    # banks: every unit's whole matrix in one bank, ceil(ID OD / 512) halves
    value = [192, 4096, 192, 1408, 4096, 64, 1408, 4096, 64, 1, 64, 4096, 64, 4096, 1408]
    policy = [192, 4096, 192, 1408, 4096, 64, 64, 4096, 192, 192, 4096, 192, 4096, 192]
    assert b["banks"] == sum(halves(w) for w in value + policy) / 2
    wu = [64, 4096, 1408] + [192, 4096, 192]
    assert b["optimiser"] == 2 * sum(halves(w) for w in wu) / 2
    assert b["total"] == pytest.approx(b["banks"] + b["optimiser"] + b["buffers"] + b["fifos"])


def test_more_elements_more_banks_and_sgd_keeps_no_moments():
    small = learner_brams(SPEAKER, ones(SPEAKER))
    wide = {p: [4] * len(getattr(SPEAKER, p)) for p in ("value", "policy")}
    assert learner_brams(SPEAKER, wide)["banks"] > small["banks"]
    assert learner_brams(SPEAKER, ones(SPEAKER), moments=0)["optimiser"] == 0


def test_factors_must_match_the_stages():
    with pytest.raises(ArchError, match="2 unroll factors for the 15 stages of its value"):
        learner_brams(SPEAKER, {"value": [1, 1], "policy": [1] * 14})
