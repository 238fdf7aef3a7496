"""Evaluation output: the terminal summary, and the report file (HTML, or Markdown with SVG images).

Every view is built from the same tables (:func:`metric_table`,
:func:`gate_table`, :func:`leaderboard_table`, :func:`sample_table`), so the
terminal, the HTML and the Markdown always say the same thing. The HTML
report is one self-contained file with its charts inline; a Markdown report
(``--report PATH.md``) gets its charts as ``.svg`` files beside it.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from council.evals.charts import forest, histogram
from council.evals.metadata import run_metadata
from council.evals.metrics import RunMetrics, usd
from council.evals.records import EvalSummary, RunManifest, SampleRecord, SubjectSummary
from council.text import text_table as plain_table

Table = tuple[list[str], list[list[str]]]

METRICS = (
    ("accuracy_mean", 2), ("accuracy_full_credit_rate", 3), ("faithfulness_mean", 2),
    ("faithfulness_failure_rate", 3), ("latency_e2e_p50_ms", 0), ("latency_e2e_p95_ms", 0),
    ("latency_model_p50_ms", 0), ("latency_model_p95_ms", 0), ("total_input_tokens", 0),
    ("total_output_tokens", 0), ("total_tokens", 0), ("token_efficiency_ratio_mean", 3),
    ("tokens_per_correct_answer", 0), ("total_spent_tokens", 0), ("spent_tokens_per_sample_mean", 0),
    ("pass_rate", 3), ("aggregate_score", 3), ("schema_valid_rate", 3),
)
COST_METRICS = ("cost_usd_total", "cost_per_sample_usd", "cost_per_correct_answer_usd")


def fmt(value: object, digits: int = 3) -> str:
    """A number for a table: fixed digits, thousands separators, '-' for None."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def cost_cell(value: float | None, partial: bool, known: bool = True) -> str:
    """A cost for a table: dollars, with '(partial)' when part of it is unknown; 'unknown' when the figure it
    derives from is not known (``known`` false); '-' when only ``value`` is missing (no correct answer)."""
    if not known:
        return "unknown"
    if value is None:
        return "-"
    return usd(value) + (" (partial)" if partial else "")


def _sample_cost(record: SampleRecord) -> str:
    cost = record.metrics.cost_usd
    return cost_cell(cost, record.metrics.cost_partial, cost is not None)


def _metric_cost(metrics: RunMetrics, name: str) -> str:
    return cost_cell(getattr(metrics, name), metrics.cost_partial, metrics.cost_usd_total is not None)


def cost_lines(summary: EvalSummary, manifest: RunManifest) -> list[str]:
    """What the answers cost (in all, a sample, a correct answer; per member in judge mode), and the evaluator."""
    cost = summary.cost
    if cost is None:
        return ["cost: not recorded (the run was stored before evaluations recorded cost)"]
    n = sum(s.metrics.n_samples for s in summary.subjects.values())
    if cost.total_usd is None:
        line = (f"cost: unknown (no price for {', '.join(cost.unpriced)}; set members[].price in the config)"
                if cost.unpriced else "cost: unknown (no sample's cost is known)")
    else:
        correct = [s.metrics.cost_per_correct_answer_usd for s in summary.subjects.values()]
        per_correct = usd(correct[0]) if len(correct) == 1 and correct[0] is not None else None
        line = (f"cost: {usd(cost.total_usd)} for {n} samples ({usd(cost.per_sample_usd or 0.0)} a sample"
                + (f", {per_correct} a correct answer" if per_correct else "") + ")")
        if summary.mode == "judge":
            line += "; by member: " + ", ".join(
                f"{name} {_metric_cost(s.metrics, 'cost_usd_total')}"
                for name, s in summary.subjects.items())
        if cost.partial:
            line += ("; partial: no price for " + ", ".join(cost.unpriced) if cost.unpriced
                     else "; partial: some samples' cost is unknown")
    evaluator = manifest.evaluator.member
    if cost.evaluator_usd is None:
        judge = f"evaluator {evaluator} (not counted above): unknown (no price for {evaluator})"
    else:
        judge = f"evaluator {evaluator} (not counted above): {usd(cost.evaluator_usd)}" + (
            " (partial)" if cost.evaluator_partial else "")
    reused = [f"not spent again: {usd(cost.reused_usd)} of it (answers and evaluator), reused from earlier runs"]
    return [line, judge, *(reused if cost.reused_usd else [])]


def budget_line(summary: EvalSummary) -> str | None:
    """Why the run stopped on its ``--max-usd`` budget (and how to go on), or what the budget left; None without."""
    budget = summary.budget
    if budget is None:
        return None
    if budget.stopped:
        return (f"stopped: {budget.reason}; this summary covers the samples run. Continue with: "
                f"council eval --resume {summary.run_id} [--max-usd Y]")
    return f"budget: {usd(budget.spent_usd)} of ${budget.max_usd:g} spent, every sample run"


