"""A sweep's figure: one metric averaged over an axis (the seeds) with confidence intervals,
optionally normalised to a reference configuration, plotted and tabulated.

    [plot]
    title = "Fig. 5: learning against fraction bits"
    x = "arch.machine.dtype"          # the x axis
    x_from = "q6.{}"                  # numeric x: the number in the values' {} place
    series = "manifest"               # one line (or bar colour) per value of this axis
    over = "seed"                     # the axis averaged over (the runs)
    y = "balanced"                    # a metric of [metrics]
    normalize = {"arch.machine.dtype" = "float64"}   # divide by this value's mean
    ci = 0.95
    knee = true                       # the narrowest x from which on the CI reaches 1
    marks = [{x = 12, label = "seed: 12 bits"}]
    labels = {manifest = {"cartpole.toml" = "cart-pole"}}
    xlabel = "fraction bits"
    ylabel = "balanced steps / float64"

Statistics: for each (series, x), the mean of ``y`` over the finished points, its Student-t
``ci`` interval (``t * s / sqrt(n)``, none for a single point); normalised, the ratio of the
mean to the reference's mean (the same series and coordinates but the ``normalize`` value),
its interval by the delta method for a ratio of two independent means (``R * t *
sqrt(s^2/(n m^2) + s_r^2/(n_r m_r^2))``, ``n + n_r - 2`` degrees of freedom; the same seeds
run in both, so this is the conservative reading). Failed points are counted and left out.

The knee, for a numeric x, per series: the smallest x from which on every x has a
normalised interval that reaches 1 (performance not significantly below the reference).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlaccel.sweep.errors import SweepError
from rlaccel.util.stats import t_quantile as _t

__all__ = ["PlotSpec", "aggregate", "knees", "markdown", "draw", "write_figure"]

_KEYS = ("title", "x", "x_from", "series", "over", "y", "normalize", "ci", "knee", "marks",
         "labels", "xlabel", "ylabel", "kind")


@dataclass
class PlotSpec:
    """The ``[plot]`` table of a spec, checked against its axes and metrics."""

    x: str
    y: str
    series: str | None = None
    over: str | None = None
    x_from: str | None = None
    normalize: tuple[str, Any] | None = None
    ci: float = 0.95
    knee: bool = False
    marks: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    kind: str = "auto"
    axis_labels: dict = field(default_factory=dict)     # axis -> its labels, in order

    @classmethod
    def from_table(cls, t: dict, spec) -> "PlotSpec":
        where = f"{spec.path}: [plot]"
        for k in t:
            if k not in _KEYS:
                raise SweepError(f"{where}: unknown key '{k}'; known: {', '.join(_KEYS)}")
        axes = {a.name: list(a.labels) for a in spec.axes}

        def axis(key, required=False):
            v = t.get(key)
            if v is None:
                if required:
                    raise SweepError(f"{where}: '{key}' must name an axis ({', '.join(axes)})")
                return None
            if not isinstance(v, str) or v not in axes:
                raise SweepError(f"{where}: {key} = {v!r} is not an axis; axes: "
                                 f"{', '.join(axes) or 'none'}")
            return v

        x, series, over = axis("x", True), axis("series"), axis("over")
        named = [a for a in (x, series, over) if a]
        if len(set(named)) != len(named):
            raise SweepError(f"{where}: x, series and over must be different axes")
        loose = [a for a in axes if a not in named and len(axes[a]) > 1]
        if loose:
            raise SweepError(f"{where}: axis {', '.join(repr(a) for a in loose)} is neither "
                             f"x, series nor over: its points would be pooled; name it, or "
                             f"plot one value of it per spec")
        y = t.get("y")
        if y not in spec.metrics:
            raise SweepError(f"{where}: y = {y!r} is not a metric; metrics: "
                             f"{', '.join(spec.metrics)}")
        x_from = t.get("x_from")
        if x_from is not None and (not isinstance(x_from, str) or x_from.count("{}") != 1):
            raise SweepError(f"{where}: x_from must be a pattern with one {{}}, such as "
                             f"\"q6.{{}}\", not {x_from!r}")
        norm = t.get("normalize")
        if norm is not None:
            if not (isinstance(norm, dict) and len(norm) == 1):
                raise SweepError(f"{where}: normalize must be one axis and its reference "
                                 f"value, such as {{\"arch.machine.dtype\" = \"float64\"}}")
            (nax, nval), = norm.items()
            if nax not in (x, series):
                raise SweepError(f"{where}: normalize names '{nax}', which is neither the "
                                 f"x axis nor the series")
            if nval not in axes[nax]:
                raise SweepError(f"{where}: normalize: {nval!r} is not a value of axis "
                                 f"'{nax}' ({', '.join(map(str, axes[nax]))})")
            norm = (nax, nval)
        ci = t.get("ci", 0.95)
        if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not 0 < ci < 1:
            raise SweepError(f"{where}: ci must be a confidence level between 0 and 1, such "
                             f"as 0.95, not {ci!r}")
        knee = t.get("knee", False)
        if knee and (x_from is None or norm is None):
            raise SweepError(f"{where}: knee needs a numeric x (x_from) and normalize")
        marks = t.get("marks", [])
        if not (isinstance(marks, list) and all(
                isinstance(m, dict) and isinstance(m.get("x"), (int, float))
                and isinstance(m.get("label", ""), str) for m in marks)):
            raise SweepError(f"{where}: marks must be a list of {{x = NUMBER, label = TEXT}}")
        labels = t.get("labels", {})
        if not isinstance(labels, dict) or not all(
                a in axes and isinstance(m, dict) for a, m in labels.items()):
            raise SweepError(f"{where}: labels must be a table of axes, each a table of "
                             f"value = \"display name\"")
        kind = t.get("kind", "auto")
        if kind not in ("auto", "lines", "bars"):
            raise SweepError(f"{where}: kind must be auto, lines or bars, not {kind!r}")
        if kind == "lines" and x_from is None and not all(
                isinstance(v, (int, float)) for v in axes[x]):
            raise SweepError(f"{where}: lines need a numeric x axis (or x_from)")
        for key in ("title", "xlabel", "ylabel"):
            if not isinstance(t.get(key, ""), str):
                raise SweepError(f"{where}: {key} must be a string")
        return cls(x=x, y=y, series=series, over=over, x_from=x_from, normalize=norm,
                   ci=float(ci), knee=bool(knee), marks=marks, labels=labels,
                   title=t.get("title", ""), xlabel=t.get("xlabel", x),
                   ylabel=t.get("ylabel", y), kind=kind, axis_labels=axes)

    # ---- helpers ----
    def numeric_x(self, label) -> float | None:
        """The number an x value stands for (None: not on a numeric axis)."""
        if self.x_from is None:
            return label if isinstance(label, (int, float)) and not isinstance(label, bool) \
                else None
        pre, post = self.x_from.split("{}")
        m = re.fullmatch(re.escape(pre) + r"(-?\d+(?:\.\d+)?)" + re.escape(post), str(label))
        return float(m.group(1)) if m else None

    @property
    def is_lines(self) -> bool:
        if self.kind != "auto":
            return self.kind == "lines"
        return any(self.numeric_x(v) is not None for v in self.axis_labels[self.x])

    def show(self, axis: str | None, value) -> str:
        if axis is None:
            return ""
        return str(self.labels.get(axis, {}).get(str(value), value))


def aggregate(plot: PlotSpec, rows: list[dict]) -> list[dict]:
    """One cell per (series, x) in the axes' order: n, failed, mean, sd, the interval and,
    with ``normalize``, the normalised mean and interval."""
    series_vals = plot.axis_labels[plot.series] if plot.series else [None]
    cells: dict = {(s, x): {"series": s, "x": x, "values": [], "failed": 0, "pending": 0}
                   for s in series_vals for x in plot.axis_labels[plot.x]}
    for r in rows:
        key = (r["coords"].get(plot.series) if plot.series else None, r["coords"][plot.x])
        if key not in cells:
            continue
        c = cells[key]
        if r["status"] == "failed":
            c["failed"] += 1
        elif r["status"] != "done":
            c["pending"] += 1
        else:
            v = (r["metrics"] or {}).get(plot.y)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise SweepError(f"metric '{plot.y}' of point {r['idx']} is {v!r}, not a "
                                 f"number: it cannot be averaged")
            c["values"].append(float(v))
    for c in cells.values():
        v = c.pop("values")
        n = len(v)
        c["n"] = n
        c["mean"] = math.fsum(v) / n if n else None
        c["sd"] = math.sqrt(math.fsum((x - c["mean"]) ** 2 for x in v) / (n - 1)) \
            if n > 1 else None
        half = _t(plot.ci, n - 1) * c["sd"] / math.sqrt(n) if n > 1 else None
        c["lo"] = c["mean"] - half if half is not None else None
        c["hi"] = c["mean"] + half if half is not None else None
    if plot.normalize:
        nax, nval = plot.normalize
        for c in cells.values():
            ref = cells[(nval, c["x"]) if nax == plot.series else (c["series"], nval)]
            c.update(_ratio(c, ref, plot.ci, same=c is ref))
    return list(cells.values())


def _ratio(c: dict, ref: dict, ci: float, same: bool) -> dict:
    none = {"norm": None, "norm_lo": None, "norm_hi": None}
    if c["mean"] is None or ref["mean"] is None or ref["mean"] == 0:
        return none
    r = c["mean"] / ref["mean"]
    if c["n"] < 2 or ref["n"] < 2:
        return {**none, "norm": r}
    if same:                    # the reference itself: its own relative interval
        half = _t(ci, c["n"] - 1) * c["sd"] / math.sqrt(c["n"]) / abs(ref["mean"])
    else:
        rel = (c["sd"] ** 2 / c["n"]) / c["mean"] ** 2 if c["mean"] else math.inf
        rel += (ref["sd"] ** 2 / ref["n"]) / ref["mean"] ** 2
        half = abs(r) * _t(ci, c["n"] + ref["n"] - 2) * math.sqrt(rel) \
            if math.isfinite(rel) else None
        if half is None:        # a mean of 0: the interval of the ratio from c's own spread
            half = _t(ci, c["n"] - 1) * c["sd"] / math.sqrt(c["n"]) / abs(ref["mean"])
    return {"norm": r, "norm_lo": r - half, "norm_hi": r + half}


def knees(plot: PlotSpec, cells: list[dict]) -> dict:
    """Per series, the knee (see the module doc) as a number, or None."""
    out = {}
    ref = plot.normalize[1] if plot.normalize and plot.normalize[0] == plot.x else None
    for s in (plot.axis_labels[plot.series] if plot.series else [None]):
        pts = sorted((plot.numeric_x(c["x"]), c) for c in cells
                     if c["series"] == s and c["x"] != ref and plot.numeric_x(c["x"]) is not None)
        knee = None
        for x, c in reversed(pts):
            hi = c.get("norm_hi") if c.get("norm_hi") is not None else c.get("norm")
            ok = hi is not None and hi >= 1.0
            if not ok:
                break
            knee = x
        out[s] = knee
    return out


def _fmt(v, digits=3) -> str:
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def _num(x) -> str:
    return f"{x:g}" if x is not None else "-"


def markdown(plot: PlotSpec, cells: list[dict], *, description: str = "",
             metric_text: str = "") -> str:
    """The figure's numbers as Markdown tables (and the knees)."""
    series = plot.axis_labels[plot.series] if plot.series else [None]
    xs = plot.axis_labels[plot.x]
    by = {(c["series"], c["x"]): c for c in cells}
    pct = f"{plot.ci:.0%}"
    lines = [f"## {plot.title or plot.y}", ""]
    if description:
        lines += [description, ""]
    what = (f"`{plot.y}` = `{metric_text}`" if metric_text else f"`{plot.y}`")
    over = f" over `{plot.over}`" if plot.over else ""
    lines.append(f"{what}: mean{over} with its {pct} confidence interval (Student t); "
                 f"failed runs are counted, not averaged.")
    if plot.normalize:
        nax, nval = plot.normalize
        lines.append(f"Normalised: the ratio of the mean to the mean at `{nax}` = "
                     f"`{plot.show(nax, nval)}` (same {'x' if nax == plot.series else 'series'}"
                     f"), interval by the delta method.")
    lines.append("")
    head = [plot.xlabel or plot.x] + [plot.show(plot.series, s) or plot.y for s in series]
    for title, key in (("normalised", "norm"), ("mean", "mean")):
        if key == "norm" and not plot.normalize:
            continue
        lines += [f"**{title}** [{pct} interval] (n runs, failed)", "",
                  "| " + " | ".join(head) + " |", "|---|" + "---:|" * len(series)]
        for x in xs:
            row = [plot.show(plot.x, x)]
            for s in series:
                c = by[(s, x)]
                lo, hi = c[key + "_lo" if key == "norm" else "lo"], \
                    c[key + "_hi" if key == "norm" else "hi"]
                inter = f" [{_fmt(lo)}, {_fmt(hi)}]" if lo is not None else ""
                fail = f", {c['failed']} failed" if c["failed"] else ""
                pend = f", {c['pending']} unfinished" if c["pending"] else ""
                row.append(f"{_fmt(c[key])}{inter} ({c['n']}{fail}{pend})")
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    if plot.knee:
        k = knees(plot, cells)
        lines.append(f"**Knee** (the smallest {plot.xlabel or plot.x} from which on every "
                     f"value's {pct} interval reaches the reference):")
        lines.append("")
        for s, x in k.items():
            lines.append(f"* {plot.show(plot.series, s) or plot.y}: "
                         f"{_num(x) if x is not None else 'none within the range'}")
        lines.append("")
    return "\n".join(lines)


