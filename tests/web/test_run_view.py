"""The run view on its own, fed events in Chromium: agreement, bias flags, streaming and replays."""

from __future__ import annotations

from council.pipeline.payloads import review_event_data
from council.result import DimensionScoresRecord, ReviewRecord
from tests.web.conftest import LOOP, open_page

pytestmark = LOOP

SCRIPT = """
async (events) => {
  const { RunView } = await import('/static/run_view.js');
  const view = new RunView('run-x', { dimensions: [{ id: 'accuracy', name: 'Accuracy' }], scale: [1, 10] });
  document.getElementById('transcript').append(view.root);
  const text = (selector) => view.root.querySelector(selector)?.textContent ?? null;
  const seen = [];
  for (const event of events) {
    view.apply(event);
    seen.push({ final: text('[data-testid=final-answer] .markdown'), byline: text('.byline') });
  }
  return { seen, agreement: text('[data-testid=agreement]'), flags: text('[data-testid=bias-flags]'),
           rows: [...view.root.querySelectorAll('.ranking-row')].map((r) => r.dataset.member),
           finished: view.finished, alerts: text('.run-alerts'),
           summary: [...view.root.querySelectorAll('[data-testid=ranking-summary] li')].map((li) => li.textContent),
           summaryText: text('[data-testid=ranking-summary]'),
           summaryAgreement: text('[data-testid=summary-agreement]'), summaryBias: text('[data-testid=summary-bias]'),
           folded: [...view.root.querySelectorAll('details.run-section')].map((d) => [d.dataset.section, d.open]),
           finalFirst: Boolean(view.root.querySelector('[data-testid=final-answer]')
             .compareDocumentPosition(view.root.querySelector('details')) & Node.DOCUMENT_POSITION_FOLLOWING) };
}
"""

ENTRY = {"rank": 1, "score": 0.5, "raw_mean": 7.5, "n_reviews": 2, "dimensions": {"accuracy": 7.5}}
EVENTS = [
    {"seq": 0, "kind": "run_started", "data": {"members": ["a", "b"], "chairman": "c"}},
    {"seq": 1, "kind": "ranking", "data": {
        "ranking": [{**ENTRY, "member": "b"}, {**ENTRY, "member": "a", "rank": 2, "score": -0.5}],
        "agreement": {"statistic": "kendall_w", "kendall_w": 0.8123, "mean_pairwise_tau": None, "n_reviewers": 3},
        "bias_flags": [{"reviewer": "a", "kind": "position", "correlation": 0.91, "detail": "favours slot A"}]}},
    {"seq": 2, "kind": "final_delta", "data": {"text": "Hello ", "by": "c"}},
    {"seq": 2, "kind": "final_delta", "data": {"text": "Hello ", "by": "c"}},  # replayed: skipped
    {"seq": 3, "kind": "final_delta", "data": {"text": "**world**", "by": "c"}},
    {"seq": 4, "kind": "final", "data": {"content": "b's answer", "by": "b", "source": "top_answer", "fallback": True,
                                         "fallback_reason": "chairman c broke off"}},
    {"seq": 5, "kind": "result", "data": {"status": "complete", "degraded": True, "error": None,
                                          "degraded_reasons": ["chairman fallback: chairman c broke off"],
                                          "timings": {"total_ms": 1234}, "final_answer": None}},
]


