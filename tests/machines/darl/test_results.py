"""DARL's run summary (machines/darl/results.py): its lines after the common block, read
from recorded reports, print no None and say where the target stands."""

import json
from pathlib import Path

import pytest

from rlaccel.machines.darl.results import summary

GOLDEN = Path(__file__).resolve().parents[2] / "golden"


@pytest.mark.parametrize("case", ["darl_cartpole", "darl_cartpole_8", "darl_lunarlander"])
def test_summary_prints_no_none(case):
    r = json.loads((GOLDEN / f"{case}.json").read_text())
    text = summary(r)
    assert "None" not in text
    assert "target" in text and "not reached" in text        # short runs: no stage at it
    if r["learning"]["agents"] > 1:
        assert "butterfly's flip-flops" in text                 # DARL8's power residual


def test_summary_names_the_stage_at_the_target():
    r = json.loads((GOLDEN / "darl_cartpole.json").read_text())
    r["learning"]["first_stage_at_target"] = 7
    assert "target 500 reached at stage 7" in summary(r)