def _plus_minus(mean: float | None, std: float | None, digits: int) -> str:
    return fmt(mean, digits) + ("" if std is None else f" ± {fmt(std, digits)}")


def metric_table(summary: EvalSummary) -> Table:
    """One row per metric, one column per subject (the council, or each judged member)."""
    subjects = list(summary.subjects.values())
    rows = [["samples (scored / answered / timed out)",
             *(f"{s.metrics.n_samples} ({s.metrics.n_scored} / {s.metrics.n_answered} / {s.metrics.n_timed_out})"
               for s in subjects)]]
    rows += [[name, *(fmt(getattr(s.metrics, name), digits) for s in subjects)] for name, digits in METRICS]
    rows += [[name, *(_metric_cost(s.metrics, name) for s in subjects)] for name in COST_METRICS]
    if any(s.repeats.n_repeats > 1 for s in subjects):
        rows.append(["aggregate_score over repeats (mean ± std)",
                     *(_plus_minus(s.repeats.aggregate_score_mean, s.repeats.aggregate_score_std, 3)
                       for s in subjects)])
        rows.append(["latency_e2e_p95_ms over repeats (mean ± std)",
                     *(_plus_minus(s.repeats.latency_e2e_p95_ms_mean, s.repeats.latency_e2e_p95_ms_std, 0)
                       for s in subjects)])
    rows.append(["gate", *("PASS" if s.gate.passed else "FAIL" for s in subjects)])
    return ["metric", *summary.subjects], rows


def gate_table(summary: EvalSummary) -> Table:
    """Every gate check of every subject."""
    rows = []
    for subject in summary.subjects.values():
        for check in subject.gate.checks:
            digits = 0 if check.metric.endswith("_ms") or "tokens" in check.metric else 3
            rows.append([subject.subject, check.metric, f"{fmt(check.value, digits)} {check.op} {check.threshold:g}",
                         "ok" if check.passed else "FAIL"])
    return ["subject", "check", "value", "verdict"], rows


def leaderboard_table(summary: EvalSummary) -> Table:
    """The leaderboard: rank, member, score with its interval, and the per-dimension means."""
    board = summary.leaderboard
    if board is None or not board.entries:
        return ["#", "member"], []
    dims = sorted({d for e in board.entries for d in e.dimensions})
    council = board.kind == "council_ranking"
    header = ["#", "member", board.score_label, f"{board.confidence:.0%} CI", "samples"]
    header += ["mean rank", "wins"] if council else []
    header += dims
    rows = []
    for entry in board.entries:
        ci = entry.score
        row = [str(entry.rank), entry.member, fmt(ci.mean), f"[{fmt(ci.low)}, {fmt(ci.high)}]", str(entry.n_samples)]
        if council:
            row += [fmt(entry.mean_rank, 2), "-" if entry.win_rate is None else f"{entry.win_rate:.0%}"]
        row += [fmt(entry.dimensions[d].mean, 2) if d in entry.dimensions else "-" for d in dims]
        rows.append(row)
    return header, rows


def sample_table(records: list[SampleRecord]) -> Table:
    """One row per sample record: verdict, scores, latency, tokens, cost and why it failed."""
    rows = [[r.sample_id, r.subject, str(r.repeat), "pass" if r.passed else "FAIL", fmt(r.metrics.accuracy_score),
             fmt(r.metrics.faithfulness_score), fmt(r.sample_score), fmt(r.metrics.latency_e2e_ms, 0),
             fmt(r.metrics.total_tokens), _sample_cost(r),
             "; ".join(filter(None, [r.error, r.evaluation.evaluator_error, *r.failed_conditions]))]
            for r in records]
    return ["sample", "subject", "repeat", "verdict", "accuracy", "faithfulness", "score", "latency ms", "tokens",
            "cost", "notes"], rows


def failures_line(subject: SubjectSummary) -> str:
    """Why samples failed: how many missed each pass condition (a sample can miss several)."""
    reasons = ", ".join(f"{name} {count}" for name, count in sorted(subject.failed_because.items()))
    return f"{subject.subject}: {subject.n_failed} of {subject.metrics.n_samples} samples failed ({reasons})"


def text_table(table: Table) -> str:
    """A table as aligned plain text."""
    header, rows = table
    return plain_table(list(header), [list(row) for row in rows])


def _heading(summary: EvalSummary, manifest: RunManifest) -> str:
    sim = ", SIMULATED members" if manifest.simulated else ""
    judge = f", judge {manifest.judge}" if manifest.judge else f", evaluator {manifest.evaluator.member}"
    return (f"Evaluation {summary.run_id}: {summary.mode} mode{judge}, dataset {manifest.dataset_id} "
            f"({manifest.n_samples} samples x {manifest.repeat} repeat{'s' if manifest.repeat > 1 else ''}){sim}")


