"""Small SVG charts for evaluation reports, drawn by hand: no plotting library, no script, no external file.

Each function returns one standalone ``<svg>`` element, usable inline in HTML
or saved as an ``.svg`` file next to a Markdown report. All text is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from html import escape

from council.evals.records import Interval

WIDTH, HEIGHT = 560, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 24, 30, 40
FONT_PX = 11
CHAR_EM = 0.62
"""Width of one character in em: above the average of sans-serif faces, so an estimate never falls short."""
LEGEND_KEY, LEGEND_GAP, LEGEND_ROW = 18, 14, 14
BAR = "#4c78a8"
MARK = "#e45756"
GRID = "#dddddd"
INK = "#333333"
FAR_MARKER = 2.0
"""A histogram marker beyond this multiple of the largest value is named, not drawn."""


def _svg(body: list[str], title: str, height: int = HEIGHT) -> str:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}" '
            f'font-family="sans-serif" font-size="{FONT_PX}">')
    heading = (f'<text x="{WIDTH / 2:.0f}" y="18" text-anchor="middle" font-size="13" fill="{INK}">'
               f'{escape(_fit(title, WIDTH - 8, 13))}</text>')
    return "\n".join([head, f"<title>{escape(title)}</title>", heading, *body, "</svg>"])


def text_width(text: str, size: float = FONT_PX) -> float:
    """A generous estimate of how wide ``text`` is drawn in sans-serif at ``size`` px (no font metrics here)."""
    return len(text) * size * CHAR_EM


def _fit(text: str, room: float, size: float = FONT_PX) -> str:
    """``text``, cut with an ellipsis to fit ``room`` pixels (the whole text stays in the element's title)."""
    if text_width(text, size) <= room:
        return text
    keep = max(1, int(room / (size * CHAR_EM)) - 1)
    return text[:keep] + "\u2026"


def _legend(items: list[tuple[str, bool]], top: float) -> tuple[list[str], float]:
    """Marker labels in rows above the plot, left to right, each after a short dashed line (a solid arrow for a
    marker off the scale); returns the elements and the y where the plot may start."""
    body: list[str] = []
    x, row = float(LEFT), 0
    for label, far in items:
        text = _fit(label, WIDTH - LEFT - RIGHT - LEGEND_KEY)
        width = LEGEND_KEY + text_width(text) + LEGEND_GAP
        if x + width - LEGEND_GAP > WIDTH - RIGHT and x > LEFT:
            x, row = float(LEFT), row + 1
        y = top + LEGEND_ROW * row
        dash = "" if far else ' stroke-dasharray="4 3"'
        body.append(f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + LEGEND_KEY - 4:.1f}" y2="{y - 4:.1f}" '
                    f'stroke="{MARK}"{dash}/>')
        body.append(f'<text x="{x + LEGEND_KEY:.1f}" y="{y:.1f}" fill="{MARK}">{escape(text)}</text>')
        x += width
    rows = row + 1 if items else 0
    return body, top + LEGEND_ROW * rows - (LEGEND_ROW - 8 if rows else 0)


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / max(ticks, 1)
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}".rstrip("0").rstrip(".")


