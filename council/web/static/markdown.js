// A small Markdown renderer for model output: the GitHub-flavoured subset LLM answers use.
//
// Safety comes from the order of work: the whole text is HTML-escaped first,
// so nothing in it can be markup, and only then are a few constructs turned
// into tags this file writes itself (paragraphs, headings, emphasis, code,
// lists, task boxes, quotes, tables, rules, line breaks, and links whose
// address is http, https or mailto). Attributes only ever take fixed words,
// digits, a [\w+#.-] language name, or an address that went through escaping:
// after escaping a `"` is `&quot;`, so no value can close its quotes.
// A `<script>` or `onerror=` in an answer stays text.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escape text for use in HTML content or a quoted attribute. */
export function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// Placeholders for finished inline pieces are NUL-delimited; NUL is removed from input first.
const HOLD = "\u0000";
const HELD = new RegExp(`${HOLD}(\\d+)${HOLD}`, "g");

// Only web and mail addresses become links; javascript:, data:, file: and relative ones stay text.
// A target may hold one level of balanced parentheses (Wikipedia-style addresses).
const TARGET = String.raw`((?:https?:\/\/|mailto:)(?:[^\s()\u0000]|\([^\s()\u0000]*\))+)`;
const TITLE = String.raw`(?:\s+&quot;[^\n\u0000]*?&quot;)?`;
const LINK = new RegExp(String.raw`(!?)\[([^\]\n]+)\]\(\s*${TARGET}${TITLE}\s*\)`, "g");
const ANGLE_LINK = /&lt;((?:https?:\/\/|mailto:)(?:[^\s&\u0000]|&amp;)+)&gt;/g;
// A bare address ends at a space or at an escaped <, >, " or '; `&amp;` belongs to it.
const BARE_URL = /(?<![\w/])https?:\/\/(?:[^\s&\u0000]|&amp;)+/g;
const LINK_ATTRS = 'rel="noopener noreferrer nofollow" target="_blank"';

function link(href, label) {
  return `<a href="${href}" ${LINK_ATTRS}>${label}</a>`;
}

/** A bare address without the punctuation that ends the sentence around it. */
function trimUrl(url) {
  let end = url.replace(/[.,;:!?*_~]+$/, "");
  // A closing parenthesis belongs to the address only if it opened one: "(see https://x.org)".
  while (end.endsWith(")") && (end.match(/\(/g) || []).length < (end.match(/\)/g) || []).length) {
    end = end.slice(0, -1).replace(/[.,;:!?*_~]+$/, "");
  }
  return end;
}

