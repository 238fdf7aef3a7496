// The second round of a run (review.rounds: 2), drawn as a stage of its own in the run view.
//
// It starts with a `stage_started` of stage `deliberation` and its reason; each member's `revision` (revised,
// kept, failed) follows, then the gate's re-check of the revised texts (`safety`), the reviewers' new ballots
// (`review` with round 2) and the `deliberation` summary: who revised, how each answer's rank and score
// moved, confidence and agreement before and after, and what the round took. A run of such a council that
// needed one round sends only the summary, and shows its reason in one line. A stored run whose events do not
// hold the round is drawn from the record in its `result` summary instead (without the new ballots).
// Reasons are model output: every text goes in as text.

import { h, signed } from "./chart.js";
import { plural, reasonText, reviewBlocks, section } from "./reviews.js";

const DECISIONS = {
  pending: "reading the critiques…", revised: "revised its answer", kept: "kept its answer",
  failed: "revision failed", blocked: "revision withheld by the safety gate",
};
const STATISTICS = { kendall_w: "Kendall's W", mean_pairwise_tau: "mean pairwise Kendall tau" };

const figure = (value) => (value == null ? "–" : value.toFixed(2));
const sentence = (text) => (text ? text[0].toUpperCase() + text.slice(1) : "");
const before = (a, b, show) => `${a == null ? "–" : show(a)} → ${b == null ? "–" : show(b)}`;

export class SecondRound {
  /**
   * `names()` gives the rubric's dimension names, `members()` the run's members in order (for the ballots);
   * `place(element)` puts the block or the one-round line in the run view. Neither is on the page until it has
   * something to say, so a run without rounds is drawn exactly as before.
   */
  constructor(names, members, place) {
    this.names = names;
    this.members = members;
    this.place = place;
    this.reason = null; // set once the second round starts
    this.revisions = new Map();
    this.reviews = new Map();
    this.summary = null; // the `deliberation` event, once it came

    this.note = h("p", { class: "one-round muted", "data-testid": "one-round" });
    this.reasonLine = h("p", { class: "second-reason", "data-testid": "second-round-reason" });
    this.decisions = h("ul", { class: "revisions", "data-testid": "revisions", "aria-label": "Each member's decision" });
    this.moves = h("div", { class: "moves-box", "data-testid": "moves-box" });
    this.reviewList = h("div", { class: "review-list" });
    this.reviewPart = h("details", { class: "second-reviews", "data-testid": "second-round-reviews", hidden: true },
      h("summary", {}, h("h4", { class: "section-title", text: "The second round's reviews" })),
      h("p", { class: "note", text: "The answers, revised or kept, were shuffled again under new labels." }),
      this.reviewList);
    this.section = section("second-round", "Second round", true, this.reasonLine, this.decisions, this.moves,
      this.reviewPart);
    this.section.dataset.testid = "second-round";
  }

  /** Whether the second round has started (its stage, or a summary saying it ran). */
  get running() {
    return this.reason !== null;
  }

  /** The round starts: `members` are the ones whose answers it revisits, each waiting for its decision. */
  start(reason, members) {
    this.reason = reason || "";
    for (const member of members) if (!this.revisions.has(member)) this.revisions.set(member, { member, decision: "pending" });
    this.draw();
  }

  revision(data) {
    this.revisions.set(data.member, data);
    this.draw();
  }

  /** The gate's verdict on a revised text: a blocked one leaves the member's first answer standing. */
  safety(data) {
    if (data.passed) return;
    const category = data.findings?.[0]?.category || "unsafe";
    const had = this.revisions.get(data.member) || { member: data.member };
    this.revisions.set(data.member, { ...had, decision: "blocked",
      reason: `the revised answer was blocked by the safety gate (${category}); its first answer stands` });
    this.draw();
  }

  review(data) {
    this.reviews.set(data.reviewer, data);
    this.draw();
  }

  /** The `deliberation` summary (or the same record from a stored run's result): how many rounds, and why. */
  finish(data) {
    this.summary = data;
    if (data.rounds === 2) {
      if (!this.running) this.reason = data.reason || "";
      for (const revision of data.revisions || []) this.revisions.set(revision.member, revision);
    }
    this.draw();
  }

