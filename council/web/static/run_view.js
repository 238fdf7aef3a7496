// One council run on the page, drawn from its stage events as they arrive.
//
// The view keeps the run's state and redraws the part an event changes.
// Events carry a sequence number and any already seen is skipped, so a
// replay after a reload or a reconnect can be applied again safely.
//
// Reading order: a status line (the stage running, who is still answering),
// alerts (failures and degraded reasons, never folded away), then the final
// answer with a short ranking summary beside it, then the members' answers,
// the peer reviews and the full ranking as folding sections. While the run
// works the answers are open so progress shows; once it is complete they fold,
// so the final answer is what a reader meets first.

import { h, rankingChart, signed } from "./chart.js";
import { setMarkdown } from "./markdown.js";
import { formattedJson, plural, reasonText, reviewBlocks, section } from "./reviews.js";
import { SecondRound } from "./second_round.js";

const STAGES = {
  answers: "The members are answering…",
  review: "The members are reviewing each other's answers…",
  deliberation: "Second round: the members read the critiques, may revise, and are reviewed again…",
  final: "Writing the final answer…",
  top_answer: "No chairman: the top-ranked answer stands.",
};
// How many members the ranking summary names; the full ranking is one click away.
const SUMMARY_TOP = 3;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// What a run cost, in US dollars: four decimals (a council run costs cents), never a made-up zero.
const COST_STAGES = { answers: "Answers", safety: "Safety check", reviews: "Peer review", chairman: "Chairman" };
export const dollars = (usd) => (usd > 0 && usd < 0.00005 ? "< $0.0001" : `$${usd.toFixed(4)}`);

/** The cost line of a finished run: its total, or why it is not known. `cost` is the result event's summary. */
export function costText(cost) {
  if (!cost) return "cost not recorded";
  if (cost.total_usd == null) {
    return cost.unpriced?.length ? "cost unknown (no prices configured)" : "cost unknown";
  }
  const partial = cost.partial ? ` · partial: no price for ${(cost.unpriced || []).join(", ")}` : "";
  return `Cost ${dollars(cost.total_usd)}${partial}`;
}

/** The breakdown, one line per stage and per member, for the cost button's tooltip (the tables say it in full). */
function costLines(cost) {
  const stages = Object.entries(cost.by_stage || {}).map(([stage, usd]) => `${COST_STAGES[stage] || stage} ${dollars(usd)}`);
  const members = Object.entries(cost.by_member || {}).map(([member, usd]) => `${member} ${dollars(usd)}`);
  const unpriced = cost.unpriced?.length ? [`No price: ${cost.unpriced.join(", ")}`] : [];
  return [stages.length ? `By stage: ${stages.join(", ")}` : "", members.length ? `By member: ${members.join(", ")}` : "",
    ...unpriced].filter(Boolean);
}

/** The breakdown as two small tables (per stage, per member), for the full ranking section. */
function costTables(cost) {
  const table = (caption, entries, key) => h("table", { class: "cost-table", "data-testid": `cost-by-${key}` },
    h("caption", { text: caption }),
    h("tbody", {}, ...entries.map(([name, usd]) => h("tr", { [`data-${key}`]: name },
      h("th", { scope: "row", text: key === "stage" ? COST_STAGES[name] || name : name }),
      h("td", { class: "usd", text: dollars(usd) })))));
  const parts = [h("h4", { text: "Cost" })];
  const stages = Object.entries(cost.by_stage || {});
  const members = Object.entries(cost.by_member || {});
  if (stages.length) parts.push(table("By stage", stages, "stage"));
  if (members.length) parts.push(table("By member", members, "member"));
  if (cost.unpriced?.length) {
    parts.push(h("p", { class: "muted", "data-testid": "cost-unpriced",
      text: `No price for ${cost.unpriced.join(", ")}: their calls are not counted.` }));
  }
  return parts;
}

