// A small Markdown renderer for model output.
//
// Safety comes from the order of work: the whole text is HTML-escaped first,
// so nothing in it can be markup, and only then are a few constructs turned
// into tags this file writes itself (paragraphs, headings, emphasis, code,
// lists, quotes, tables, rules, and links whose address is http or https).
// No attribute ever takes text that could hold a quote: after escaping,
// a `"` is `&quot;`. A `<script>` or `onerror=` in an answer stays text.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escape text for use in HTML content or a quoted attribute. */
export function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// Placeholders for finished inline pieces are NUL-delimited; NUL is removed from input first.
const HOLD = "\u0000";

function inline(text) {
  const held = [];
  const hold = (html) => `${HOLD}${held.push(html) - 1}${HOLD}`;
  let out = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _ticks, code) => hold(`<code>${code.trim() === "" ? code : code.replace(/^ (.*) $/s, "$1")}</code>`));
  // Links are held whole, so emphasis markers inside an address never split its tag.
  out = out.replace(/\[([^\]\n]+)\]\(\s*(https?:\/\/[^\s()]+)\s*\)/g,
    (_m, label, href) => hold(`<a href="${href}" rel="noopener noreferrer nofollow" target="_blank">${emphasis(label)}</a>`));
  out = emphasis(out);
  return out.replace(new RegExp(`${HOLD}(\\d+)${HOLD}`, "g"), (_m, index) => held[Number(index)]);
}

function emphasis(text) {
  return text
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/\*([^\s*](?:[^*]*?[^\s*])?)\*/g, "<em>$1</em>")
    .replace(/(^|[^\w])_([^\s_](?:[^_]*?[^\s_])?)_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}&gt;\s?(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function cells(row) {
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((cell) => inline(cell.trim()));
}

function renderList(lines, start) {
  // Items at the first item's indent belong to this list; deeper ones nest under the item before.
  const indent = lines[start].match(ITEM)[1].length;
  const ordered = /\d/.test(lines[start].match(ITEM)[2]);
  const items = [];
  let i = start;
  while (i < lines.length) {
    const match = lines[i].match(ITEM);
    if (match && match[1].length === indent && /\d/.test(match[2]) === ordered) {
      items.push({ text: [match[3]], nested: "" });
      i += 1;
    } else if (match && match[1].length > indent && items.length) {
      const [html, next] = renderList(lines, i);
      items[items.length - 1].nested += html;
      i = next;
    } else if (!match && lines[i].trim() !== "" && /^\s+/.test(lines[i]) && items.length) {
      items[items.length - 1].text.push(lines[i].trim());
      i += 1;
    } else {
      break;
    }
  }
  const tag = ordered ? "ol" : "ul";
  const body = items.map((item) => `<li>${inline(item.text.join("\n"))}${item.nested}</li>`).join("");
  return [`<${tag}>${body}</${tag}>`, i];
}

function renderBlocks(lines) {
  const out = [];
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) out.push(`<p>${inline(paragraph.join("\n"))}</p>`);
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
      const lang = fence[2] ? ` data-lang="${fence[2]}"` : "";
      out.push(`<pre><code${lang}>${body.join("\n")}</code></pre>`);
      continue;
    }
    if (line.trim() === "") { flush(); i += 1; continue; }
    const heading = line.match(HEADING);
    if (heading) {
      flush();
      // Answers sit inside the page, so their top heading is a small one.
      const level = Math.min(6, heading[1].length + 2);
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      i += 1;
      continue;
    }
    if (RULE.test(line)) { flush(); out.push("<hr>"); i += 1; continue; }
    if (ITEM.test(line) && (paragraph.length === 0 || !/^\s/.test(line))) {
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
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) {
      flush();
      const head = cells(line).map((c) => `<th>${c}</th>`).join("");
      const rows = [];
      i += 2;
      while (i < lines.length && lines[i].includes("|") && lines[i].trim() !== "") {
        rows.push(`<tr>${cells(lines[i]).map((c) => `<td>${c}</td>`).join("")}</tr>`);
        i += 1;
      }
      out.push(`<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table></div>`);
      continue;
    }
    paragraph.push(line);
    i += 1;
  }
  flush();
  return out.join("");
}

/** Markdown source to safe HTML: everything escaped, then a fixed subset of tags added. */
export function renderMarkdown(source) {
  const text = escapeHtml(String(source ?? "").replace(/\u0000/g, "\uFFFD")).replace(/\r\n?/g, "\n");
  return renderBlocks(text.split("\n"));
}

/** Fill `element` with rendered Markdown (the only place the page sets HTML from model text). */
export function setMarkdown(element, source) {
  element.innerHTML = renderMarkdown(source);
}
