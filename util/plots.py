"""Every figure rlaccel writes, drawn with matplotlib and saved as PNG and SVG.

    save(stacked_bars("Cycles per update iteration", "cycles", groups, bars, series, values),
         "out/report/fig11_cycles")          # -> fig11_cycles.png and fig11_cycles.svg

* :func:`stacked_bars` -- clusters of stacked bars (``rlaccel report adhdp``, Fig. 11-13);
* :func:`lines` -- one line per series with confidence intervals as error bars over a
  numeric x axis (a sweep's Fig. 5);
* :func:`grouped_bars` -- bars with error bars over a categorical x axis (Fig. 9);
* :func:`points` -- a series of either without an interval;
* :func:`save` -- PNG and SVG, the SVG free of dates and random ids, so equal figures give
  equal files.

Figures are built with ``matplotlib.figure.Figure`` (no pyplot, no global backend), so they
draw in any process, with or without a display.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

from rlaccel.util.errors import RlaccelError

__all__ = ["PALETTE", "stacked_bars", "lines", "grouped_bars", "points", "save"]

#: colour-blind-safe (Okabe-Ito), one per series
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#999999")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _figure(width: float = 7.6, height: float = 4.2):
    import matplotlib
    from matplotlib.figure import Figure
    matplotlib.rcParams["svg.hashsalt"] = "rlaccel"        # stable ids in the SVG
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def save(fig, base: str | os.PathLike, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write ``fig`` as ``base.png`` and ``base.svg`` (atomically); returns the paths."""
    import io

    from rlaccel.util.files import atomic_write
    out = []
    base = Path(base)
    if fig.get_layout_engine() is not None:          # lay out once: every file the same
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
    for fmt in formats:
        buf = io.BytesIO()
        meta = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buf, format=fmt, metadata=meta, dpi=120 if fmt == "png" else None)
        path = base.with_name(base.name + f".{fmt}")
        atomic_write(path, buf.getvalue())
        out.append(path)
    return out


