"""The report's charts in real headless Chromium: every label inside its chart, none on another or on a bar.

The shipped demo (``council eval config/datasets/sample.jsonl``) writes the
report as a newcomer sees it; a crowded chart (markers a few pixels apart, a
marker off the scale, long names) is drawn into a page the same way. The
boxes are the ones Chromium lays out, not estimates.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from council.evals.charts import forest, histogram
from council.evals.records import Interval
from tests.web.conftest import CHROMIUM_ARGS, find_chromium

ROOT = Path(__file__).parents[2]

# Every <text> of every chart, with its box, the chart's box and every bar's box, as Chromium lays them out.
MEASURE = """() => [...document.querySelectorAll('svg')].map(svg => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {chart: svg.getAttribute('aria-label'), svg: box(svg), page: document.documentElement.clientWidth,
          texts: [...svg.querySelectorAll('text')].map(t => ({text: [...t.childNodes].filter(n => n.nodeType === 3)
                    .map(n => n.textContent).join(''), box: box(t)})),
          bars: [...svg.querySelectorAll('rect')].map(box)};
})"""


def overlap(a: list[float], b: list[float]) -> bool:
    """Whether two boxes share more than a hairline (0.5 px of rounding either way)."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def problems(charts: list[dict]) -> list[str]:
    found = []
    for chart in charts:
        left, top, right, bottom = chart["svg"]
        for index, label in enumerate(chart["texts"]):
            x0, y0, x1, y1 = label["box"]
            if x0 < left - 0.5 or y0 < top - 0.5 or x1 > right + 0.5 or y1 > bottom + 0.5 or x1 > chart["page"]:
                found.append(f"{chart['chart']}: {label['text']!r} is cut ({label['box']} outside {chart['svg']})")
            for other in chart["texts"][index + 1:]:
                if overlap(label["box"], other["box"]):
                    found.append(f"{chart['chart']}: {label['text']!r} overlaps {other['text']!r}")
            for bar in chart["bars"]:
                if overlap(label["box"], bar):
                    found.append(f"{chart['chart']}: {label['text']!r} lies on a bar")
    return found


async def measure(page_path: Path) -> list[dict]:
    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium found (/usr/bin/chromium or chromium on PATH): apt-get install chromium")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 900})
            await page.goto(page_path.as_uri())
            return await page.evaluate(MEASURE)
        finally:
            await browser.close()


async def test_the_demo_reports_charts_are_legible(tmp_path):
    report = tmp_path / "demo.html"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COUNCIL_DB_PATH": str(tmp_path / "demo.db")}
    env.pop("COUNCIL_CONFIG", None)
    done = subprocess.run([sys.executable, "-m", "council", "eval", "config/datasets/sample.jsonl", "--quiet",
                           "--concurrency", "12", "--report", str(report)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr  # the demo passes its gate (see test_seed_spec.py)
    charts = await measure(report)
    assert len(charts) == 3 and all(len(c["texts"]) > 5 for c in charts)
    assert problems(charts) == []
    legend = [t["text"] for c in charts for t in c["texts"] if t["text"].startswith(("p50", "p95", "gate p95"))]
    assert any(text.startswith("gate p95 10,000") for text in legend) and not any("\u2026" in t for t in legend)


async def test_a_crowded_chart_keeps_every_label_apart(tmp_path):
    latencies = [980.0, 1000.0, 1003.0, 1005.0, 1010.0, 1012.0]
    crowded = histogram(latencies, "End-to-end latency (a-member-with-a-rather-long-name)", "latency_e2e_ms",
                        lo=0.0, markers={"p50": 1004.0, "p95": 1011.5, "gate p95": 1012.0, "mean": 1005.0,
                                         "a far threshold": 90_000.0, "another far one": 120_000.0})
    edges = histogram([0.0, 1.0, 1.0, 0.5], "Sample scores", "sample_score", lo=0.0, hi=1.0,
                      markers={"mean": 0.999, "floor": 0.0})
    board = forest([("a-member-with-a-very-long-name-indeed", Interval(mean=1.2, low=1.0, high=1.4)),
                    ("b", Interval(mean=-0.3, low=-0.5, high=-0.1))], "Leaderboard", "calibrated z")
    page = tmp_path / "charts.html"
    page.write_text(f"<!doctype html><meta charset='utf-8'><body>{crowded}{edges}{board}</body>", encoding="utf-8")
    charts = await measure(page)
    assert problems(charts) == []
    texts = [t["text"] for t in charts[0]["texts"]]
    # Every marker is named with its value, the far ones as off the scale.
    assert {"p50 1,004", "p95 1,012", "gate p95 1,012", "mean 1,005"} <= set(texts)
    assert any(t.startswith("another far one 120,000 (off the scale") for t in texts)