def _board_caption(summary: EvalSummary, manifest: RunManifest) -> str:
    board = summary.leaderboard
    if board is None:
        return "Leaderboard"
    what = "council ranking" if board.kind == "council_ranking" else "judge scores"
    extra = ""
    if board.kind == "council_ranking" and board.calibration.get("passes") == 2:
        extra = f", two-pass batch calibration over {board.calibration.get('council_runs_ranked', 0)} council runs"
    return f"Leaderboard ({what}: {board.score_label}, {board.confidence:.0%} bootstrap CI over samples{extra})"


def render_summary(summary: EvalSummary, manifest: RunManifest) -> str:
    """The summary printed at the end of ``council eval``."""
    stopped = budget_line(summary)
    parts = [_heading(summary, manifest), *([stopped] if stopped and summary.budget and summary.budget.stopped
                                           else []),
             "", text_table(metric_table(summary)), "",
             f"Gate: {'PASS' if summary.gate_passed else 'FAIL'}", text_table(gate_table(summary))]
    parts += [failures_line(s) for s in summary.subjects.values() if s.failed_because]
    if summary.member_schema_valid_rate:
        council_rate = next(iter(summary.subjects.values())).metrics.schema_valid_rate
        members = ", ".join(f"{m} {rate:.0%}" for m, rate in summary.member_schema_valid_rate.items())
        parts.append(f"valid structured answers: council {fmt(council_rate, 3)}; members' candidates: {members}")
    header, rows = leaderboard_table(summary)
    if rows:
        parts += ["", _board_caption(summary, manifest) + ":", text_table((header, rows))]
    parts += [""] + [f"warning: {w}" for w in summary.warnings]
    parts.append(f"evaluator tokens (not counted above): {summary.evaluator_tokens_total:,}")
    parts += cost_lines(summary, manifest)
    if stopped and summary.budget and not summary.budget.stopped:
        parts.append(stopped)
    return "\n".join(parts).rstrip()


def _charts(summary: EvalSummary, manifest: RunManifest, records: list[SampleRecord]) -> dict[str, str]:
    charts = {}
    for subject in summary.subjects:
        mine = [r for r in records if r.subject == subject]
        suffix = "" if summary.mode == "council" else f"-{subject}"
        label = "" if summary.mode == "council" else f" ({subject})"
        metrics = summary.subjects[subject].metrics
        charts[f"scores{suffix}"] = histogram([r.sample_score for r in mine], f"Sample scores{label}", "sample_score",
                                              lo=0.0, hi=1.0, markers={"mean": metrics.aggregate_score})
        charts[f"latency{suffix}"] = histogram(
            [r.metrics.latency_e2e_ms for r in mine], f"End-to-end latency{label}", "latency_e2e_ms", lo=0.0,
            markers={"p50": metrics.latency_e2e_p50_ms, "p95": metrics.latency_e2e_p95_ms,
                     "gate p95": manifest.thresholds.max_latency_e2e_p95_ms})
    board = summary.leaderboard
    if board is not None and board.entries:
        charts["leaderboard"] = forest([(e.member, e.score) for e in board.entries],
                                       _board_caption(summary, manifest).split(" (")[0], board.score_label)
    return charts


def _manifest_rows(manifest: RunManifest) -> list[list[str]]:
    code = manifest.code_version
    version = code.get("git_sha") or code.get("package_version")
    if code.get("git_dirty"):
        version = f"{version} (uncommitted changes)"
    models = "; ".join(f"{m.member}: {m.provider}/{m.model} -> {', '.join(m.versions) or '?'}" for m in manifest.models)
    evaluator = manifest.evaluator
    return [["run_id", manifest.run_id], ["timestamp_utc", manifest.timestamp_utc.isoformat()],
            ["dataset", f"{manifest.dataset_id} ({manifest.dataset_path}), sha256 {manifest.dataset_hash}"],
            ["config", f"{manifest.config_path} (hash {manifest.config_hash})"], ["models", models],
            ["evaluator", f"{evaluator.member}: {evaluator.provider}/{evaluator.model} -> "
                          f"{', '.join(evaluator.versions) or '?'}"],
            ["prompt hashes", ", ".join(f"{k} {v}" for k, v in manifest.prompt_hashes.items())],
            ["rubric", ", ".join(f"{k} {v}" for k, v in manifest.rubric.items()) or "-"],
            ["generation params", manifest.generation_params.model_dump_json(exclude_none=True)],
            ["repeat / concurrency / sample timeout", f"{manifest.repeat} / {manifest.concurrency} / "
                                                       f"{manifest.sample_timeout_s:g}s"],
            ["thresholds", manifest.thresholds.model_dump_json()], ["code version", str(version)],
            ["environment", f"Python {manifest.environment.get('python')} on {manifest.environment.get('platform')}"]]


