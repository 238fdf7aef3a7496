// The ranking chart: council score per member as bars, and the per-dimension breakdown.
// Drawn with plain elements and CSS, so it reflows on a narrow screen; every text goes in as text.

/** Create an element with attributes and optional text content. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A council score with its sign (− for below the mean, ± for zero). */
export function signed(value) {
  return `${value > 0 ? "+" : value < 0 ? "−" : "±"}${Math.abs(value).toFixed(2)}`;
}

function scoreBar(score, span, diverging) {
  const track = h("div", { class: "bar-track" + (diverging ? " diverging" : "") });
  const bar = h("div", { class: "bar " + (score < 0 ? "negative" : "positive") });
  const width = span > 0 ? (Math.abs(score) / span) * (diverging ? 50 : 100) : 0;
  // Style properties set through the CSSOM are allowed by the page's content security policy.
  bar.style.width = `${Math.max(width, score === 0 ? 0 : 1.5)}%`;
  if (diverging) bar.style.left = score < 0 ? `${50 - width}%` : "50%";
  track.append(bar);
  if (diverging) track.append(h("div", { class: "zero-line" }));
  return track;
}

/**
 * The chart for a `ranking` event's entries. `dimensionNames` maps dimension ids to names;
 * `scale` is the rubric's [min, max] for the raw per-dimension means.
 */
export function rankingChart(ranking, dimensionNames = {}, scale = [1, 10]) {
  const figure = h("figure", { class: "ranking-chart", "data-testid": "ranking-chart" });
  figure.append(h("figcaption", { text: "Council score per member (calibrated across reviewers; higher is better)" }));
  const span = Math.max(...ranking.map((e) => Math.abs(e.score)), 0);
  const diverging = ranking.some((e) => e.score < 0);
  const rows = h("ol", { class: "ranking-rows" });
  for (const entry of ranking) {
    const label = `${entry.member}: rank ${entry.rank}, council score ${signed(entry.score)}`
      + (entry.raw_mean != null ? `, mean overall ${entry.raw_mean.toFixed(2)}` : "")
      + `, ${entry.n_reviews} review${entry.n_reviews === 1 ? "" : "s"}`;
    const verdict = entry.verdict
      ? h("span", { class: `verdict ${entry.verdict.passed ? "passed" : "failed"}`,
        text: `${entry.verdict.passed ? "passes" : "fails"} rubric · ${percent(entry.verdict.score)}` })
      : null;
    rows.append(h("li", { class: "ranking-row", "data-member": entry.member, "aria-label": label, title: label },
      h("span", { class: "rank", text: `#${entry.rank}` }),
      h("span", { class: "member-name", text: entry.member }),
      scoreBar(entry.score, span || 1, diverging),
      h("span", { class: "score", text: signed(entry.score) }), verdict));
  }
  figure.append(rows);
  const dimensions = [...new Set(ranking.flatMap((e) => Object.keys(e.dimensions || {})))];
  // Rubric-scored runs (entries with a verdict) report each criterion's mean in 0–1, older ones on the scale.
  const unit = ranking.some((e) => "verdict" in e);
  if (dimensions.length) figure.append(breakdown(ranking, dimensions, dimensionNames, unit ? null : scale));
  else figure.append(h("p", { class: "muted small", text: "No per-dimension scores: this run had no peer review." }));
  return figure;
}

/** A 0–1 score as a whole percentage. */
export function percent(value) {
  return `${Math.round(Number(value) * 100)}%`;
}

function breakdown(ranking, dimensions, names, scale) {
  // Without a scale the values are already 0–1.
  const [low, high] = scale || [0, 1];
  const table = h("table", { class: "breakdown", "data-testid": "dimension-breakdown" });
  const caption = h("p", { class: "chart-caption", text: scale
    ? `Mean score per criterion (${low}–${high}) from the reviewers`
    : "Mean score per criterion (0–100%) from the reviewers" });
  const head = h("tr", {}, h("th", { scope: "col", text: "Member" }));
  for (const id of dimensions) head.append(h("th", { scope: "col", text: names[id] || id }));
  table.append(h("thead", {}, head));
  const body = h("tbody");
  for (const entry of ranking) {
    const row = h("tr", {}, h("th", { scope: "row", text: entry.member }));
    for (const id of dimensions) {
      const value = entry.dimensions?.[id];
      const cell = h("td", { "data-dimension": id });
      if (value == null) {
        cell.append(h("span", { class: "muted", text: "–" }));
      } else {
        const bar = h("div", { class: "mini-bar" });
        bar.style.width = `${Math.max(0, Math.min(100, ((value - low) / (high - low)) * 100))}%`;
        cell.append(h("span", { class: "mini-value", text: scale ? value.toFixed(1) : percent(value) }),
          h("div", { class: "mini-track" }, bar));
      }
      row.append(cell);
    }
    body.append(row);
  }
  table.append(body);
  // A wide table scrolls in its wrap, which the keyboard can reach to scroll it.
  return h("div", {}, caption, h("div", { class: "table-wrap", tabindex: "0", role: "group",
    "aria-label": "Mean score per criterion (scrolls sideways)" }, table));
}