async def test_events_build_the_view(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    out = await page.evaluate(SCRIPT, EVENTS)
    assert out["rows"] == ["b", "a"]
    assert out["agreement"] == "Agreement: Kendall's W = 0.81 across 3 reviewers (1 is full agreement)."
    assert out["flags"] == "a: scores follow position (tau 0.91) — favours slot A"
    finals = [step["final"] for step in out["seen"]]
    assert finals[:2] == [None, None]
    assert finals[2:5] == ["Hello ", "Hello ", "Hello world"]  # the duplicate added nothing
    assert out["seen"][4]["byline"] == "c is writing…"
    assert finals[5] == "b's answer" and out["seen"][5]["byline"] == "Top-ranked answer, by b"
    assert out["finished"] is True
    assert "Degraded run" in out["alerts"] and "chairman fallback: chairman c broke off" in out["alerts"]
    # Beside the final answer: the ranking in short; under it the stages, folded now the run is complete.
    assert out["summary"] == ["#1b+0.50", "#2a−0.50"]
    assert out["summaryAgreement"] == "Agreement: Kendall's W 0.81 (3 reviewers)"
    assert out["summaryBias"] == "1 bias flag: see the full ranking"
    assert out["summaryText"] == ("RankingCouncil score, calibrated across reviewers#1b+0.50#2a−0.50"
                                  "Agreement: Kendall's W 0.81 (3 reviewers)1 bias flag: see the full ranking")
    assert out["folded"] == [["answers", False], ["reviews", False], ["ranking", False]]
    assert out["finalFirst"] is True


JSON_SCRIPT = """
async (events) => {
  const { RunView } = await import('/static/run_view.js');
  const view = new RunView('run-j', { dimensions: [], scale: [1, 10] });
  document.getElementById('transcript').append(view.root);
  for (const event of events) view.apply(event);
  const card = (member) => view.root.querySelector(`.answer-card[data-member="${member}"]`);
  return {
    valid: card('a').querySelector('[data-testid=json-answer]')?.textContent ?? null,
    validMarkdown: Boolean(card('a').querySelector('.markdown')),
    badge: card('b').querySelector('.badge').textContent,
    failure: card('b').querySelector('.failure').textContent,
    invalid: card('b').querySelector('[data-testid=invalid-output]')?.textContent ?? null,
    prose: card('c').querySelector('[data-testid=json-answer]'),
  };
}
"""


async def test_a_structured_runs_candidates_show_as_json_and_the_invalid_one_with_its_error(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    out = await page.evaluate(JSON_SCRIPT, [
        {"seq": 0, "kind": "run_started", "data": {"members": ["a", "b", "c"], "chairman": None}},
        {"seq": 1, "kind": "answer", "data": {"member": "a", "status": "ok", "latency_ms": 900, "error": None,
                                              "content": '{"city":"Lyon","rank":2}'}},
        {"seq": 2, "kind": "answer", "data": {
            "member": "b", "status": "failed", "latency_ms": 1200, "content": "<b>Paris</b>, surely",
            "error": {"reason": "invalid_output", "message": "the answer is not valid JSON: Expecting value",
                      "status": None, "attempts": 2}}},
        {"seq": 3, "kind": "answer", "data": {"member": "c", "status": "ok", "latency_ms": 700, "error": None,
                                              "content": "A prose answer."}},
    ])
    assert out["valid"] == '{\n  "city": "Lyon",\n  "rank": 2\n}' and not out["validMarkdown"]
    assert out["badge"].startswith("failed: invalid output")
    assert out["failure"] == "No answer: the answer is not valid JSON: Expecting value"
    assert out["invalid"] == "<b>Paris</b>, surely", "the invalid text is shown as text, never as markup"
    assert out["prose"] is None, "prose answers stay Markdown"


POSITION_SCRIPT = """
async (events) => {
  const { RunView } = await import('/static/run_view.js');
  const view = new RunView('run-p', { dimensions: [{ id: 'accuracy', name: 'Accuracy' }], scale: [1, 10] });
  document.getElementById('transcript').append(view.root);
  for (const event of events) view.apply(event);
  return [...view.root.querySelectorAll('.review')].map((block) => [block.dataset.reviewer,
    block.querySelector('.position-consistency')?.dataset.consistency ?? null,
    block.querySelector('.position-consistency')?.textContent ?? null]);
}
"""


async def test_each_reviewer_says_whether_its_top_pick_held_in_both_orders(web_server, browser):
    def record(reviewer: str, consistency: str | None) -> ReviewRecord:
        scores = {m: DimensionScoresRecord(scores={"accuracy": 7}, overall=0.7, normalized={"accuracy": 0.7})
                  for m in ("a", "b", "c") if m != reviewer}
        return ReviewRecord(reviewer=reviewer, order=list(scores), scores=scores, position_consistency=consistency)

    records = [record("a", "held"), record("b", "changed"), record("c", "unknown")]
    events = [{"seq": 0, "kind": "run_started", "data": {"members": ["a", "b", "c"], "chairman": None}},
              *({"seq": n, "kind": "review", "data": review_event_data(r)} for n, r in enumerate(records, 1))]
    page = await open_page(browser, web_server.url + "/")
    out = await page.evaluate(POSITION_SCRIPT, events)
    assert [(reviewer, consistency) for reviewer, consistency, _ in out] == \
        [("a", "held"), ("b", "changed"), ("c", "unknown")]
    said = {reviewer: text for reviewer, _, text in out}
    assert said["a"] == "Top pick held in both orders."
    assert said["b"].startswith("Top pick changed with the order")
    assert "unknown" in said["c"] and "failed" in said["c"]
    plain = await page.evaluate(POSITION_SCRIPT, [events[0], {"seq": 1, "kind": "review",
                                                              "data": review_event_data(record("a", None))}])
    assert plain == [["a", None, None]], "a run without both orders says nothing of it"