def _html_table(table: Table) -> str:
    header, rows = table
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_CSS = ("body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}table{border-collapse:collapse;"
        "margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px}"
        "td{max-width:640px;overflow-wrap:anywhere}th{background:#f3f3f3}.pass{color:#1a7f37}"
        ".fail{color:#c62828}.warn{color:#9a6700}figure{margin:0 0 1em}")


def render_html(summary: EvalSummary, manifest: RunManifest, records: list[SampleRecord]) -> str:
    """The self-contained HTML report."""
    verdict = "PASS" if summary.gate_passed else "FAIL"
    parts = [f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Council eval "
             f"{escape(summary.run_id)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{escape(_heading(summary, manifest))}</h1>"]
    budget = budget_line(summary)
    if budget:
        stopped = summary.budget is not None and summary.budget.stopped
        opening = '<p class="warn">' if stopped else "<p>"
        parts.append(f"{opening}{escape(budget)}</p>")
    parts += [f"<h2>Gate: <span class=\"{verdict.lower()}\">{verdict}</span></h2>", _html_table(gate_table(summary))]
    parts += [f"<p>{escape(failures_line(s))}</p>" for s in summary.subjects.values() if s.failed_because]
    parts += [f"<p class=\"warn\">warning: {escape(w)}</p>" for w in summary.warnings]
    parts += ["<h2>Metrics</h2>", _html_table(metric_table(summary)),
              f"<p>Evaluator tokens, not counted above: {summary.evaluator_tokens_total:,}</p>"]
    parts += [f"<p>{escape(line)}</p>" for line in cost_lines(summary, manifest)]
    if summary.leaderboard is not None:
        parts += [f"<h2>{escape(_board_caption(summary, manifest))}</h2>", _html_table(leaderboard_table(summary))]
    parts.append("<h2>Charts</h2>")
    parts += [f"<figure>{svg}</figure>" for svg in _charts(summary, manifest, records).values()]
    parts += ["<h2>Samples</h2>", _html_table(sample_table(records)),
              "<h2>Reproducibility</h2>", _html_table((["field", "value"], _manifest_rows(manifest))),
              "<h3>Run metadata (the evaluation spec's names)</h3>",
              f"<pre>{escape(json.dumps(run_metadata(manifest), indent=2))}</pre>", "</body></html>"]
    return "\n".join(parts)


def _md_table(table: Table) -> str:
    header, rows = table

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(summary: EvalSummary, manifest: RunManifest, records: list[SampleRecord],
                    image_stem: str) -> tuple[str, dict[str, str]]:
    """The Markdown report and its images: ``{file name: svg}``, linked as ``IMAGE_STEM-NAME.svg``."""
    images = {f"{image_stem}-{name}.svg": svg for name, svg in _charts(summary, manifest, records).items()}
    budget = budget_line(summary)
    parts = [f"# {_heading(summary, manifest)}", "", *([f"**{budget}**", ""] if budget else []),
             f"## Gate: {'PASS' if summary.gate_passed else 'FAIL'}", "", _md_table(gate_table(summary)), ""]
    parts += [failures_line(s) + "\n" for s in summary.subjects.values() if s.failed_because]
    parts += [f"> warning: {w}" for w in summary.warnings]
    parts += ["", "## Metrics", "", _md_table(metric_table(summary)), "",
              f"Evaluator tokens, not counted above: {summary.evaluator_tokens_total:,}", ""]
    parts += [line + "\n" for line in cost_lines(summary, manifest)]
    if summary.leaderboard is not None:
        parts += [f"## {_board_caption(summary, manifest)}", "", _md_table(leaderboard_table(summary)), ""]
    parts += ["## Charts", ""] + [f"![{name}]({name})" for name in images] + [""]
    parts += ["## Samples", "", _md_table(sample_table(records)), "", "## Reproducibility", "",
              _md_table((["field", "value"], _manifest_rows(manifest))), "",
              "### Run metadata (the evaluation spec's names)", "", "```json",
              json.dumps(run_metadata(manifest), indent=2), "```", ""]
    return "\n".join(parts), images


def write_report(path: Path, summary: EvalSummary, manifest: RunManifest, records: list[SampleRecord]) -> list[Path]:
    """Write the report (Markdown when ``path`` ends in ``.md``, else HTML); returns every file written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in (".md", ".markdown"):
        text, images = render_markdown(summary, manifest, records, path.stem)
        written = []
        for name, svg in images.items():
            (path.parent / name).write_text(svg, encoding="utf-8")
            written.append(path.parent / name)
        path.write_text(text, encoding="utf-8")
        return [path, *written]
    path.write_text(render_html(summary, manifest, records), encoding="utf-8")
    return [path]