function inline(text) {
  const held = [];
  const hold = (html) => `${HOLD}${held.push(html) - 1}${HOLD}`;
  // Held pieces can hold others (code in a link label), so restoring repeats until none is left.
  const restore = (html) => {
    let out = html;
    while (out.includes(HOLD)) out = out.replace(HELD, (_m, index) => held[Number(index)]);
    return out;
  };
  // Code first: nothing inside backticks is Markdown.
  let out = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g,
    (_m, _ticks, code) => hold(`<code>${code.trim() === "" ? code : code.replace(/^ (.*) $/s, "$1")}</code>`));
  // Two trailing spaces or a backslash at the end of a line: a hard line break.
  out = out.replace(/(?: {2,}|\\)\n/g, () => `${hold("<br>")}\n`);
  // A backslash keeps the next punctuation (or escaped <, >, &, quote) as plain text.
  out = out.replace(/\\(&(?:amp|lt|gt|quot|#39);|[!#$%()*+,\-./:;=?@[\\\]^_`{|}~])/g, (_m, c) => hold(c));
  // Answers put <br> in table cells to break lines; that one tag, with no attributes, is kept.
  out = out.replace(/&lt;br\s*\/?&gt;/gi, () => hold("<br>"));
  out = out.replace(ANGLE_LINK, (_m, href) => hold(link(href, href)));
  // Links are held whole, so emphasis markers inside an address never split its tag.
  // An image becomes a link to it: the page loads nothing an answer names.
  out = out.replace(LINK, (_m, bang, label, href) =>
    hold(bang ? link(href, `image: ${restore(label)}`) : link(href, restore(emphasis(label)))));
  out = out.replace(BARE_URL, (url) => {
    const href = trimUrl(url);
    return hold(link(href, href)) + url.slice(href.length);
  });
  return restore(emphasis(out));
}

function emphasis(text) {
  return text
    .replace(/\*\*\*(?=\S)([\s\S]*?\S)\*\*\*/g, "<strong><em>$1</em></strong>")
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/\*([^\s*](?:[^*]*?[^\s*])?)\*/g, "<em>$1</em>")
    .replace(/(^|[^\w])_([^\s_](?:[^_]*?[^\s_])?)_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}&gt;\s?(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const TASK = /^\[([ xX])\]\s+/;

const leading = (line) => line.match(/^ */)[0].length;
const isOrdered = (match) => /\d/.test(match[2]);

/** Whether `line` opens a block of its own (so it cannot continue a paragraph lazily). */
function opensBlock(line) {
  return line.trim() === "" || FENCE.test(line) || HEADING.test(line) || RULE.test(line) || ITEM.test(line)
    || QUOTE.test(line) || /^ {0,3}\|/.test(line);
}

/** A table row's cells: split at pipes that are not escaped (`\|` is a pipe inside a cell). */
function splitRow(row) {
  const inner = row.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
}

function alignment(cell) {
  const left = cell.startsWith(":");
  const right = cell.endsWith(":");
  if (left && right) return ' align="center"';
  if (right) return ' align="right"';
  if (left) return ' align="left"';
  return "";
}

function renderTable(lines, i) {
  const head = splitRow(lines[i]);
  const aligns = splitRow(lines[i + 1]).map(alignment);
  // As on GitHub, the header and the dashes must have as many columns; a lone "---" is a rule, not a table.
  if (head.length !== aligns.length || (head.length === 1 && !lines[i + 1].includes("|"))) return null;
  const row = (cells, tag) => aligns.map((align, n) => `<${tag}${align}>${inline(cells[n] ?? "")}</${tag}>`).join("");
  const rows = [];
  let next = i + 2;
  while (next < lines.length && lines[next].includes("|") && lines[next].trim() !== "") {
    rows.push(`<tr>${row(splitRow(lines[next]), "td")}</tr>`);
    next += 1;
  }
  const body = rows.length ? `<tbody>${rows.join("")}</tbody>` : "";
  // A wide table scrolls in its wrap, which the keyboard can reach to scroll it.
  return [`<div class="table-wrap" tabindex="0" role="group" aria-label="Table (scrolls sideways)"><table><thead><tr>${row(head, "th")}</tr></thead>${body}</table></div>`, next];
}

function renderList(lines, start) {
  // Markers at the first item's indent (or one space off) start items of this list; a line indented
  // further belongs to the item before it, and is rendered as blocks of its own (nested lists, code).
  // Models indent nested lists by 2, 3 or 4 spaces, so any deeper indent counts, not GitHub's exact column.
  const first = lines[start].match(ITEM);
  const indent = first[1].length;
  const ordered = isOrdered(first);
  const items = [];
  let loose = false;
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    const match = line.match(ITEM);
    const lead = leading(line);
    const item = items[items.length - 1];
    if (match && lead <= indent + 1 && !RULE.test(line)) {
      if (lead < indent || isOrdered(match) !== ordered) break;
      items.push({ lines: [match[3]], contentIndent: line.length - match[3].length });
      i += 1;
    } else if (line.trim() === "") {
      // A blank line ends the list, unless the item or the list goes on after it (a loose list).
      let next = i + 1;
      while (next < lines.length && lines[next].trim() === "") next += 1;
      const after = lines[next];
      const sibling = after?.match(ITEM);
      const goesOn = after !== undefined && (leading(after) > indent + 1
        || (sibling && leading(after) >= indent && isOrdered(sibling) === ordered && !RULE.test(after)));
      if (!goesOn) break;
      loose = true;
      for (; i < next; i += 1) item.lines.push("");
    } else if (lead > indent) {
      item.lines.push(line.slice(Math.min(lead, item.contentIndent)));
      i += 1;
    } else if (!opensBlock(line) && item.lines[item.lines.length - 1].trim() !== "") {
      // A lazy continuation: a wrapped line of the item's text, not indented.
      item.lines.push(line);
      i += 1;
    } else {
      break;
    }
  }
  const number = Number.parseInt(first[2], 10);
  const open = ordered ? (number !== 1 ? `<ol start="${number}">` : "<ol>") : "<ul>";
  const body = items.map((item) => {
    const task = item.lines[0].match(TASK);
    if (!task) return `<li>${renderBlocks(item.lines, !loose)}</li>`;
    item.lines[0] = item.lines[0].slice(task[0].length);
    const box = `<input type="checkbox" disabled${task[1] === " " ? "" : " checked"}> `;
    return `<li class="task">${box}${renderBlocks(item.lines, !loose)}</li>`;
  }).join("");
  return [`${open}${body}</${ordered ? "ol" : "ul"}>`, i];
}

/** Blocks of `lines`; in a tight list item (`tight`) paragraphs go without <p>, as on GitHub. */
function renderBlocks(lines, tight = false) {
  const out = [];
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) {
      const text = inline(paragraph.join("\n"));
      out.push(tight ? text : `<p>${text}</p>`);
    }
    paragraph = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(FENCE);
    if (fence) {
      flush();
      const marker = fence[1];
      const closing = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`);
      const body = [];
      i += 1;
      while (i < lines.length && !closing.test(lines[i])) body.push(lines[i++]);
      i += 1;
      // The class names the language as highlighters and GitHub do (language-python).
      const lang = fence[2] ? ` class="language-${fence[2]}"` : "";
      out.push(`<pre><code${lang}>${body.join("\n")}</code></pre>`);
      continue;
    }
    if (line.trim() === "") { flush(); i += 1; continue; }
    const heading = line.match(HEADING);
    if (heading) {
      flush();
      // The level as written; `underPage` fits it under the page's own headings.
      const level = heading[1].length;
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      i += 1;
      continue;
    }
    if (RULE.test(line)) { flush(); out.push("<hr>"); i += 1; continue; }
    const item = line.match(ITEM);
    // A list can break into a paragraph, but "2024. was a year" in running text is not one.
    if (item && leading(line) <= 3 && (paragraph.length === 0 || !isOrdered(item) || item[2].startsWith("1"))) {
      flush();
      const [html, next] = renderList(lines, i);
      out.push(html);
      i = next;
      continue;
    }
    if (QUOTE.test(line)) {
      flush();
      const quoted = [];
      while (i < lines.length && QUOTE.test(lines[i])) quoted.push(lines[i++].match(QUOTE)[1]);
      out.push(`<blockquote>${renderBlocks(quoted)}</blockquote>`);
      continue;
    }
    const table = line.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])
      ? renderTable(lines, i) : null;
    if (table) {
      flush();
      out.push(table[0]);
      i = table[1];
      continue;
    }
    paragraph.push(line);
    i += 1;
  }
  flush();
  return out.join("");
}

/**
 * The headings of rendered text moved under the page's: the text's top level becomes `top`, and the levels it
 * uses follow one another from there (an answer's "#" then "###" is h`top` then h`top+1`), so the page's outline
 * never skips a level. Only this file writes tags: every `<hN>` in `html` is one of its headings.
 */
function underPage(html, top) {
  const used = [...new Set([...html.matchAll(/<h([1-6])>/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
  const level = new Map(used.map((depth, index) => [depth, Math.min(6, top + index)]));
  return html.replace(/<(\/?)h([1-6])>/g, (_, close, depth) => `<${close}h${level.get(Number(depth))}>`);
}

function render(source, top) {
  const text = escapeHtml(String(source ?? "").replace(/\u0000/g, "\uFFFD")).replace(/\r\n?/g, "\n");
  // Leading tabs count as four spaces, so tab-indented nested lists nest.
  const lines = text.split("\n").map((line) => line.replace(/^\t+/, (tabs) => "    ".repeat(tabs.length)));
  return underPage(renderBlocks(lines), top);
}

/** Markdown source to safe HTML: everything escaped, then a fixed subset of tags added; "#" is an h3. */
export function renderMarkdown(source) {
  return render(source, 3);
}

/**
 * Fill `element` with rendered Markdown (the only place the page sets HTML from model text); the text's top
 * heading is an h`top`, one level under the heading the text sits beneath.
 */
export function setMarkdown(element, source, top = 3) {
  element.innerHTML = render(source, top);
}