def stacked_bars(title: str, ylabel: str, groups: Sequence[str], bars: Sequence[str],
                 series: Sequence[str], values: Mapping[str, Mapping[str, Sequence[float]]],
                 *, totals: bool = True):
    """One cluster per group, one stacked bar per entry of ``bars``: ``values[group][bar]``
    lists one non-negative value per series, bottom to top (a missing bar is left empty).
    With ``totals`` each bar's sum is written above it."""
    fig, ax = _figure()
    nb = max(len(bars), 1)
    width = 0.8 / nb
    for si, name in enumerate(series):
        xs, heights, bottoms = [], [], []
        for gi, g in enumerate(groups):
            for bi, b in enumerate(bars):
                vals = values.get(g, {}).get(b)
                if not vals:
                    continue
                xs.append(gi - 0.4 + width * (bi + 0.5))
                heights.append(max(float(vals[si]), 0.0))
                bottoms.append(sum(max(float(v), 0.0) for v in vals[:si]))
        ax.bar(xs, heights, width * 0.92, bottom=bottoms, label=name,
               color=PALETTE[si % len(PALETTE)])
    ticks, labels = [], []
    for gi, g in enumerate(groups):
        for bi, b in enumerate(bars):
            x = gi - 0.4 + width * (bi + 0.5)
            ticks.append(x)
            labels.append(b)
            vals = values.get(g, {}).get(b)
            if totals and vals:
                total = sum(max(float(v), 0.0) for v in vals)
                ax.annotate(f"{total:.3g}", (x, total), ha="center", va="bottom", fontsize=7,
                            xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(ticks, labels, rotation=35, ha="right", fontsize=8)
    sec = ax.secondary_xaxis(-0.28)
    sec.set_xticks(range(len(groups)), list(groups), fontweight="bold")
    sec.tick_params(length=0)
    sec.spines["bottom"].set_visible(False)
    ax.set_xlim(-0.5, len(groups) - 0.5)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", color="#dddddd")
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return fig


def points(x: Sequence, y: Sequence) -> dict[str, list]:
    """A series of :func:`lines` or :func:`grouped_bars` without an interval (``lo`` and
    ``hi`` None everywhere)."""
    return {"x": x, "y": y, "lo": [None] * len(x), "hi": [None] * len(x)}


def _check_series(series: Mapping) -> None:
    for name, s in series.items():
        lengths = {len(s[k]) for k in ("x", "y", "lo", "hi")}
        if len(lengths) != 1:
            raise RlaccelError(f"plot series {name!r}: x, y, lo and hi differ in length")


def lines(title: str, xlabel: str, ylabel: str, series: Mapping[str, Mapping[str, Sequence]],
          *, reference: float | None = None, reference_label: str = "",
          marks: Sequence[tuple[float, str]] = (), xticks: Sequence[float] | None = None,
          bands: bool = False, ylim: tuple[float, float] | None = None,
          legend: str = "best"):
    """One line per series with error bars: ``series[name] = {"x", "y", "lo", "hi"}``
    (``lo``/``hi`` the interval's ends; None where unknown). ``bands``: each interval a
    shaded band around its line instead (a learning curve's many points); ``ylim`` the
    y-axis' range (a band wider than it is cut at the frame); ``legend`` matplotlib's
    ``loc`` of the legend. ``reference`` draws a
    horizontal line (1.0 for a normalised figure); ``marks`` vertical dotted lines with
    labels."""
    _check_series(series)
    fig, ax = _figure()
    n = max(len(series), 1)
    spread = 0.0 if bands else _spread(series)
    for si, (name, s) in enumerate(series.items()):
        dx = spread * (si - (n - 1) / 2)
        pts = [(x + dx, y, lo, hi) for x, y, lo, hi in zip(s["x"], s["y"], s["lo"], s["hi"])
               if y is not None]
        if not pts:
            continue
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        color = PALETTE[si % len(PALETTE)]
        if bands:
            ax.plot(xs, ys, label=name, color=color, linewidth=1.4)
            known = [(x, lo, hi) for x, _, lo, hi in pts if lo is not None and hi is not None]
            if known:
                ax.fill_between([k[0] for k in known], [k[1] for k in known],
                                [k[2] for k in known], color=color, alpha=0.15, linewidth=0)
            continue
        err = [[y - (lo if lo is not None else y) for _, y, lo, _ in pts],
               [(hi if hi is not None else y) - y for _, y, _, hi in pts]]
        ax.errorbar(xs, ys, yerr=err, label=name, color=color,
                    marker=_MARKERS[si % len(_MARKERS)], markersize=4, capsize=3,
                    linewidth=1.2)
    if ylim is not None:
        ax.set_ylim(*ylim)
    if reference is not None:
        ax.axhline(reference, color="black", linewidth=0.8, linestyle="--",
                   label=reference_label or None)
    for x, label in marks:
        ax.axvline(x, color="#777777", linewidth=0.9, linestyle=":")
        ax.annotate(label, (x, 1.0), xycoords=("data", "axes fraction"), va="top",
                    ha="left", fontsize=7, color="#555555", xytext=(3, -3),
                    textcoords="offset points")
    if xticks is not None:
        ax.set_xticks(list(xticks))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(color="#e5e5e5")
    ax.legend(fontsize=8, loc=legend, framealpha=0.9)
    return fig


def _spread(series) -> float:
    xs = sorted({x for s in series.values() for x in s["x"]})
    gaps = [b - a for a, b in zip(xs, xs[1:]) if b > a]
    return (min(gaps) * 0.06) if gaps and len(series) > 1 else 0.0


def grouped_bars(title: str, xlabel: str, ylabel: str, groups: Sequence[str],
                 series: Mapping[str, Mapping[str, Sequence]], *,
                 reference: float | None = None, reference_label: str = ""):
    """Bars with error bars over categories: ``series[name] = {"x": [group, ...], "y",
    "lo", "hi"}``; one bar per series in each group."""
    _check_series(series)
    fig, ax = _figure()
    n = max(len(series), 1)
    width = 0.8 / n
    pos = {g: i for i, g in enumerate(groups)}
    for si, (name, s) in enumerate(series.items()):
        xs, ys, lo_err, hi_err = [], [], [], []
        for g, y, lo, hi in zip(s["x"], s["y"], s["lo"], s["hi"]):
            if y is None or g not in pos:
                continue
            xs.append(pos[g] - 0.4 + width * (si + 0.5))
            ys.append(y)
            lo_err.append(y - (lo if lo is not None else y))
            hi_err.append((hi if hi is not None else y) - y)
        ax.bar(xs, ys, width * 0.9, yerr=[lo_err, hi_err], capsize=3, label=name,
               color=PALETTE[si % len(PALETTE)], error_kw={"linewidth": 1.0})
    if reference is not None:
        ax.axhline(reference, color="black", linewidth=0.8, linestyle="--",
                   label=reference_label or None)
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", color="#e5e5e5")
    ax.set_axisbelow(True)
    fig.legend(fontsize=8, frameon=False, loc="outside lower center",
               ncol=min(len(series) + (reference_label != ""), 4))
    return fig