/** How sure the council is of its top answer (null when the run compared nothing). */
function confidenceText(ranking, confidence, tied) {
  if (confidence == null || !ranking.length) return null;
  const top = ranking[0].member;
  if (tied && tied.length) {
    return `No clear winner: ${[top, ...tied].join(", ")} are statistically tied (${top} first in ${Math.round(confidence * 100)}% of resamples).`;
  }
  return `${top} is best with ${confidence.toFixed(2)} confidence.`;
}

/** The agreement sentence; `short` for the summary beside the final answer. */
function agreementText(agreement, short) {
  if (agreement.kendall_w != null) {
    return short ? `Agreement: Kendall's W ${agreement.kendall_w.toFixed(2)} (${plural(agreement.n_reviewers, "reviewer")})`
      : `Agreement: Kendall's W = ${agreement.kendall_w.toFixed(2)} across ${agreement.n_reviewers} reviewers (1 is full agreement).`;
  }
  if (agreement.mean_pairwise_tau != null) {
    return short ? `Agreement: mean tau ${agreement.mean_pairwise_tau.toFixed(2)} (${plural(agreement.n_reviewers, "reviewer")})`
      : `Agreement: mean pairwise Kendall tau = ${agreement.mean_pairwise_tau.toFixed(2)} across ${agreement.n_reviewers} reviewers.`;
  }
  return short ? "Agreement: not measured"
    : "Agreement: not measured (too few answers scored by the same reviewers).";
}

export class RunView {
  /** `rubric` is the options entry of the rubric used (dimension names and scale). */
  constructor(runId, rubric) {
    this.runId = runId;
    this.rubric = rubric || { dimensions: [], scale: [1, 10] };
    this.lastSeq = -1;
    this.members = [];
    this.chairman = null;
    this.stage = null;
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
    this.folded = false;
    this.byline = null; // who wrote the final answer, as its byline says it

    this.stageText = h("span", { class: "stage", "data-testid": "run-stage", text: "Starting…" });
    this.waiting = h("span", { class: "waiting", "data-testid": "run-waiting" });
    this.costLine = h("span", { class: "run-cost", hidden: true });
    this.status = h("p", { class: "run-status", role: "status", "data-testid": "run-status" }, this.stageText, this.waiting,
      this.costLine);
    this.alerts = h("div", { class: "run-alerts" });
    this.finalBox = h("section", { class: "final", "data-testid": "final-answer", hidden: true });
    this.summaryBox = h("aside", { class: "ranking-summary", "data-testid": "ranking-summary", hidden: true,
      "aria-label": "Ranking summary" });
    this.lead = h("div", { class: "run-lead", hidden: true }, this.finalBox, this.summaryBox);
    this.answerGrid = h("div", { class: "answer-grid" });
    this.reviewList = h("div", { class: "review-list" });
    this.rankingBox = h("div", { class: "ranking-box" });
    // Focused from the cost button, so a keyboard or a touch reaches the breakdown without a hover.
    this.costBox = h("div", { class: "cost-breakdown", "data-testid": "cost-breakdown", id: `cost-${runId}`,
      tabindex: "-1", hidden: true });
    this.answerSection = section("answers", "Members' answers", true, this.answerGrid);
    this.reviewSection = section("reviews", "Peer review", false,
      h("p", { class: "note", text: "Reviewers saw only anonymous labels (Response A, B, …) in a shuffled order, "
        + "never who wrote an answer. The names are shown here for you." }), this.reviewList);
    this.rankingSection = section("ranking", "Full ranking", true, this.rankingBox, this.costBox);
    this.reviewSection.hidden = true;
    this.rankingSection.hidden = true;
    this.root = h("section", { class: "run", "data-run-id": runId, "aria-label": "Council run" },
      this.status, this.alerts, this.lead, this.answerSection, this.reviewSection, this.rankingSection);
    // The second round, when there is one, goes between the first round's reviews and the run's ranking.
    this.second = new SecondRound(() => this.dimensionNames(), () => this.members,
      (element) => this.rankingSection.before(element));
  }