def histogram(values: Sequence[float], title: str, x_label: str, *, bins: int = 10, lo: float | None = None,
              hi: float | None = None, markers: Mapping[str, float | None] | None = None) -> str:
    """A histogram of ``values``; ``markers`` draws dashed vertical lines (percentiles, thresholds).

    Each marker is named, with its value, in a legend above the plot, so no
    label sits on a bar or on another label.
    """
    body: list[str] = []
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        body.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" text-anchor="middle" fill="{INK}">no data</text>')
        return _svg(body, title)
    lo = min(finite) if lo is None else lo
    hi = max(finite) if hi is None else hi
    marks = {k: v for k, v in (markers or {}).items() if v is not None and math.isfinite(v)}
    # A marker far past the data (a 10 s gate over 0.5 s latencies) would squash every bar to the left edge:
    # it is named in the legend, off the scale, instead of drawn.
    far = {k: v for k, v in marks.items() if v > FAR_MARKER * max(hi, lo + 1e-9) and v > hi}
    marks = {k: v for k, v in marks.items() if k not in far}
    legend, top = _legend([(f"{k} {_fmt(v)}", False) for k, v in marks.items()]
                          + [(f"{k} {_fmt(v)} (off the scale) \u2192", True) for k, v in far.items()], TOP + 4)
    top = max(top + 6, TOP) if legend else TOP
    height = HEIGHT + (top - TOP)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    hi = max([hi, *marks.values()])
    if hi <= lo:
        hi = lo + 1.0
    width = (hi - lo) / bins
    counts = [0] * bins
    for value in finite:
        counts[min(bins - 1, max(0, int((value - lo) / width)))] += 1
    most = max(counts)

    def x(value: float) -> float:
        return LEFT + (value - lo) / (hi - lo) * plot_w

    def y(count: float) -> float:
        return top + plot_h - count / most * plot_h

    body += legend
    body.append(f'<line x1="{LEFT}" y1="{top + plot_h}" x2="{LEFT + plot_w}" y2="{top + plot_h}" stroke="{INK}"/>')
    for tick in range(0, most + 1, max(1, math.ceil(most / 4))):
        body.append(f'<line x1="{LEFT}" y1="{y(tick):.1f}" x2="{LEFT + plot_w}" y2="{y(tick):.1f}" stroke="{GRID}"/>')
        body.append(f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" fill="{INK}">{tick:,}</text>')
    for index, count in enumerate(counts):
        if count:
            left = x(lo + index * width)
            body.append(f'<rect x="{left + 1:.1f}" y="{y(count):.1f}" width="{max(plot_w / bins - 2, 1):.1f}" '
                        f'height="{top + plot_h - y(count):.1f}" fill="{BAR}"><title>{count}</title></rect>')
    body += _x_ticks(lo, hi, x, top + plot_h + 14)
    body.append(f'<text x="{LEFT + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle" fill="{INK}">'
                f'{escape(_fit(x_label, plot_w))}</text>')
    for value in marks.values():
        body.append(f'<line x1="{x(value):.1f}" y1="{top}" x2="{x(value):.1f}" y2="{top + plot_h}" '
                    f'stroke="{MARK}" stroke-dasharray="4 3"/>')
    return _svg(body, title, round(height))


def _x_ticks(lo: float, hi: float, x: Callable[[float], float], baseline: float) -> list[str]:
    """Tick labels under an axis: every nice step, skipping one that would touch the previous or the edge."""
    body: list[str] = []
    step = _nice_step(hi - lo)
    tick: float = math.ceil(lo / step) * step
    right_of_last = -math.inf
    while tick <= hi + 1e-9:
        text = _fmt(tick)
        half = text_width(text) / 2
        centre = min(max(x(tick), half + 1), WIDTH - half - 1)
        if centre - half > right_of_last + 4:
            body.append(f'<text x="{centre:.1f}" y="{baseline:.1f}" text-anchor="middle" fill="{INK}">'
                        f'{escape(text)}</text>')
            right_of_last = centre + half
        tick += step
    return body


def forest(rows: Sequence[tuple[str, Interval]], title: str, x_label: str) -> str:
    """Means with their confidence intervals, one row per label (a leaderboard at a glance)."""
    usable = [(label, ci) for label, ci in rows if ci.mean is not None]
    height = TOP + BOTTOM + 24 * max(len(usable), 1)
    body: list[str] = []
    if not usable:
        body.append(f'<text x="{WIDTH / 2:.0f}" y="{height / 2:.0f}" text-anchor="middle" fill="{INK}">no data</text>')
        return _svg(body, title, height)
    left = 120
    points = [v for _, ci in usable for v in (ci.low, ci.mean, ci.high) if v is not None]
    lo, hi = min(points), max(points)
    pad = (hi - lo) * 0.08 or 0.5
    lo, hi = lo - pad, hi + pad
    plot_w = WIDTH - left - RIGHT

    def x(value: float) -> float:
        return left + (value - lo) / (hi - lo) * plot_w

    bottom = TOP + 24 * len(usable)
    step = _nice_step(hi - lo)
    tick = math.ceil(lo / step) * step
    while tick <= hi + 1e-9:
        body.append(f'<line x1="{x(tick):.1f}" y1="{TOP}" x2="{x(tick):.1f}" y2="{bottom}" stroke="{GRID}"/>')
        tick += step
    body += _x_ticks(lo, hi, x, bottom + 14)
    for row, (label, ci) in enumerate(usable):
        cy = TOP + 12 + 24 * row
        body.append(f'<text x="{left - 8}" y="{cy + 4}" text-anchor="end" fill="{INK}">'
                    f'<title>{escape(label)}</title>{escape(_fit(label, left - 12))}</text>')
        if ci.low is not None and ci.high is not None:
            body.append(f'<line x1="{x(ci.low):.1f}" y1="{cy}" x2="{x(ci.high):.1f}" y2="{cy}" stroke="{BAR}" '
                        f'stroke-width="2"/>')
        assert ci.mean is not None
        body.append(f'<circle cx="{x(ci.mean):.1f}" cy="{cy}" r="4" fill="{BAR}"><title>{escape(label)}: '
                    f'{ci.mean:.3f}</title></circle>')
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{bottom + 30}" text-anchor="middle" fill="{INK}">'
                f'{escape(_fit(x_label, plot_w))}</text>')
    return _svg(body, title, height)
