"""machines/maddpg/bench/agents.py: the agent-count sweep simulates the design it names (the
manifest's search within the cost model's budgets by default, the paper's eqs. 5-6 when
asked), with N learners placed, and measures the ring's cost against a free ring."""

from __future__ import annotations

import importlib.util

from rlaccel.isa.machine import machine

_spec = importlib.util.spec_from_file_location("maddpg_agents",
                                               machine("maddpg").path / "bench" / "agents.py")
agents = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agents)


def test_the_sweep_simulates_the_design_it_names():
    own = agents.simulate(3, 64, 1, 1, free_ring=False)
    paper = agents.simulate(3, 64, 1, 1, free_ring=False, design="paper")
    assert own["dse"]["search"] != "forced" and paper["dse"]["search"] == "forced"
    assert sum(len(a) for a in own["dse"]["placement"]) == 3
    # eq. 6 fills the DSPs; the cost model's LUT budget keeps the manifest's design smaller
    assert own["dse"]["f"] < paper["dse"]["f"]
    assert own["dse"]["dsp_used"] < paper["dse"]["dsp_used"]
    assert own["dse"]["cost_model"]["lut"] > 0 and not own["dse"]["over_guideline"]
    assert own["learner_s"] > paper["learner_s"]


def test_a_free_ring_is_never_slower():
    ring = agents.simulate(2, 64, 1, 1, free_ring=False)
    free = agents.simulate(2, 64, 1, 1, free_ring=True)
    assert free["learner_s"] <= ring["learner_s"]
    assert free["dse"]["f"] == ring["dse"]["f"]
