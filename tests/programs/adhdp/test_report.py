"""rlaccel report adhdp: Fig. 11-13 tables, JSON and SVG from the runner's own figures."""

import json
import xml.etree.ElementTree as ET

import pytest

from isa.errors import RlaccelError
from programs.adhdp.report import SIZES, build, speedups
from programs.adhdp.svg import nice_ticks, stacked_bars
from rlaccel.cli import main

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The 4-6-1/5-6-1 pair, one trial each (about a second)."""
    out = tmp_path_factory.mktemp("report")
    lines = []
    return build(["cartpole"], trials=1, seed=2, out_dir=out, progress=lines.append), out, lines


def test_files_and_progress(small):
    rep, out, lines = small
    for name in ("report.md", "report.json", "fig11_cycles.svg", "fig12_power.svg",
                 "fig13_energy.svg"):
        assert (out / name).stat().st_size > 0
    assert json.loads((out / "report.json").read_text()) == rep
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


def test_nice_ticks():
    assert nice_ticks(282.1) == [0, 100, 200, 300]
    assert nice_ticks(24.9) == [0, 5, 10, 15, 20, 25]
    assert nice_ticks(0.0) == [0.0, 1.0]


def test_stacked_bars_svg():
    """Well-formed SVG: one rect per non-zero segment, escaped text, a legend entry each."""
    svg = stacked_bars("a < b", "cycles", ["g1", "g2"], ["x", "y"], ["FF", "BP&WU"],
                       {"g1": {"x": [1.0, 2.0], "y": [0.0, 3.0]}, "g2": {"x": [4.0, 0.5]}})
    root = ET.fromstring(svg)
    rects = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(rects) == 5
    titles = sorted(r.find(f"{SVG}title").text for r in rects)
    assert titles[0] == "g1 / x / BP&WU: 2"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "a < b" in texts and "BP&WU" in texts
