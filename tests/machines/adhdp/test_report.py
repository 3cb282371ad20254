"""rlaccel report adhdp: Fig. 11-13 tables, JSON, PNG and SVG from the runner's own
figures."""

import json

import pytest

from rlaccel.util.errors import RlaccelError
from rlaccel.machines.adhdp.report import SIZES, build, speedups
from rlaccel.cli import main


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The 4-6-1/5-6-1 pair, one trial each (about a second)."""
    out = tmp_path_factory.mktemp("report")
    lines = []
    return build(["cartpole"], trials=1, seed=2, out_dir=out, progress=lines.append), out, lines


def test_files_and_progress(small):
    rep, out, lines = small
    for name in ("report.md", "report.json", "fig11_cycles.svg", "fig12_power.svg",
                 "fig13_energy.svg", "fig11_cycles.png", "fig12_power.png",
                 "fig13_energy.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "fig11_cycles.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (out / "fig12_power.svg").read_text()
    from rlaccel.tlm.results import with_timing
    saved = json.loads((out / "report.json").read_text())
    assert "wall_s" not in saved["runs"][0] and saved["timing"]["runs"][0]["wall_s"] >= 0
    assert with_timing(saved) == rep               # the wall clocks under timing only
    assert lines[0] == "report: cartpole baseline (4-6-1, 5-6-1): 1 trials, seed 2, adhdp"
    assert any(line.startswith("  cartpole VU: trial    1:") for line in lines)
    md = (out / "report.md").read_text()
    assert "| 4-6-1, 5-6-1 | VU | critic |" in md and "1.47x" not in md.split("seed")[0]


def test_figures_add_up(small):
    """Categories add up to the region; units add up to its energy; the loop body is part
    of the region; the same workload ran for baseline and VU."""
    rep = small[0]
    base, vu = rep["runs"]
    assert (base["trials"], base["seed"]) == (vu["trials"], vu["seed"]) == (1, 2)
    assert not base["virtual_update"] and vu["virtual_update"]
    for r in rep["runs"]:
        for phase in ("critic", "actor"):
            p, b = r["region"][phase], r["body"][phase]
            assert p["iterations"] == b["iterations"] > 0
            assert p["cycles"] == pytest.approx(sum(v["cycles"] for v in
                                                    p["by_category"].values()))
            assert p["energy_pj"] == pytest.approx(sum(v["energy_pj"] for v in
                                                       p["by_category"].values()))
            seconds = p["cycles"] / 175e6
            assert p["power_mw"] * 1e-3 * seconds == pytest.approx(p["energy_pj"] * 1e-12)
            assert b["cycles"] <= p["cycles"]
    assert vu["region"]["critic"]["by_category"]["VU"]["cycles"] > 0
    assert base["region"]["critic"]["by_category"]["VU"]["cycles"] == 0


def test_speedup_is_baseline_over_vu(small):
    rep = small[0]
    base, vu = rep["runs"]
    sp = speedups(base, vu)
    assert sp["cycles"]["actor"] == base["region"]["actor"]["cycles"] / vu["region"]["actor"][
        "cycles"]
    it = lambda r: [r["region"][p]["iterations"] for p in ("critic", "actor")]  # noqa: E731
    tot = lambda r: sum(r["region"][p]["energy_pj"] * n  # noqa: E731
                        for p, n in zip(("critic", "actor"), it(r))) / sum(it(r))
    assert sp["energy"]["combined"] == pytest.approx(tot(base) / tot(vu))
    assert rep["speedups"]["cartpole"]["region"] == sp


def test_unknown_size_is_an_error():
    with pytest.raises(RlaccelError, match=r"unknown size\(s\) pole; known: cartpole, "
                                           r"cartpole_large, triple_link"):
        build(["pole"], trials=1)


def test_cli_verb(tmp_path, capsys):
    assert main(["report", "adhdp", "-o", str(tmp_path), "--trials", "1", "--sizes",
                 "cartpole", "-q"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("## Virtual-update speed-up") and said.err == ""
    assert (tmp_path / "fig13_energy.svg").exists()
    assert [s.name for s in SIZES] == ["cartpole", "cartpole_large", "triple_link"]


def test_manifest_settings_reach_both_chips(tmp_path):
    """--set changes the manifest of both runs: with the thresholds at 0 and I_a = I_c = 3
    every loop that starts runs exactly three iterations, on both chips."""
    rep = build(["cartpole"], trials=1, seed=2, out_dir=tmp_path,
                overrides=["learning.Ea=0.0", "learning.Ec=0.0", "learning.Ia=3",
                           "learning.Ic=3", "max_steps=30"])
    assert rep["overrides"][-1] == "max_steps=30"
    for r in rep["runs"]:
        steps = r["plant_steps"]
        for phase in ("actor", "critic"):
            it = r["region"][phase]["iterations"]
            assert it % 3 == 0 and steps - 2 <= it // 3 <= steps + 1, (phase, it, steps)
    assert "manifest settings `learning.Ea=0.0`" in (tmp_path / "report.md").read_text()


def test_bad_manifest_setting_is_named(tmp_path):
    with pytest.raises(RlaccelError, match="learning.Iaa"):
        build(["cartpole"], trials=1, out_dir=tmp_path, overrides=["learning.Iaa=3"])


def test_vu_gain_grows_with_iterations_per_step():
    """The virtual update's once-per-step work (vu.init, vu.commit) is shared by the loop's
    iterations in that step, so its gain per iteration grows with them while the baseline's
    cycles per iteration do not change (README, "Fig. 11-13": the cause of the triple link's
    residual against the paper's 1.47x)."""
    from rlaccel.machines.adhdp.report import measure
    triple = next(s for s in SIZES if s.name == "triple_link")
    gains, base = [], []
    for n in (2, 6, 30):
        sets = ["learning.Ec=0.0", "learning.Ea=0.0", f"learning.Ic={n}", f"learning.Ia={n}",
                "max_steps=8"]
        b, v = (measure(triple, vu, trials=1, seed=1, overrides=sets,
                        arch_overrides={"machine.dtype": "float64"})["region"]["actor"]
                for vu in (False, True))
        assert b["iterations"] == v["iterations"] and b["iterations"] % n == 0
        gains.append(b["cycles"] / v["cycles"])
        base.append(b["cycles"])
    assert gains[0] < gains[1] < gains[2]
    assert gains[0] < 1.3 < 1.6 < gains[2]
    assert max(base) - min(base) < 1.0
