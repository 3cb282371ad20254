"""The run's cost figures (machines/maddpg/results.py): the card's energy efficiency from the
simulated energy, and the Table II residual computed from the run's own design."""

from types import SimpleNamespace

import pytest

from rlaccel.machines.maddpg.results import efficiency, residual


def test_efficiency_by_hand():
    res = SimpleNamespace(energy_pj=2e10, power_w=20.0)          # 20 mJ at 20 W
    e = efficiency(res, rounds=4, n_learners=2, batch=32, ips=100.0)
    assert e["energy_per_round_j"] == pytest.approx(5e-3)
    assert e["agent_samples_per_j"] == pytest.approx(2 * 32 * 4 / 0.02)
    assert e["ips_per_w"] == pytest.approx(5.0)
    assert e["paper"] is None
    none = efficiency(res, rounds=0, n_learners=2, batch=32, ips=None)
    assert none["energy_per_round_j"] is None and none["ips_per_w"] is None


def _report(lut_used, dsp_model, agents):
    slr = [{"name": f"SLR{i}", "agents": a, "lut_used": u, "lut_budget": 70.0,
            "lut_capacity": 100.0, "dsp_model": d, "dsp_model_budget": 80.0}
           for i, (u, d, a) in enumerate(zip(lut_used, dsp_model, agents))]
    return {"environment": "simple_speaker_listener_v4", "dse": {"slr": slr},
            "resources": {"units": {"cu_element": {"count": 10, "lut": 15_000.0,
                                                   "dsp": 57.5}}}}


def test_the_residual_names_what_binds_and_table_ii_s_share():
    """Table II's 774K LUTs over Fig. 5's two SLRs of 100 LUTs each would be 387,000 %."""
    text = residual(_report([69.0, 68.0, 0.0], [10.0, 10.0, 0.0], [["a"], ["b"], []]))
    assert "bound by the SLRs' LUTs (our element 1,500 LUTs, 5.75 DSPs)" in text
    assert "387000 % of the LUTs of the 2 SLRs Fig. 5 gives it (UG949's guideline: 70 %" in text
    assert "binds while" not in text
    text = residual(_report([10.0, 5.0, 0.0], [79.0, 5.0, 0.0], [["a", "b"], ["c"], []]))
    assert "bound by the SLRs' DSPs" in text and "SLR0 holds two or more learners" in text
