"""Stacked bar charts as standalone SVG text (no plotting dependency).

    svg = stacked_bars("Cycles per update iteration", "cycles",
                       groups=["4-6-1, 5-6-1"], bars=["critic", "critic VU"],
                       series=["FF", "BP_WU"], values={"4-6-1, 5-6-1": {
                           "critic": [25.0, 34.0], "critic VU": [10.0, 20.0]}})

Each group is a cluster on the x axis, each bar of a cluster is a stack of the series
values (bottom to top), the legend names the series, and the y axis has round ticks.
"""

from __future__ import annotations

from math import floor, log10
from typing import Mapping, Sequence
from xml.sax.saxutils import escape

__all__ = ["stacked_bars", "nice_ticks", "PALETTE"]

#: colour-blind-safe (Okabe-Ito) fills, one per series
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#999999")


def nice_ticks(top: float, n: int = 5) -> list[float]:
    """Round tick values 0, s, 2s, ... covering ``top`` with about ``n`` steps
    (s is 1, 2 or 5 times a power of ten)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / n
    mag = 10 ** floor(log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    k = 0
    ticks = [0.0]
    while ticks[-1] < top:
        k += 1
        ticks.append(k * step)
    return ticks


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:g}"


def stacked_bars(title: str, ylabel: str, groups: Sequence[str], bars: Sequence[str],
                 series: Sequence[str], values: Mapping[str, Mapping[str, Sequence[float]]],
                 *, totals: bool = True, width: int = 760, height: int = 420) -> str:
    """An SVG document: one cluster per group, one stacked bar per entry of ``bars``.

    ``values[group][bar]`` lists one non-negative value per series (a missing bar is left
    empty). With ``totals`` each bar's sum is written above it.
    """
    left, right, top, bottom = 70, 150, 40, 70
    plot_w, plot_h = width - left - right, height - top - bottom
    sums = [sum(values.get(g, {}).get(b, ())) for g in groups for b in bars]
    ticks = nice_ticks(max(sums, default=0.0))
    ymax = ticks[-1]
    y = lambda v: top + plot_h - plot_h * v / ymax  # noqa: E731
    group_w = plot_w / max(len(groups), 1)
    bar_w = group_w * 0.8 / max(len(bars), 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left + plot_w / 2:.1f}" y="22" text-anchor="middle" font-size="14" '
           f'font-weight="bold">{escape(title)}</text>',
           f'<text transform="translate(16,{top + plot_h / 2:.1f}) rotate(-90)" '
           f'text-anchor="middle">{escape(ylabel)}</text>']
    for t in ticks:
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">'
                   f'{_fmt(t)}</text>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" stroke="black"/>')
    out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" '
               f'y2="{top + plot_h}" stroke="black"/>')
    for gi, g in enumerate(groups):
        gx = left + gi * group_w + group_w * 0.1
        for bi, b in enumerate(bars):
            vals = values.get(g, {}).get(b)
            x = gx + bi * bar_w
            cx = x + bar_w / 2
            out.append(f'<text x="{cx:.1f}" y="{top + plot_h + 12}" text-anchor="end" '
                       f'transform="rotate(-35 {cx:.1f} {top + plot_h + 12})">'
                       f'{escape(b)}</text>')
            if not vals:
                continue
            acc = 0.0
            for si, v in enumerate(vals):
                if v <= 0:
                    continue
                y0, y1 = y(acc), y(acc + v)
                out.append(f'<rect x="{x + 1:.1f}" y="{y1:.1f}" width="{bar_w - 2:.1f}" '
                           f'height="{y0 - y1:.1f}" fill="{PALETTE[si % len(PALETTE)]}">'
                           f'<title>{escape(g)} / {escape(b)} / {escape(series[si])}: '
                           f'{v:.4g}</title></rect>')
                acc += v
            if totals:
                out.append(f'<text x="{cx:.1f}" y="{y(acc) - 3:.1f}" text-anchor="middle" '
                           f'font-size="9">{acc:.3g}</text>')
        out.append(f'<text x="{left + gi * group_w + group_w / 2:.1f}" y="{height - 8}" '
                   f'text-anchor="middle" font-weight="bold">{escape(g)}</text>')
    lx = left + plot_w + 16
    for si, s in enumerate(series):
        ly = top + 10 + 18 * si
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="12" height="12" '
                   f'fill="{PALETTE[si % len(PALETTE)]}"/>')
        out.append(f'<text x="{lx + 18}" y="{ly + 1}">{escape(s)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
