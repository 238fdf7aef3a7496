// One council run on the page, drawn from its stage events as they arrive.
//
// The view keeps the run's state and redraws the part an event changes.
// Events carry a sequence number and any already seen is skipped, so a
// replay after a reload or a reconnect can be applied again safely.

import { h, percent, rankingChart } from "./chart.js";
import { setMarkdown } from "./markdown.js";

const STAGES = {
  answers: "The members are answering…",
  review: "The members are reviewing each other's answers…",
  final: "Writing the final answer…",
};
const REASONS = {
  timeout: "timed out", rate_limited: "rate limited", auth: "authentication failed",
  upstream_error: "upstream error", protocol: "unusable response", deadline: "missed the deadline",
  parse: "unreadable ballot", skipped: "skipped",
};

const shown = (value) => (value === true ? "yes" : value === false ? "no" : value ?? "–");
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const reasonText = (error) => (error ? REASONS[error.reason] || error.reason : "failed");

function section(title, open, ...content) {
  const details = h("details", { class: "run-section", open }, h("summary", { text: title }), ...content);
  return details;
}

export class RunView {
  /** `rubric` is the options entry of the rubric used (dimension names and scale). */
  constructor(runId, rubric) {
    this.runId = runId;
    this.rubric = rubric || { dimensions: [], scale: [1, 10] };
    this.lastSeq = -1;
    this.members = [];
    this.chairman = null;
    this.cards = new Map();
    this.answers = new Map();
    this.safety = new Map();
    this.reviews = new Map();
    this.ranking = null;
    this.finalText = "";
    this.final = null;
    this.result = null;
    this.error = null;
    this.ended = false;

    this.status = h("p", { class: "run-status", role: "status", text: "Starting…" });
    this.alerts = h("div", { class: "run-alerts" });
    this.answerGrid = h("div", { class: "answer-grid" });
    this.reviewList = h("div", { class: "review-list" });
    this.rankingBox = h("div", { class: "ranking-box" });
    this.finalBox = h("section", { class: "final", "data-testid": "final-answer", hidden: true });
    this.reviewSection = section("Peer review", false,
      h("p", { class: "note", text: "Reviewers saw only anonymous labels (Response A, B, …) in a shuffled order, "
        + "never who wrote an answer. The names are shown here for you." }), this.reviewList);
    this.rankingSection = section("Ranking", true, this.rankingBox);
    this.reviewSection.hidden = true;
    this.rankingSection.hidden = true;
    this.root = h("section", { class: "run", "data-run-id": runId, "aria-label": "Council run" },
      this.status, this.alerts, section("Answers", true, this.answerGrid),
      this.reviewSection, this.rankingSection, this.finalBox);
  }

  /** Whether the run has ended (its summary or an error arrived). */
  get finished() {
    return this.result !== null || this.error !== null;
  }

  /** Apply one `{seq, kind, data}` event. */
  apply(event) {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    const data = event.data || {};
    switch (event.kind) {
      case "run_started":
        this.members = data.members || [];
        this.chairman = data.chairman ?? null;
        for (const member of this.members) this.drawAnswer(member);
        break;
      case "stage_started":
        this.status.textContent = STAGES[data.stage] || "Working…";
        break;
      case "answer":
        this.answers.set(data.member, data);
        this.drawAnswer(data.member);
        break;
      case "safety":
        this.safety.set(data.member, data);
        this.drawAnswer(data.member);
        break;
      case "review":
        this.reviews.set(data.reviewer, data);
        this.drawReviews();
        break;
      case "ranking":
        this.ranking = data;
        this.drawRanking();
        break;
      case "final_delta":
        this.finalText += data.text || "";
        this.drawFinal();
        break;
      case "final":
        this.final = data;
        this.drawFinal();
        break;
      case "result":
        this.result = data;
        if (!this.final && data.final_answer) this.final = data.final_answer;
        this.drawFinal();
        this.drawEnd();
        break;
      case "error":
        this.error = data.message || "the run failed";
        this.drawEnd();
        break;
      default:
        break;
    }
  }

  /** The event stream closed: a run that never reported its end was interrupted. */
  end() {
    this.ended = true;
    this.drawEnd();
  }

