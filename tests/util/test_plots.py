"""Figures as PNG and SVG with matplotlib: the files are written, equal figures give equal
SVG text, and the values drawn are the values given."""

import pytest

from rlaccel.util.errors import RlaccelError
from rlaccel.util.plots import grouped_bars, lines, save, stacked_bars


def test_stacked_bars_draw_every_segment(tmp_path):
    fig = stacked_bars("Cycles", "cycles", ["4-6-1"], ["critic base", "critic VU"],
                       ["FF", "BP_WU"], {"4-6-1": {"critic base": [25.0, 34.0],
                                                   "critic VU": [10.0, 20.0]}})
    ax = fig.axes[0]
    heights = sorted(round(p.get_height(), 6) for p in ax.patches)
    assert heights == [10.0, 20.0, 25.0, 34.0]
    assert [t.get_text() for t in ax.texts] == ["59", "30"]         # the totals
    paths = save(fig, tmp_path / "bars")
    assert [p.name for p in paths] == ["bars.png", "bars.svg"]
    assert paths[0].read_bytes()[:4] == b"\x89PNG"
    save(fig, tmp_path / "again")
    assert (tmp_path / "again.svg").read_text() == paths[1].read_text()


def test_lines_and_bars_with_intervals(tmp_path):
    series = {"a": {"x": [4, 8], "y": [0.5, 1.0], "lo": [0.25, None], "hi": [0.75, None]}}
    fig = lines("t", "bits", "ratio", series, reference=1.0, marks=[(12, "seed")])
    ax = fig.axes[0]
    line = ax.lines[0]
    assert list(line.get_xdata()) == [4, 8] and list(line.get_ydata()) == [0.5, 1.0]
    save(fig, tmp_path / "l")
    bars = grouped_bars("t", "plant", "ratio", ["cart", "beam"],
                        {"VU": {"x": ["cart", "beam"], "y": [0.9, 1.1], "lo": [0.8, 1.0],
                                "hi": [1.0, 1.2]}}, reference=1.0)
    assert sorted(round(p.get_height(), 6) for p in bars.axes[0].patches) == [0.9, 1.1]
    with pytest.raises(RlaccelError, match="differ in length"):
        lines("t", "x", "y", {"a": {"x": [1], "y": [1, 2], "lo": [1], "hi": [1]}})


def test_lines_with_bands_and_a_y_range(tmp_path):
    series = {"a": {"x": [1, 2, 3], "y": [0.0, 1.0, 2.0], "lo": [None, 0.5, -9.0],
                    "hi": [None, 1.5, 9.0]}}
    fig = lines("t", "steps", "return", series, bands=True, ylim=(-1.0, 3.0))
    ax = fig.axes[0]
    assert list(ax.lines[0].get_xdata()) == [1, 2, 3]       # the line: no offset
    (band,) = ax.collections                                  # one band, over the known ends
    ys = sorted({round(float(v[1]), 6) for v in band.get_paths()[0].vertices})
    assert ys[0] == -9.0 and ys[-1] == 9.0 and 0.5 in ys
    assert ax.get_ylim() == (-1.0, 3.0)
    save(fig, tmp_path / "b")
