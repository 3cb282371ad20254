"""rlaccel run on the ADHDP manifests: learning on Q6.18, reports, manifest errors."""

from pathlib import Path

import pytest

from rlaccel.programs.runner import run
from rlaccel.programs.manifest import ManifestError
from rlaccel.isa.machine import machine

ROOT = machine("adhdp").programs


def test_cartpole_learns_on_q6_18(tmp_path):
    """On the 24-bit Q6.18 machine cart-pole balances 1000 steps within 100 trials (seed 1)."""
    r = run(ROOT / "cartpole.toml", json_path=str(tmp_path / "r.json"))
    assert r["learning"]["success"] and r["learning"]["trials_to_success"] <= 100
    assert (tmp_path / "r.json").exists()
    for key in ("cycles", "time_s", "energy_pj", "instructions", "by_opcode", "utilization",
                "learning", "sim"):
        assert key in r
    crit, act = r["per_iteration"]["critic"], r["per_iteration"]["actor"]
    assert crit["iterations"] > 0 and act["iterations"] > 0
    assert crit["cycles"] == pytest.approx(sum(v["cycles"] for v in crit["by_category"].values()))
    assert 15 < r["power_mw"] < 40


def test_manifest_errors(tmp_path):
    m = tmp_path / "m.toml"
    m.write_text((ROOT / "cartpole.toml").read_text().replace("trials = 100", "trails = 100"))
    with pytest.raises(ManifestError, match=r"unknown key 'trails' \(did you mean 'trials'\?\)"):
        run(m)
    with pytest.raises(ManifestError, match=r"'learning.Ic' must be an integer, not 'many'"):
        run(ROOT / "cartpole.toml", ["learning.Ic=many"])
    with pytest.raises(ManifestError, match=r"network.actor = \[4, 7, 1\] but the program's "
                                            r"actor is 4-6-1"):
        run(ROOT / "cartpole.toml", ["network.actor=[4, 7, 1]"])


def test_overrides_and_progress(tmp_path):
    lines = []
    r = run(ROOT / "cartpole.toml", ["virtual_update=true"], arch="adhdp-vu-f64", trials=3,
            progress=lines.append)
    assert r["virtual_update"] and r["program"].endswith("cartpole_vu.s")
    assert r["learning"]["trials"] == 3 and len(lines) == 3
    assert lines[0].startswith("trial    1:")


def test_a_chip_with_an_unsourced_energy_constant_is_refused(tmp_path):
    """Issue 13: an ADHDP run names the [energy] constant that has no source, and runs
    nothing."""
    f = tmp_path / "fitted.toml"
    f.write_text('name = "fitted"\ninherit = "adhdp"\n[energy]\nmac = 34.0\n'
                 '[energy_sources]\nmac = "tuned"\n')
    with pytest.raises(ManifestError, match=r"fitted.toml: \[energy\] mac = 34.0 has no source"):
        run(ROOT / "cartpole.toml", ["trials=1"], arch=str(f))


def test_runs_from_one_seed_are_prefixes():
    """machines/adhdp/bench/causes.py --stages differences two runs from one seed into the trials
    between them: that holds only if the shorter run's trials are the longer run's first ones
    (same plant steps, same loop iterations so far)."""
    sets = ["virtual_update=true", "stop_on_success=false"]
    short, long_ = (run(ROOT / "triple_link.toml", sets, arch="adhdp-vu", trials=n)
                    for n in (2, 4))
    steps = long_["learning"]["steps_per_trial"]
    assert short["learning"]["steps_per_trial"] == steps[:2] and sum(steps[2:]) > 0
    for phase in ("critic", "actor"):
        a, b = short["per_iteration"][phase], long_["per_iteration"][phase]
        assert a["iterations"] <= b["iterations"]
        assert a["cycles"] * a["iterations"] <= b["cycles"] * b["iterations"]