  drawAnswer(member) {
    let card = this.cards.get(member);
    if (!card) {
      card = h("article", { class: "answer-card pending", "data-member": member });
      this.cards.set(member, card);
      this.answerGrid.append(card);
    }
    const answer = this.answers.get(member);
    const verdict = this.safety.get(member);
    const blocked = answer?.status === "blocked" || verdict?.passed === false;
    const status = !answer ? "pending" : answer.status === "failed" ? "failed" : blocked ? "blocked" : "ok";
    card.className = `answer-card status-${status}`;
    card.dataset.status = status;
    let badge = "waiting…";
    if (status === "ok") badge = `answered · ${seconds(answer.latency_ms)}`;
    if (status === "failed") badge = `failed: ${reasonText(answer.error)} · ${seconds(answer.latency_ms)}`;
    if (status === "blocked") badge = "withheld by the safety gate";
    const head = h("header", {}, h("h4", { text: member }), h("span", { class: `badge badge-${status}`, text: badge }));
    const body = h("div", { class: "answer-body" });
    if (status === "ok") {
      const markdown = h("div", { class: "markdown" });
      setMarkdown(markdown, answer.content || "");
      body.append(markdown);
    } else if (status === "failed") {
      body.append(h("p", { class: "failure", text: `No answer: ${answer.error?.message || "the member failed"}` }));
    } else if (status === "blocked") {
      const finding = verdict?.findings?.[0];
      body.append(h("p", { class: "failure", text: "This answer is not shown and was not reviewed"
        + (finding ? `: ${finding.category} (${finding.rule}).` : ".") }));
    }
    const safetyLine = verdict
      ? h("p", { class: `safety ${verdict.passed ? "passed" : "blocked"}`,
        text: verdict.passed ? `Safety: passed${verdict.notes?.length ? ` (${verdict.notes.join("; ")})` : ""}`
          : `Safety: blocked — ${(verdict.findings || []).map((f) => f.category).join(", ") || "unsafe"}` })
      : null;
    card.replaceChildren(head, safetyLine || "", body);
  }

  dimensionNames() {
    return Object.fromEntries((this.rubric.dimensions || []).map((d) => [d.id, d.name]));
  }

  drawReviews() {
    this.reviewSection.hidden = false;
    const names = this.dimensionNames();
    const blocks = [];
    // In the run's member order, whatever order the reviews arrived in.
    const position = (name) => (this.members.includes(name) ? this.members.indexOf(name) : this.members.length);
    const ordered = [...this.reviews].sort(([a], [b]) => position(a) - position(b));
    for (const [reviewer, review] of ordered) {
      const block = h("div", { class: "review", "data-reviewer": reviewer });
      if (review.status !== "ok") {
        block.classList.add("failed");
        block.append(h("h5", { text: `${reviewer}'s review` }),
          h("p", { class: "failure", text: `Failed (${reasonText(review.error)}): ${review.error?.message || ""}` }));
        blocks.push(block);
        continue;
      }
      const seenAs = Object.fromEntries(Object.entries(review.labels || {}).map(([label, m]) => [m, label]));
      const scored = Object.keys(review.scores || {});
      const dims = [...new Set(scored.flatMap((m) => Object.keys(review.scores[m].scores || {})))];
      const head = h("tr", {}, h("th", { scope: "col", text: "Answer by" }), h("th", { scope: "col", text: "Seen as" }),
        ...dims.map((d) => h("th", { scope: "col", text: names[d] || d })), h("th", { scope: "col", text: "Overall" }),
        h("th", { scope: "col", text: "Notes" }));
      const rows = (review.order || scored).filter((m) => review.scores?.[m]).map((member) => {
        const entry = review.scores[member];
        return h("tr", { "data-member": member }, h("th", { scope: "row", text: member }),
          h("td", { text: seenAs[member] || "–" }),
          ...dims.map((d) => h("td", { text: shown(entry.scores?.[d]) })),
          // Rubric-scored ballots (with per-criterion normalized scores) have an overall in 0–1.
          h("td", { text: "normalized" in entry ? percent(entry.overall) : Number(entry.overall).toFixed(2) }),
          h("td", { class: "notes", text: entry.notes || "" }));
      });
      block.append(h("h5", { text: `${reviewer}'s scores` }),
        h("div", { class: "table-wrap" }, h("table", { class: "scores" }, h("thead", {}, head), h("tbody", {}, ...rows))));
      blocks.push(block);
    }
    this.reviewList.replaceChildren(...blocks);
  }

