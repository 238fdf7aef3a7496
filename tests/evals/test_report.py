"""The terminal summary and the report files (HTML with inline SVG, Markdown with SVG files)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from council import Council
from council.config import load_config
from council.evals.charts import forest, histogram
from council.evals.dataset import load_dataset
from council.evals.manifest import build_manifest, new_run_id
from council.evals.metrics import Thresholds
from council.evals.records import EvalStore, Interval
from council.evals.report import render_summary, write_report
from council.evals.runner import EvalRunner
from tests.evals.conftest import fast_simulated_file, write_dataset

SVG = "{http://www.w3.org/2000/svg}"


async def simulated_run(tmp_path, judge: str | None = None):
    config = load_config(fast_simulated_file(tmp_path), {"COUNCIL_DB_PATH": str(tmp_path / "r.db")})
    dataset = load_dataset(write_dataset(tmp_path / "d.jsonl"))
    store = EvalStore(config.storage.path)
    try:
        async with Council(config, environ={}) as council:
            manifest = build_manifest(
                run_id=new_run_id(), mode="judge" if judge else "council", config=config, config_path=config.source,
                dataset=dataset, members=[m.name for m in config.members], evaluator=judge or "scout", judge=judge,
                rubric=council.rubric, repeat=2, concurrency=4, sample_timeout_s=60, thresholds=Thresholds())
            store.start_run(manifest)
            runner = EvalRunner(council, store, dataset, manifest)
            summary = await runner.run()
            return summary, runner.manifest, store.samples(manifest.run_id)
    finally:
        store.close()


@pytest.mark.parametrize("judge", [None, "sage"])
async def test_summary_and_html_report(tmp_path, judge):
    summary, manifest, records = await simulated_run(tmp_path, judge)
    text = render_summary(summary, manifest)
    assert text.startswith(f"Evaluation {summary.run_id}: {summary.mode} mode")
    assert "aggregate_score over repeats (mean ± std)" in text and "latency_e2e_p95_ms" in text
    assert f"Gate: {'PASS' if summary.gate_passed else 'FAIL'}" in text
    assert "Leaderboard (" in text and "95% bootstrap CI" in text
    (path,) = write_report(tmp_path / "out" / "report.html", summary, manifest, records)
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "<script" not in html and "http://" not in html.replace(
        "http://www.w3.org/2000/svg", "")
    for needle in ("Gate: <span", "Metrics", "Leaderboard", "Samples", "Reproducibility", manifest.dataset_hash,
                   manifest.prompt_hashes["evaluator.md"]):
        assert needle in html
    charts = html.count("<svg ")
    assert charts == (3 if judge is None else 2 * 3 + 1)  # scores and latency per subject, and the leaderboard
    assert all(r.sample_id in html for r in records)


async def test_markdown_report_writes_its_charts_beside_it(tmp_path):
    summary, manifest, records = await simulated_run(tmp_path)
    written = write_report(tmp_path / "report.md", summary, manifest, records)
    markdown = written[0].read_text(encoding="utf-8")
    images = written[1:]
    assert [p.name for p in images] == ["report-scores.svg", "report-latency.svg", "report-leaderboard.svg"]
    for image in images:
        assert f"![{image.name}]({image.name})" in markdown
        assert ET.parse(image).getroot().tag == f"{SVG}svg"
    assert "| metric | council |" in markdown and "## Gate:" in markdown


def test_charts_are_valid_svg_and_escape_text():
    chart = histogram([1.0, 2.0, 2.5, 9.0], "Latency <ms> & more", "ms", markers={"p95": 8.0, "none": None})
    root = ET.fromstring(chart)
    assert root.tag == f"{SVG}svg" and root.find(f"{SVG}title").text == "Latency <ms> & more"
    assert sum(1 for r in root.iter(f"{SVG}rect")) == 3  # bins with 2, 1 and 1 values
    assert "no data" in histogram([], "t", "x")
    far = ET.fromstring(histogram([500.0, 600.0], "Latency", "ms", lo=0.0, markers={"gate": 10000.0}))
    assert not [line for line in far.iter(f"{SVG}line") if line.get("stroke-dasharray")]  # no marker line drawn
    assert "gate 10,000 (off the scale)" in ET.tostring(far, "unicode")
    board = ET.fromstring(forest([("a", Interval(mean=1.0, low=0.5, high=1.5)),
                                  ("<b>", Interval(mean=None, low=None, high=None))], "Board", "score"))
    assert sum(1 for _ in board.iter(f"{SVG}circle")) == 1