  /** Whether the run has ended (its summary or an error arrived). */
  get finished() {
    return this.result !== null || this.error !== null;
  }

  /**
   * What the run cost, once it has ended: `{usd, known, partial}`. `usd` counts the calls whose cost is known
   * (0 when none is); `known` is false when no cost is known at all; `partial` when some of it is missing.
   */
  get cost() {
    const cost = this.result?.cost;
    if (cost?.total_usd == null) return { usd: 0, known: false, partial: true };
    return { usd: cost.total_usd, known: true, partial: Boolean(cost.partial) };
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
        this.stage = data.stage === "final" && data.writer === "top_answer" ? "top_answer" : data.stage;
        if (data.stage === "deliberation") {
          this.second.start(data.reason, [...this.cards].filter(([, card]) => card.dataset.status === "ok").map(([m]) => m));
        }
        break;
      case "answer":
        this.answers.set(data.member, data);
        this.drawAnswer(data.member);
        break;
      case "safety":
        // In the second round the gate checks revised texts; the cards keep the first answers' verdicts.
        if (this.stage === "deliberation") {
          this.second.safety(data);
          break;
        }
        this.safety.set(data.member, data);
        this.drawAnswer(data.member);
        break;
      case "review":
        if ((data.round || 1) > 1) {
          this.second.review(data);
          break;
        }
        this.reviews.set(data.reviewer, data);
        this.drawReviews();
        break;
      case "ranking":
        // The second ranking is the run's: the chairman writes from it, and the full ranking shows it.
        this.ranking = data;
        this.drawRanking();
        break;
      case "revision":
        this.second.revision(data);
        break;
      case "deliberation":
        this.second.finish(data);
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
        // A stored run replayed without its second round's events still has the round's record.
        if (data.deliberation && !this.second.summary) this.second.finish(data.deliberation);
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
    if (!this.finished && !this.ended) this.drawStatus();
  }

  /** The status line while the run works: the stage, and who the page still waits for. */
  drawStatus() {
    this.stageText.textContent = this.stage ? STAGES[this.stage] || "Working…" : "Starting…";
    let waiting = "";
    if (this.stage === "answers") {
      const outstanding = this.members.filter((member) => !this.answers.has(member));
      waiting = outstanding.length ? ` Waiting for ${outstanding.join(", ")}.` : " All answers are in.";
    } else if (this.stage === "review") {
      waiting = ` ${plural(this.reviews.size, "review")} in so far.`;
    } else if (this.stage === "deliberation") {
      waiting = this.second.waiting();
    } else if (this.stage === "final" && !this.final && !this.finalText) {
      // Once the chairman's text streams in, the final answer's byline says who is writing.
      waiting = this.chairman ? ` Waiting for the chairman, ${this.chairman}.` : "";
    }
    this.waiting.textContent = waiting;
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
    const json = status === "ok" ? formattedJson(answer.content) : null;
    if (json !== null) {
      // A structured run's candidate: its JSON, formatted, as text.
      body.append(h("pre", { class: "json-answer", "data-testid": "json-answer", tabindex: "0", text: json }));
    } else if (status === "ok") {
      const markdown = h("div", { class: "markdown" });
      setMarkdown(markdown, answer.content || "", 5);
      body.append(markdown);
    } else if (status === "failed") {
      body.append(h("p", { class: "failure", text: `No answer: ${answer.error?.message || "the member failed"}` }));
      if (answer.content) {
        // What a member wrote that did not validate (or its refusal), kept for the reader beside the error.
        body.append(h("pre", { class: "json-answer invalid", "data-testid": "invalid-output", tabindex: "0",
          text: answer.content }));
      }
    } else if (status === "blocked") {
      // The badge says the gate withheld it; this line says why, once. The council's own reading blocks after
      // review: its evidence is who flagged it, not the answer's words.
      const findings = verdict?.findings || [];
      const council = findings.find((f) => f.rule === "council.review");
      const found = findings.map((f) => `${f.category} (${f.rule})`);
      body.append(h("p", { class: "failure", "data-testid": "blocked-why",
        text: council ? `Not shown and not ranked: ${council.category}; ${council.evidence}.`
          : `Not shown and not reviewed${found.length ? `: ${found.join(", ")}` : ""}.` }));
    }
    const safetyLine = verdict?.passed
      ? h("p", { class: "safety passed",
        text: `Safety: passed${verdict.notes?.length ? ` (${verdict.notes.join("; ")})` : ""}` })
      : null;
    card.replaceChildren(head, safetyLine || "", body);
    this.countAnswers();
  }