  /** While the round runs: who the page still waits for, for the status line. */
  waiting() {
    const pending = [...this.revisions.values()].filter((r) => r.decision === "pending").map((r) => r.member);
    if (pending.length) return ` Waiting for ${pending.join(", ")} to revise or keep.`;
    return ` ${plural(this.reviews.size, "review")} of the revised answers in so far.`;
  }

  draw() {
    if (this.summary?.rounds === 1) {
      this.note.textContent = sentence(this.summary.reason);
      if (!this.note.parentNode) this.place(this.note);
      return;
    }
    if (!this.running) return;
    if (!this.section.parentNode) this.place(this.section);
    this.reasonLine.textContent = sentence(this.reason);
    this.decisions.replaceChildren(...[...this.revisions.values()].map((revision) => {
      const decision = revision.decision in DECISIONS ? revision.decision : "failed";
      const reason = decision === "failed" && revision.error ? `${reasonText(revision.error)}; its first answer stands`
        : revision.reason || "";
      return h("li", { class: `revision decision-${decision}`, "data-member": revision.member, "data-decision": decision },
        h("span", { class: "member-name", text: revision.member }),
        h("span", { class: `badge decision-badge decision-${decision}`, text: DECISIONS[decision] }),
        reason ? h("span", { class: "revision-reason", text: reason }) : null);
    }));
    if (this.reviews.size) {
      const { blocks } = reviewBlocks(this.reviews, this.members(), this.names(),
        (reviewer) => `${reviewer}'s second-round scores`);
      this.reviewList.replaceChildren(...blocks);
      this.reviewPart.hidden = false;
    }
    this.drawMoves();
    this.drawCount();
  }

  /** How the ranking moved, revised answers marked, and confidence, agreement and cost before → after. */
  drawMoves() {
    const done = this.summary;
    if (!done) return;
    const head = h("tr", {}, h("th", { scope: "col", text: "Answer by" }), h("th", { scope: "col", text: "Rank" }),
      h("th", { scope: "col", text: "Council score" }));
    const rows = (done.moves || []).map((move) => h("tr", { "data-member": move.member, "data-revised": String(move.revised) },
      h("th", { scope: "row" }, move.member, move.revised ? h("span", { class: "revised-mark", text: "revised" }) : null),
      h("td", { class: "rank-move", text: before(move.rank_before, move.rank_after, (rank) => `#${rank}`) }),
      h("td", { class: "score-move", text: before(move.score_before, move.score_after, signed) })));
    const statistic = STATISTICS[done.agreement_statistic] || done.agreement_statistic;
    const cost = done.cost_usd == null ? "cost unknown" : `$${done.cost_usd.toFixed(4)}`;
    this.moves.replaceChildren(
      h("table", { class: "moves", "data-testid": "moves" },
        h("caption", { text: "How the ranking moved (first round → second)" }), h("thead", {}, head),
        h("tbody", {}, ...rows)),
      h("p", { class: "confidence", "data-testid": "second-round-confidence",
        text: `Confidence in the top answer: ${before(done.confidence_before, done.confidence_after, figure)}` }),
      h("p", { class: "agreement", "data-testid": "second-round-agreement",
        text: `Agreement (${statistic}): ${before(done.agreement_before, done.agreement_after, figure)}` }),
      h("p", { class: "muted small", "data-testid": "second-round-cost",
        text: `The second round: ${plural(done.calls, "call")}, ${plural(done.tokens, "token")}, ${cost}, `
          + `${(done.latency_ms / 1000).toFixed(1)} s` }));
  }

  /** The section's count, so a folded section still says what the round did. */
  drawCount() {
    const decided = [...this.revisions.values()].filter((r) => r.decision !== "pending");
    if (!this.summary) {
      this.section.count.textContent = ` · ${decided.length} of ${this.revisions.size} decided`;
      return;
    }
    const revised = decided.filter((r) => r.decision === "revised").map((r) => r.member);
    this.section.count.textContent = ` · ${revised.length ? `revised: ${revised.join(", ")}` : "nobody revised"} · `
      + `confidence ${before(this.summary.confidence_before, this.summary.confidence_after, figure)}`;
  }
}
