// Parts a run view shares between its stages: folding sections, failure words and the reviewers' score tables.
//
// The peer review and the second round's reviews are drawn by the same code, so a ballot looks the same in
// either round. Every text from the server or a model goes in as text (h's `text`), never as markup.

import { h, percent } from "./chart.js";

const REASONS = {
  timeout: "timed out", rate_limited: "rate limited", auth: "authentication failed",
  upstream_error: "upstream error", protocol: "unusable response", deadline: "missed the deadline",
  parse: "unreadable ballot", skipped: "skipped", budget: "over budget", late: "not waited for",
  invalid_output: "invalid output", refused: "refused",
};

/** A JSON answer (a structured run's candidate) formatted for reading, or null for prose. */
export const formattedJson = (text) => {
  const trimmed = (text || "").trim();
  if (!/^[[{]/.test(trimmed)) return null;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return null;
  }
};

/** A failure's reason in words ("timed out"), or "failed" when there is none. */
export const reasonText = (error) => (error ? REASONS[error.reason] || error.reason : "failed");

/** `n word` or `n words`. */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// review.both_orders: whether the reviewer's top pick held when the answers were shown in a second order.
const POSITION = {
  held: "Top pick held in both orders.",
  changed: "Top pick changed with the order: this reviewer's choice follows where an answer is shown.",
  unknown: "Position consistency unknown: one of its two orders' calls failed, and the other ballot stands alone.",
};

const shown = (value) => (value === true ? "yes" : value === false ? "no" : value ?? "–");

/**
 * A folding section whose summary has a title and a short count (so a folded one still says what is in it).
 * The title is a heading, so the sections are in the page's outline under the question.
 */
export function section(name, title, open, ...content) {
  const count = h("span", { class: "section-count muted" });
  const summary = h("summary", {}, h("h3", { class: "section-title", text: title }), count);
  const details = h("details", { class: "run-section", "data-section": name, open }, summary, ...content);
  details.count = count;
  // A section the reader opened or closed stays that way when the run completes.
  summary.addEventListener("click", () => { details.dataset.touched = "true"; });
  return details;
}

/** One reviewer's ballot: a table of the scores it gave each answer (named for the reader), or why it failed. */
function reviewBlock(reviewer, review, names, label) {
  const block = h("div", { class: "review", "data-reviewer": reviewer });
  if (review.status !== "ok") {
    block.classList.add("failed");
    block.append(h("h4", { text: `${reviewer}'s review` }),
      h("p", { class: "failure", text: `Failed (${reasonText(review.error)}): ${review.error?.message || ""}` }));
    return block;
  }
  const seenAs = Object.fromEntries(Object.entries(review.labels || {}).map(([seen, m]) => [m, seen]));
  const scored = Object.keys(review.scores || {});
  const dims = [...new Set(scored.flatMap((m) => Object.keys(review.scores[m].scores || {})))];
  const head = h("tr", {}, h("th", { scope: "col", text: "Answer by" }), h("th", { scope: "col", text: "Seen as" }),
    ...dims.map((d) => h("th", { scope: "col", text: names[d] || d })), h("th", { scope: "col", text: "Overall" }),
    h("th", { scope: "col", text: "Notes" }));
  const rows = (review.order || scored).filter((m) => review.scores?.[m]).map((member) => {
    const entry = review.scores[member];
    return h("tr", { "data-member": member, "data-holistic": member in (review.holistic || {}) ? "true" : null },
      h("th", { scope: "row", text: member }),
      h("td", { text: seenAs[member] || "–" }),
      ...dims.map((d) => h("td", { text: shown(entry.scores?.[d]) })),
      // Rubric-scored ballots (with per-criterion normalized scores) have an overall in 0–1.
      h("td", { text: "normalized" in entry ? percent(entry.overall) : Number(entry.overall).toFixed(2) }),
      h("td", { class: "notes", text: entry.notes || "" }));
  });
  // ADR-016's fallback: answers this ballot scored with an overall score only, and the criteria it left out.
  const holistic = Object.entries(review.holistic || {});
  const holisticNote = holistic.length ? [h("p", { class: "holistic muted", text: "Read as holistic for "
    + holistic.map(([member, missing]) => `${member} (without ${missing.map((d) => names[d] || d).join(", ")})`)
      .join("; ") + ": the overall score stands in for what was left out." })] : [];
  const consistency = review.position_consistency;
  const positionNote = consistency ? [h("p", { class: "position-consistency muted",
    "data-consistency": consistency, text: POSITION[consistency] || consistency })] : [];
  block.append(h("h4", { text: `${reviewer}'s scores` }), ...positionNote, ...holisticNote,
    // A wide table scrolls in its wrap, which the keyboard can reach to scroll it.
    h("div", { class: "table-wrap", tabindex: "0", role: "group", "aria-label": `${label(reviewer)} (scrolls sideways)` },
      h("table", { class: "scores" }, h("thead", {}, head), h("tbody", {}, ...rows))));
  return block;
}

/**
 * The ballots of `reviews` (a Map by reviewer) in the run's member order, whatever order they arrived in, with
 * the section count (" · 3 reviews, 1 failed (x)") and whether any failed. `label` names a reviewer's table for
 * a screen reader, so two rounds' tables on one page are told apart.
 */
export function reviewBlocks(reviews, members, names, label = (reviewer) => `${reviewer}'s scores`) {
  const position = (name) => (members.includes(name) ? members.indexOf(name) : members.length);
  const ordered = [...reviews].sort(([a], [b]) => position(a) - position(b));
  const blocks = ordered.map(([reviewer, review]) => reviewBlock(reviewer, review, names, label));
  const failed = ordered.filter(([, review]) => review.status !== "ok").map(([reviewer]) => reviewer);
  const count = ` · ${plural(ordered.length - failed.length, "review")}`
    + (failed.length ? `, ${failed.length} failed (${failed.join(", ")})` : "");
  return { blocks, count, failed: failed.length > 0 };
}