  /** The answers section's count names who failed or was withheld, so a folded section still shows it. */
  countAnswers() {
    const by = { ok: [], failed: [], blocked: [], pending: [] };
    for (const [member, card] of this.cards) by[card.dataset.status].push(member);
    const parts = [];
    if (by.ok.length) parts.push(`${by.ok.length} answered`);
    if (by.failed.length) parts.push(`${by.failed.length} failed (${by.failed.join(", ")})`);
    if (by.blocked.length) parts.push(`${by.blocked.length} withheld (${by.blocked.join(", ")})`);
    if (by.pending.length) parts.push(`${by.pending.length} waiting`);
    this.answerSection.count.textContent = parts.length ? ` · ${parts.join(", ")}` : "";
    this.answerSection.classList.toggle("has-failures", by.failed.length + by.blocked.length > 0);
  }

  dimensionNames() {
    return Object.fromEntries((this.rubric.dimensions || []).map((d) => [d.id, d.name]));
  }

  drawReviews() {
    this.reviewSection.hidden = false;
    const { blocks, count, failed } = reviewBlocks(this.reviews, this.members, this.dimensionNames());
    this.reviewList.replaceChildren(...blocks);
    this.reviewSection.count.textContent = count;
    this.reviewSection.classList.toggle("has-failures", failed);
  }

  drawRanking() {
    const { ranking = [], agreement = {}, bias_flags: flags = [] } = this.ranking;
    this.rankingSection.hidden = false;
    this.rankingSection.count.textContent = ` · ${plural(ranking.length, "member")}`;
    const parts = [rankingChart(ranking, this.dimensionNames(), this.rubric.scale || [1, 10])];
    parts.push(h("p", { class: "agreement", "data-testid": "agreement", text: agreementText(agreement, false) }));
    const sure = confidenceText(ranking, this.ranking.ranking_confidence, this.ranking.tied_for_first);
    if ((this.ranking.round || 1) > 1) {
      parts.unshift(h("p", { class: "muted small", "data-testid": "ranking-round",
        text: "After the second round: the revised answers were reviewed again, and this ranking is the run's." }));
    }
    if (sure) parts.push(h("p", { class: "confidence", "data-testid": "confidence", text: sure }));
    const list = h("ul", { class: "bias-flags", "data-testid": "bias-flags" });
    for (const flag of flags) {
      // A self-preference flag carries a bonus in standard deviations, not a correlation.
      const figure = flag.kind === "self_preference" ? `${flag.correlation >= 0 ? "+" : ""}${flag.correlation.toFixed(2)} SD` : `tau ${flag.correlation.toFixed(2)}`;
      const what = flag.kind === "self_preference" ? "favour its own answer" : `follow ${flag.kind}`;
      list.append(h("li", { text: `${flag.reviewer}: scores ${what} (${figure}) — ${flag.detail}` }));
    }
    parts.push(flags.length ? h("div", {}, h("p", { class: "warning", text: "Bias flags:" }), list)
      : h("p", { class: "muted small", "data-testid": "bias-flags", text: "No bias flags." }));
    this.rankingBox.replaceChildren(...parts);
    this.drawSummary();
  }