  drawRanking() {
    const { ranking = [], agreement = {}, bias_flags: flags = [] } = this.ranking;
    this.rankingSection.hidden = false;
    const parts = [rankingChart(ranking, this.dimensionNames(), this.rubric.scale || [1, 10])];
    let agreementText = "Agreement: not measured (too few answers scored by the same reviewers).";
    if (agreement.kendall_w != null) {
      agreementText = `Agreement: Kendall's W = ${agreement.kendall_w.toFixed(2)} across ${agreement.n_reviewers} reviewers (1 is full agreement).`;
    } else if (agreement.mean_pairwise_tau != null) {
      agreementText = `Agreement: mean pairwise Kendall tau = ${agreement.mean_pairwise_tau.toFixed(2)} across ${agreement.n_reviewers} reviewers.`;
    }
    parts.push(h("p", { class: "agreement", "data-testid": "agreement", text: agreementText }));
    const list = h("ul", { class: "bias-flags", "data-testid": "bias-flags" });
    for (const flag of flags) {
      list.append(h("li", { text: `${flag.reviewer}: scores follow ${flag.kind} (tau ${flag.correlation.toFixed(2)}) — ${flag.detail}` }));
    }
    parts.push(flags.length ? h("div", {}, h("p", { class: "warning", text: "Bias flags:" }), list)
      : h("p", { class: "muted small", "data-testid": "bias-flags", text: "No bias flags." }));
    this.rankingBox.replaceChildren(...parts);
  }

  drawFinal() {
    const final = this.final;
    const text = final ? final.content : this.finalText;
    if (!final && !text) return;
    this.finalBox.hidden = false;
    const byline = h("p", { class: "byline" });
    const notes = [];
    if (!final) {
      byline.textContent = `${this.chairman || "The chairman"} is writing…`;
    } else if (final.source === "none") {
      byline.textContent = "No final answer";
      notes.push(h("p", { class: "alert failure", text: final.fallback_reason
        ? `No answer could be given: ${final.fallback_reason}.` : "No answer could be given." }));
    } else if (final.source === "chairman") {
      byline.textContent = `Written by the chairman, ${final.by}`;
    } else if (final.fallback && final.fallback_reason) {
      byline.textContent = `Top-ranked answer, by ${final.by}`;
      notes.push(h("p", { class: "alert warning", "data-testid": "chairman-fallback",
        text: `Chairman fallback: ${final.fallback_reason}. The top-ranked answer is shown instead.` }));
    } else {
      byline.textContent = `No chairman: the top-ranked answer, by ${final.by}`;
    }
    const body = h("div", { class: "markdown" });
    setMarkdown(body, text || "");
    this.finalBox.replaceChildren(h("h4", { text: "Final answer" }), byline, ...notes, body);
  }

  drawEnd() {
    const alerts = [];
    if (this.error) {
      alerts.push(h("p", { class: "alert failure", "data-testid": "run-error", text: `The run could not be carried out: ${this.error}` }));
      this.status.textContent = "Stopped.";
    } else if (this.result) {
      const r = this.result;
      if (r.status === "failed") {
        alerts.push(h("p", { class: "alert failure", "data-testid": "run-failed", text: `The council could not answer: ${r.error}` }));
      } else if (r.status === "running" || r.status === "interrupted") {
        alerts.push(h("p", { class: "alert warning", text: "This run did not finish: the server stopped while it ran." }));
      }
      if (r.degraded) {
        const reasons = h("ul", {}, ...(r.degraded_reasons || []).map((reason) => h("li", { text: reason })));
        alerts.push(h("div", { class: "alert warning", "data-testid": "degraded" },
          h("strong", { text: "Degraded run: " }), "this result is weaker than a full council run.", reasons));
      }
      if (r.simulated) alerts.push(h("p", { class: "muted small", text: "Simulated members: offline, not real models." }));
      this.status.textContent = r.status === "complete" ? `Done in ${seconds(r.timings?.total_ms || 0)}.`
        : r.status === "failed" ? "Failed." : "Interrupted.";
    } else if (this.ended) {
      alerts.push(h("p", { class: "alert warning", text: "The connection closed before the run reported its end." }));
    }
    this.root.classList.toggle("finished", this.finished);
    this.alerts.replaceChildren(...alerts);
  }
}
