"""Small SVG charts for evaluation reports, drawn by hand: no plotting library, no script, no external file.

Each function returns one standalone ``<svg>`` element, usable inline in HTML
or saved as an ``.svg`` file next to a Markdown report. All text is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from council.evals.records import Interval

WIDTH, HEIGHT = 560, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 30, 40
BAR = "#4c78a8"
MARK = "#e45756"
GRID = "#dddddd"
INK = "#333333"
FAR_MARKER = 2.0
"""A histogram marker beyond this multiple of the largest value is named, not drawn."""


def _svg(body: list[str], title: str, height: int = HEIGHT) -> str:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}" '
            f'font-family="sans-serif" font-size="11">')
    heading = (f'<text x="{WIDTH / 2:.0f}" y="18" text-anchor="middle" font-size="13" fill="{INK}">'
               f'{escape(title)}</text>')
    return "\n".join([head, f"<title>{escape(title)}</title>", heading, *body, "</svg>"])


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
    """A histogram of ``values``; ``markers`` draws labelled vertical lines (percentiles, thresholds)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    body: list[str] = []
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        body.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" text-anchor="middle" fill="{INK}">no data</text>')
        return _svg(body, title)
    lo = min(finite) if lo is None else lo
    hi = max(finite) if hi is None else hi
    marks = {k: v for k, v in (markers or {}).items() if v is not None and math.isfinite(v)}
    # A marker far past the data (a 10 s gate over 0.5 s latencies) would squash every bar to the left edge:
    # it is named in a corner instead of drawn.
    far = {k: v for k, v in marks.items() if v > FAR_MARKER * max(hi, lo + 1e-9) and v > hi}
    marks = {k: v for k, v in marks.items() if k not in far}
    hi = max([hi, *marks.values()])
    if hi <= lo:
        hi = lo + 1.0
    width = (hi - lo) / bins
    counts = [0] * bins
    for value in finite:
        counts[min(bins - 1, max(0, int((value - lo) / width)))] += 1
    top = max(counts)

    def x(value: float) -> float:
        return LEFT + (value - lo) / (hi - lo) * plot_w

    def y(count: float) -> float:
        return TOP + plot_h - count / top * plot_h

    body.append(f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="{INK}"/>')
    for tick in range(0, top + 1, max(1, math.ceil(top / 4))):
        body.append(f'<line x1="{LEFT}" y1="{y(tick):.1f}" x2="{LEFT + plot_w}" y2="{y(tick):.1f}" stroke="{GRID}"/>')
        body.append(f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" fill="{INK}">{tick}</text>')
    for index, count in enumerate(counts):
        if count:
            left = x(lo + index * width)
            body.append(f'<rect x="{left + 1:.1f}" y="{y(count):.1f}" width="{max(plot_w / bins - 2, 1):.1f}" '
                        f'height="{TOP + plot_h - y(count):.1f}" fill="{BAR}"><title>{count}</title></rect>')
    step = _nice_step(hi - lo)
    x_tick: float = math.ceil(lo / step) * step
    while x_tick <= hi + 1e-9:
        body.append(f'<text x="{x(x_tick):.1f}" y="{TOP + plot_h + 14}" text-anchor="middle" fill="{INK}">'
                    f'{escape(_fmt(x_tick))}</text>')
        x_tick += step
    body.append(f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle" fill="{INK}">'
                f'{escape(x_label)}</text>')
    for row, (label, value) in enumerate(far.items()):
        body.append(f'<text x="{LEFT + plot_w:.1f}" y="{TOP + 10 + 12 * row}" text-anchor="end" fill="{MARK}">'
                    f'{escape(label)} {escape(_fmt(value))} (off the scale) &#8594;</text>')
    for row, (label, value) in enumerate(marks.items(), start=len(far)):
        body.append(f'<line x1="{x(value):.1f}" y1="{TOP}" x2="{x(value):.1f}" y2="{TOP + plot_h}" '
                    f'stroke="{MARK}" stroke-dasharray="4 3"/>')
        # Labels near the right edge go left of their line, so they are not cut off.
        anchor, dx = ("end", -3) if x(value) > LEFT + 0.8 * plot_w else ("start", 3)
        body.append(f'<text x="{x(value) + dx:.1f}" y="{TOP + 10 + 12 * row}" text-anchor="{anchor}" '
                    f'fill="{MARK}">{escape(label)}</text>')
    return _svg(body, title)


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
        body.append(f'<text x="{x(tick):.1f}" y="{bottom + 14}" text-anchor="middle" fill="{INK}">'
                    f'{escape(_fmt(tick))}</text>')
        tick += step
    for row, (label, ci) in enumerate(usable):
        cy = TOP + 12 + 24 * row
        body.append(f'<text x="{left - 8}" y="{cy + 4}" text-anchor="end" fill="{INK}">{escape(label)}</text>')
        if ci.low is not None and ci.high is not None:
            body.append(f'<line x1="{x(ci.low):.1f}" y1="{cy}" x2="{x(ci.high):.1f}" y2="{cy}" stroke="{BAR}" '
                        f'stroke-width="2"/>')
        assert ci.mean is not None
        body.append(f'<circle cx="{x(ci.mean):.1f}" cy="{cy}" r="4" fill="{BAR}"><title>{escape(label)}: '
                    f'{ci.mean:.3f}</title></circle>')
    body.append(f'<text x="{left + plot_w / 2:.0f}" y="{bottom + 30}" text-anchor="middle" fill="{INK}">'
                f'{escape(x_label)}</text>')
    return _svg(body, title, height)