  /** Beside the final answer: the top members with their council scores, and how far the reviewers agreed. */
  drawSummary() {
    const { ranking = [], agreement = {}, bias_flags: flags = [] } = this.ranking;
    if (!ranking.length) return;
    const sure = confidenceText(ranking, this.ranking.ranking_confidence, this.ranking.tied_for_first);
    this.summaryBox.hidden = false;
    this.lead.hidden = false;
    const top = h("ol", { class: "summary-top" }, ...ranking.slice(0, SUMMARY_TOP).map((entry) =>
      h("li", { "data-member": entry.member },
        h("span", { class: "rank", text: `#${entry.rank}` }), h("span", { class: "member-name", text: entry.member }),
        h("span", { class: "score", text: signed(entry.score) }))));
    const more = ranking.length > SUMMARY_TOP
      ? h("p", { class: "muted small", text: `and ${ranking.length - SUMMARY_TOP} more in the full ranking` }) : null;
    const flagged = flags.length
      ? h("p", { class: "warning small", "data-testid": "summary-bias", text: `${plural(flags.length, "bias flag")}: see the full ranking` })
      : null;
    // replaceChildren would write a missing part as the text "null": leave those out.
    this.summaryBox.replaceChildren(...[h("h3", { text: "Ranking" }),
      h("p", { class: "muted small", text: "Council score, calibrated across reviewers" }), top, more,
      sure ? h("p", { class: this.ranking.tied_for_first?.length ? "warning small" : "small",
        "data-testid": "summary-confidence", text: sure }) : null,
      h("p", { class: "summary-agreement small", "data-testid": "summary-agreement", text: agreementText(agreement, true) }),
      flagged].filter(Boolean));
  }

  /** Whether the safety gate withheld every answer: the final answer's place then says so, once. */
  get allBlocked() {
    return this.cards.size > 0 && [...this.cards.values()].every((card) => card.dataset.status === "blocked");
  }

  drawFinal() {
    const final = this.final;
    const text = final ? final.content : this.finalText;
    if (!final && !text) return;
    this.finalBox.hidden = false;
    this.lead.hidden = false;
    const heading = h("h3", { text: "Final answer" });
    if (final?.source === "none") {
      // The council's own words on why there is none (a withheld answer says which gate and why), or the reason.
      this.byline = null;
      this.finalBox.replaceChildren(heading, h("p", { class: "alert failure", "data-testid": "no-answer",
        text: text || (final.fallback_reason ? `No answer could be given: ${final.fallback_reason}.`
          : "No answer could be given.") }));
      return;
    }
    const notes = [];
    if (!final) {
      this.byline = `${this.chairman || "The chairman"} is writing…`;
    } else if (final.source === "chairman") {
      this.byline = `Written by the chairman, ${final.by}`;
    } else if (final.fallback && final.fallback_reason) {
      this.byline = `Top-ranked answer, by ${final.by}`;
      notes.push(h("p", { class: "alert warning", "data-testid": "chairman-fallback",
        text: `Chairman fallback: ${final.fallback_reason}. The top-ranked answer is shown instead.` }));
    } else {
      this.byline = `No chairman: the top-ranked answer, by ${final.by}`;
    }
    const body = h("div", { class: "markdown" });
    setMarkdown(body, text || "", 4);
    this.finalBox.replaceChildren(heading, h("p", { class: "byline", text: this.byline }), ...notes, body);
  }

  /** What a screen reader should hear when the run ends: the final answer itself, or why there is none. */
  spoken() {
    if (this.error) return `The run could not be carried out: ${this.error}`;
    if (!this.result) return "The connection closed before the run reported its end.";
    if (this.result.status === "failed") return `The council could not answer: ${this.result.error}`;
    const answer = this.finalBox.hidden ? "" : this.finalBox.querySelector(".markdown, [data-testid=no-answer]")?.textContent;
    if (!answer) return `Done in ${seconds(this.result.timings?.total_ms || 0)}, with no final answer.`;
    if (!this.byline) return answer;
    return `Final answer, ${this.byline[0].toLowerCase()}${this.byline.slice(1)}: ${answer}`;
  }

