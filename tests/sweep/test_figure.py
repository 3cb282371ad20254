"""A sweep's figure: means over the seeds with Student-t intervals, ratios to a reference
with delta-method intervals, the knee, the Markdown and the PNG/SVG files."""

import pytest

from rlaccel.sweep.errors import SweepError
from rlaccel.sweep.figure import aggregate, knees, markdown, write_figure
from rlaccel.sweep.spec import load_spec

from tests.sweep.conftest import CARTPOLE

SPEC = f"""
manifest = "{CARTPOLE}"
[axes]
"arch.machine.dtype" = ["float64", "q6.8", "q6.12"]
seed = [1, 2, 3]
[metrics]
balanced = "sum(learning.steps_per_trial)"
[plot]
x = "arch.machine.dtype"
x_from = "q6.{{}}"
over = "seed"
y = "balanced"
normalize = {{"arch.machine.dtype" = "float64"}}
knee = true
marks = [{{x = 12, label = "seed"}}]
"""
#: balanced steps per (dtype, seed): float64 mean 12 (sd 2), q6.8 mean 6 (sd 3), q6.12 12 (sd 0)
VALUES = {"float64": [10, 12, 14], "q6.8": [3, 6, 9], "q6.12": [12, 12, 12]}


def _rows(spec, failed=()):
    rows = []
    for p in spec.points():
        d, s = p.coords["arch.machine.dtype"], p.coords["seed"]
        bad = (d, s) in failed
        rows.append({"idx": p.index, "coords": p.coords, "status": "failed" if bad else "done",
                     "metrics": None if bad else {"balanced": VALUES[d][s - 1]}})
    return rows


def test_means_intervals_and_ratios_by_hand(write_spec):
    spec = load_spec(write_spec(SPEC))
    cells = {c["x"]: c for c in aggregate(spec.plot, _rows(spec))}
    f, q8, q12 = cells["float64"], cells["q6.8"], cells["q6.12"]
    assert (f["n"], f["mean"], f["sd"]) == (3, 12.0, 2.0)
    # t(0.975, 2) = 4.30265; 12 -+ 4.30265 * 2 / sqrt(3)
    assert (f["lo"], f["hi"]) == pytest.approx((7.031725, 16.968275), abs=1e-6)
    # the reference against itself: 1 and its own relative interval
    assert (f["norm"], f["norm_lo"], f["norm_hi"]) == pytest.approx((1, 0.585977, 1.414023),
                                                                    abs=1e-6)
    # 6 / 12 with R t(0.975, 4) sqrt(9/3/36 + 4/3/144), t = 2.77645
    assert (q8["norm"], q8["norm_lo"], q8["norm_hi"]) == pytest.approx(
        (0.5, 0.077577, 0.922423), abs=1e-6)
    assert (q12["norm"], q12["norm_lo"], q12["norm_hi"]) == pytest.approx(
        (1.0, 0.732836, 1.267164), abs=1e-6)
    assert knees(spec.plot, list(cells.values())) == {None: 12.0}


def test_failed_runs_are_counted_not_averaged(write_spec):
    spec = load_spec(write_spec(SPEC))
    cells = {c["x"]: c for c in aggregate(spec.plot, _rows(spec, failed={("q6.8", 1)}))}
    assert (cells["q6.8"]["n"], cells["q6.8"]["failed"], cells["q6.8"]["mean"]) == (2, 1, 7.5)
    md = markdown(spec.plot, list(cells.values()))
    assert "| q6.8 | 0.625 [" in md and "(2, 1 failed)" in md


def test_the_markdown_and_the_files(write_spec, tmp_path):
    spec = load_spec(write_spec(SPEC))
    md, paths = write_figure(spec, _rows(spec), tmp_path / "fig")
    assert [p.name for p in paths] == ["fig.png", "fig.svg", "fig.md"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths[1].read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "| q6.8 | 0.5 [0.0776, 0.922] (3) |" in md
    assert "| q6.12 | 1 [0.733, 1.27] (3) |" in md
    assert "* balanced: 12" in md
    _, again = write_figure(spec, _rows(spec), tmp_path / "fig2")
    assert again[1].read_text() == svg                    # no dates, no random ids


@pytest.mark.parametrize("old, new, message", [
    ('y = "balanced"', 'y = "cycles"', r"y = 'cycles' is not a metric; metrics: balanced"),
    ('x = "arch.machine.dtype"\n', 'x = "dtype"\n', r"x = 'dtype' is not an axis; axes: "
                                                      r"arch.machine.dtype, seed"),
    ('x = "arch.machine.dtype"\n', 'x = ["dtype"]\n', r"x = \['dtype'\] is not an axis"),
    ('over = "seed"', '', r"axis 'seed' is neither x, series nor over: its points would be "
                          r"pooled"),
    ('= "float64"}', '= "f"}', r"normalize: 'f' is not a value of axis 'arch.machine.dtype'"),
    ('knee = true', 'knee = true\nci = 1.5', r"ci must be a confidence level between 0 and 1"),
    ('knee = true', 'knee = true\ncolour = "red"', r"unknown key 'colour'"),
    ('x_from = "q6.{}"', '', r"knee needs a numeric x \(x_from\) and normalize"),
])
def test_bad_plot_tables(write_spec, old, new, message):
    text = SPEC.replace(old, new)
    assert text != SPEC
    with pytest.raises(SweepError, match=message):
        load_spec(write_spec(text))