def draw(plot: PlotSpec, cells: list[dict]):
    """The matplotlib figure."""
    from rlaccel.util import plots
    norm = plot.normalize is not None
    key, lo, hi = ("norm", "norm_lo", "norm_hi") if norm else ("mean", "lo", "hi")
    ref_x = plot.normalize[1] if norm and plot.normalize[0] == plot.x else None
    series = {}
    for s in (plot.axis_labels[plot.series] if plot.series else [None]):
        mine = [c for c in cells if c["series"] == s and c["x"] != ref_x]
        name = plot.show(plot.series, s) or plot.y
        if plot.is_lines:
            mine = [c for c in mine if plot.numeric_x(c["x"]) is not None]
            mine.sort(key=lambda c: plot.numeric_x(c["x"]))
            xs = [plot.numeric_x(c["x"]) for c in mine]
        else:
            xs = [plot.show(plot.x, c["x"]) for c in mine]
        series[name] = {"x": xs, "y": [c[key] for c in mine], "lo": [c[lo] for c in mine],
                        "hi": [c[hi] for c in mine]}
    # a reference value of the x axis is drawn as the line at 1; a reference series has its
    # own bars, so its line needs no legend entry
    ref_label = plot.show(*plot.normalize) if norm and ref_x is not None else ""
    title = plot.title or plot.y
    if plot.is_lines:
        marks = [(m["x"], m.get("label", "")) for m in plot.marks]
        xticks = sorted({x for s in series.values() for x in s["x"]})
        return plots.lines(title, plot.xlabel, plot.ylabel, series,
                           reference=1.0 if norm else None, reference_label=ref_label,
                           marks=marks, xticks=xticks)
    groups = [plot.show(plot.x, x) for x in plot.axis_labels[plot.x] if x != ref_x]
    return plots.grouped_bars(title, plot.xlabel, plot.ylabel, groups, series,
                              reference=1.0 if norm else None, reference_label=ref_label)


def figure_files(base: str | Path) -> list[Path]:
    """The files :func:`write_figure` writes for ``base``: ``base.png``, ``.svg``, ``.md``."""
    base = Path(base)
    return [base.with_name(base.name + f".{ext}") for ext in ("png", "svg", "md")]


def write_figure(spec, rows: list[dict], base: str | Path) -> tuple[str, list[Path]]:
    """Draw the spec's figure from the database rows to ``base.png``/``.svg`` and its
    numbers to ``base.md``; returns the Markdown and the paths."""
    from rlaccel.util.files import atomic_write
    from rlaccel.util.plots import save
    plot = spec.plot
    if plot is None:
        raise SweepError(f"{spec.path}: has no [plot] table")
    cells = aggregate(plot, rows)
    md = markdown(plot, cells, description=spec.description,
                  metric_text=spec.metrics[plot.y].text)
    base = Path(base)
    paths = save(draw(plot, cells), base)
    md_path = base.with_name(base.name + ".md")
    atomic_write(md_path, md)
    return md, paths + [md_path]