  drawEnd() {
    const alerts = [];
    if (this.error) {
      alerts.push(h("p", { class: "alert failure", "data-testid": "run-error", text: `The run could not be carried out: ${this.error}` }));
      this.stageText.textContent = "Stopped.";
    } else if (this.result) {
      const r = this.result;
      if (r.status === "failed") {
        alerts.push(h("p", { class: "alert failure", "data-testid": "run-failed", text: `The council could not answer: ${r.error}` }));
      } else if (r.status === "running" || r.status === "interrupted") {
        alerts.push(h("p", { class: "alert warning", text: "This run did not finish: the server stopped while it ran." }));
      }
      // Every answer withheld: the final answer's place says it, and the cards say why; a degraded box would repeat it.
      const blockedRun = r.status === "blocked" || (this.allBlocked && this.final?.source === "none");
      if (r.degraded && !blockedRun) {
        const reasons = h("ul", {}, ...(r.degraded_reasons || []).map((reason) => h("li", { text: reason })));
        alerts.push(h("div", { class: "alert warning", "data-testid": "degraded" },
          h("strong", { text: "Degraded run: " }), "this result is weaker than a full council run.", reasons));
      }
      if (r.simulated) alerts.push(h("p", { class: "muted small", text: "Simulated members: offline, not real models." }));
      // A blocked run ended as planned; that its answer was withheld is said once, in the final answer's place.
      this.stageText.textContent = r.status === "complete" ? `Done in ${seconds(r.timings?.total_ms || 0)}.`
        : r.status === "blocked" ? `Ended in ${seconds(r.timings?.total_ms || 0)}.`
          : r.status === "failed" ? "Failed." : "Interrupted.";
      this.drawCost();
    } else if (this.ended) {
      alerts.push(h("p", { class: "alert warning", text: "The connection closed before the run reported its end." }));
      this.stageText.textContent = "Connection closed.";
    }
    this.waiting.textContent = "";
    this.root.classList.toggle("finished", this.finished);
    this.alerts.replaceChildren(...alerts);
    this.fold();
    if (this.onEnd) this.onEnd(this);
  }

  /**
   * The cost beside the status line and, per stage and member, in the full ranking. When there is a breakdown
   * the cost is a button that opens it (its tooltip shows it too, for a mouse), so no hover is needed.
   */
  drawCost() {
    const cost = this.result?.cost ?? null;
    const lines = cost ? costLines(cost) : [];
    const shown = lines.length
      ? h("button", { type: "button", class: "link-button", "data-testid": "run-cost", title: lines.join("\n"),
        "aria-controls": this.costBox.id, text: costText(cost) })
      : h("span", { "data-testid": "run-cost", text: costText(cost) });
    shown.addEventListener("click", () => this.showCost());
    this.costLine.replaceChildren(shown);
    this.costLine.hidden = false;
    this.costLine.classList.toggle("partial", Boolean(cost && (cost.partial || cost.total_usd == null)));
    this.costBox.hidden = !cost || lines.length === 0;
    if (cost) this.costBox.replaceChildren(...costTables(cost));
  }

  /** Open the full ranking at the cost breakdown and move focus there. */
  showCost() {
    this.rankingSection.open = true;
    this.rankingSection.dataset.touched = "true";
    this.costBox.focus();
    this.costBox.scrollIntoView({ block: "nearest" });
  }

  /**
   * Once a run is complete its sections fold, so the final answer leads. Only once, and only sections the
   * reader has not opened or closed; a run with no final answer keeps its answers open, as they are all there is.
   */
  fold() {
    if (this.folded || !this.finished) return;
    this.folded = true;
    const answered = this.final && this.final.source !== "none";
    for (const details of [this.answerSection, this.reviewSection, this.second.section, this.rankingSection]) {
      if (details.dataset.touched) continue;
      details.open = details === this.answerSection && !answered;
    }
  }
}
