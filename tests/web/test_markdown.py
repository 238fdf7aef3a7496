"""The page's Markdown renderer, run in Chromium: the GitHub-flavoured subset answers use, and nothing live.

The renderer (council/web/static/markdown.js) is the page's own: it escapes the
whole text first and then writes a fixed set of tags itself. These tests feed it
through ``setMarkdown``, the function the page uses, into the real document, and
look at the DOM Chromium built from it.
"""

from __future__ import annotations

import random
from typing import Any

from playwright.async_api import Page

from tests.web.conftest import LOOP, open_page

pytestmark = LOOP

LINK = 'rel="noopener noreferrer nofollow" target="_blank"'

# Exact HTML for the basics, so a change in the renderer's output is seen in full.
CASES = [
    (
        "Hello *world*, **bold**, _it_ and `code <b>`",
        "<p>Hello <em>world</em>, <strong>bold</strong>, <em>it</em> and <code>code &lt;b&gt;</code></p>",
    ),
    ("# Title\n\nText\nmore", "<h3>Title</h3><p>Text\nmore</p>"),
    ("- a\n- b\n  - c\n\n1. x\n2. y", "<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul><ol><li>x</li><li>y</li></ol>"),
    (
        "```js\nlet a = '<x>';\n**not bold**\n```",
        '<pre><code class="language-js">let a = &#39;&lt;x&gt;&#39;;\n**not bold**</code></pre>',
    ),
    (
        "[ok](https://a.example/x_y_z?q=1&r=2) [bad](javascript:alert(1)) [ftp](ftp://x)",
        f'<p><a href="https://a.example/x_y_z?q=1&amp;r=2" {LINK}>ok</a> [bad](javascript:alert(1)) [ftp](ftp://x)</p>',
    ),
    # Not a link (the address has a space), so only the bare address before the quote is linked, as on GitHub.
    (
        '[x](https://e.com/" onmouseover="alert(1))',
        f'<p>[x](<a href="https://e.com/" {LINK}>https://e.com/</a>&quot; onmouseover=&quot;alert(1))</p>',
    ),
    ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
    ('<img src=x onerror="alert(1)">', "<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</p>"),
    ("> quoted\n> more", "<blockquote><p>quoted\nmore</p></blockquote>"),
    (
        "| a | b |\n|---|:-:|\n| 1 | **2** |",
        (
            '<div class="table-wrap" tabindex="0" role="group" aria-label="Table (scrolls sideways)">'
            '<table><thead><tr><th>a</th><th align="center">b</th></tr></thead>'
            '<tbody><tr><td>1</td><td align="center"><strong>2</strong></td></tr></tbody></table></div>'
        ),
    ),
    ("snake_case_name ~~gone~~", "<p>snake_case_name <del>gone</del></p>"),
    ("a\u0000b", "<p>a\ufffdb</p>"),
    ("***", "<hr>"),
    ("", ""),
]

# Rendered into a div.markdown: every selector (relative to it, `:scope` is the div) maps to the texts
# of the elements it finds, in document order, or to how many it finds.
TABLE = """\
| Fruit | Count | Price |
|:------|:-----:|------:|
| apple | 3 | 1.50 |
| `a \\| b` | **10** | [shop](https://shop.example/) |"""
STRUCTURE: list[tuple[str, str, dict[str, Any]]] = [
    ("table with alignment", TABLE, {
        "table thead th": ["Fruit", "Count", "Price"],
        "table tbody tr": 2,
        "table tbody tr:first-child td": ["apple", "3", "1.50"],
        'th[align="left"], td[align="left"]': ["Fruit", "apple", "a | b"],
        'th[align="center"]': ["Count"],
        'td[align="right"]': ["1.50", "shop"],
        "td code": ["a | b"],
        "td strong": ["10"],
        "td a[href='https://shop.example/']": ["shop"],
    }),
    ("text before a table, no blank line", "Compare:\n| a | b |\n|---|---|\n| 1 | 2 |\nAfter.", {
        ":scope > p": ["Compare:", "After."],
        "table tbody td": ["1", "2"],
    }),
    ("a lone --- under text is a rule, not a table", "a | b\n---", {"table": 0, "hr": 1, "p": ["a | b"]}),
    ("fenced code with a language", "```python\ndef f(x):\n    return x < 2 and **x**\n```", {
        "pre code.language-python": ["def f(x):\n    return x < 2 and **x**"],
        "strong": 0,
    }),
    ("tilde fence, and a fence without a language", "~~~rust\nfn main() {}\n~~~\n\n```\nplain\n```", {
        "pre code.language-rust": ["fn main() {}"],
        "pre code:not([class])": ["plain"],
    }),
    ("ordered list in an unordered one", "- Fruit\n  1. Apple\n  2. Banana\n- Vegetables", {
        ":scope > ul > li": 2,
        ":scope > ul > li > ol > li": ["Apple", "Banana"],
    }),
    ("unordered list in an ordered one (3-space indent)", "1. Install\n   - pip\n   - uv\n2. Run", {
        ":scope > ol > li": 2,
        ":scope > ol > li > ul > li": ["pip", "uv"],
    }),
    ("three levels, 2-space indent", "- a\n  - b\n    - c\n- d", {
        ":scope > ul > li > ul > li > ul > li": ["c"],
        ":scope > ul > li": 2,
    }),
    ("nested by 4 spaces and by a tab", "- a\n    - b\n- c\n\t- d", {
        ":scope > ul > li > ul > li": ["b", "d"],
    }),
    ("an ordered list keeps its start number", "3. three\n4. four", {"ol[start='3'] > li": ["three", "four"]}),
    ("a code block inside a list item", "1. Install:\n   ```bash\n   pip install council\n   ```\n2. Run", {
        ":scope > ol > li > pre > code.language-bash": ["pip install council"],
        ":scope > ol > li": 2,
    }),
    ("a loose list has paragraphs", "- one\n\n- two", {":scope > ul > li > p": ["one", "two"]}),
    ("task list", "- [ ] todo\n- [x] done", {
        "li.task input[type=checkbox][disabled]": 2,
        "li.task input:checked": 1,
    }),
    ("links: http, https and mailto only", (
        "[web](http://a.example/) [secure](https://b.example/p_(q)) [mail](mailto:c@d.example) "
        "[js](javascript:alert(1)) [data](data:text/html,hi) [rel](/local) <https://e.example/?a=1&b=2> "
        "and https://f.example/x_y_z."), {
        "a": ["web", "secure", "mail", "https://e.example/?a=1&b=2", "https://f.example/x_y_z"],
        "a[href='https://b.example/p_(q)']": 1,
        "a[href='mailto:c@d.example']": 1,
        "a[target='_blank'][rel~='noopener']": 5,
        "p": ["web secure mail [js](javascript:alert(1)) [data](data:text/html,hi) [rel](/local) "
              "https://e.example/?a=1&b=2 and https://f.example/x_y_z."],
    }),
    ("formatting inside a link label", "[**bold** and `code`](https://a.example/)", {
        "a > strong": ["bold"],
        "a > code": ["code"],
    }),
    ("an image is a link, never an img", "![diagram](https://a.example/d.png)", {
        "img": 0,
        "a[href='https://a.example/d.png']": ["image: diagram"],
    }),
    ("inline code", "Use `x < y && **z**` here, and ``a `tick` b``", {
        "p > code": ["x < y && **z**", "a `tick` b"],
        "strong": 0,
    }),
    ("headings, shifted under the page's own", "# One\n## Two\n### Three\n###### Six", {
        "h3": ["One"], "h4": ["Two"], "h5": ["Three"], "h6": ["Six"],
    }),
    ("skipped heading levels close up, so the page's outline never jumps", "### One\n##### Two\n### Three", {
        "h3": ["One", "Three"], "h4": ["Two"], "h5": 0,
    }),
    ("bold, italic, both, strikethrough; snake_case stays", "**b** *i* _j_ ***bi*** ~~s~~ snake_case_name", {
        "strong": ["b", "bi"],
        "em": ["i", "j", "bi"],
        "strong > em": ["bi"],
        "del": ["s"],
    }),
    ("backslash escapes", "\\*not italic\\* and \\_not either\\_", {"em": 0, "p": ["*not italic* and _not either_"]}),
    ("blockquote with a list and a nested quote", "> Note\n> - point\n>\n> > inner", {
        ":scope > blockquote > p": ["Note"],
        "blockquote > ul > li": ["point"],
        "blockquote > blockquote > p": ["inner"],
    }),
    ("hard line breaks, and <br> in a table cell", "one  \ntwo\n\n| a |\n|---|\n| x<br>y |", {
        "p > br": 1,
        "td > br": 1,
    }),
    ("horizontal rule", "above\n\n---\n\nbelow", {"hr": 1, "p": ["above", "below"]}),
]

RENDER = """
async (cases) => {
  const { setMarkdown } = await import('/static/markdown.js');
  return cases.map(([source, selectors]) => {
    const box = document.createElement('div');
    box.className = 'markdown';
    document.getElementById('transcript').append(box);
    setMarkdown(box, source);
    return Object.fromEntries(selectors.map((s) => [s, [...box.querySelectorAll(s)].map((e) => e.textContent)]));
  });
}
"""

# Everything the renderer may create, and the only attributes it may set (with the values allowed).
INSPECT = r"""
(boxes) => {
  const allowed = {
    P: {}, H3: {}, H4: {}, H5: {}, H6: {}, EM: {}, STRONG: {}, DEL: {}, CODE: { class: /^language-[\w+#.-]+$/ },
    PRE: {}, UL: {}, OL: { start: /^\d+$/ }, LI: { class: /^task$/ }, BLOCKQUOTE: {}, HR: {}, BR: {},
    DIV: { class: /^table-wrap$/, tabindex: /^0$/, role: /^group$/, "aria-label": /^Table \(scrolls sideways\)$/ },
    TABLE: {}, THEAD: {}, TBODY: {}, TR: {},
    TH: { align: /^(left|center|right)$/ }, TD: { align: /^(left|center|right)$/ },
    A: { href: /^(https?:\/\/|mailto:)/i, rel: /^noopener noreferrer nofollow$/, target: /^_blank$/ },
    INPUT: { type: /^checkbox$/, disabled: /^$/, checked: /^$/ },
  };
  const problems = [];
  for (const box of document.querySelectorAll(boxes)) {
    const from = JSON.stringify(box.dataset.source);
    for (const el of box.querySelectorAll('*')) {
      const tag = el.tagName.toLowerCase();
      const rules = allowed[el.tagName];
      if (!rules) { problems.push(`<${tag}> from ${from}`); continue; }
      for (const attr of el.attributes) {
        if (!(attr.name in rules) || !rules[attr.name].test(attr.value)) {
          problems.push(`${tag}[${attr.name}=${attr.value}] from ${from}`);
        }
      }
    }
  }
  return problems;
}
"""

MOUNT = """
async (sources) => {
  const { setMarkdown } = await import('/static/markdown.js');
  for (const source of sources) {
    const box = document.createElement('div');
    box.className = 'markdown probe';
    box.dataset.source = source;
    document.getElementById('transcript').append(box);
    setMarkdown(box, source);
  }
  // Poke every element that came out: a handler that got through would run now.
  for (const el of document.querySelectorAll('.probe *')) {
    for (const kind of ['mouseover', 'focus', 'load', 'error', 'animationstart']) el.dispatchEvent(new Event(kind));
  }
}
"""

ATTACKS = [
    "<img src=x onerror=\"window.__xss='img'\">",
    "<script>window.__xss='script'</script>",
    "<svg onload=\"window.__xss='svg'\"></svg>",
    "<iframe src=\"javascript:window.__xss='iframe'\"></iframe>",
    "<style>@keyframes k{} * {animation: k 1s}</style><p onanimationstart=\"window.__xss='style'\">x</p>",
    "<a href=\"javascript:window.__xss='a'\">raw link</a>",
    "<br onmouseover=\"window.__xss='br'\">",
    "[click](javascript:window.__xss='link')",
    "[click](JavaScript:window.__xss='link2')",
    "[click]( javascript:window.__xss='link3')",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    "[click](&#106;avascript:window.__xss='entity')",
    "![pic](javascript:window.__xss='image')",
    "<javascript:window.__xss='autolink'>",
    "[x](https://e.example/\"onmouseover=\"window.__xss='quote')",
    "[x](https://e.example/' onfocus='window.__xss=1')",
    "https://e.example/\"onmouseover=\"window.__xss='bare'",
    "```js\" onmouseover=\"window.__xss='fence'\ncode\n```",
    "| <img src=x onerror=\"window.__xss='cell'\"> | b |\n|---|---|\n| [x](javascript:window.__xss=1) | c |",
    "- <img src=x onerror=\"window.__xss='item'\">\n  - [x](javascript:window.__xss=1)",
    "> <script>window.__xss='quote'</script>",
    "**<img src=x onerror=\"window.__xss='bold'\">**",
    "`<img src=x onerror=\"window.__xss='code'\">`",
    "\u00000\u0000 and \u0000\u0000 placeholders",
]


async def markdown_page(web_server: Any, browser: Any) -> Page:
    # The page's content security policy is switched off: the renderer alone must keep everything inert.
    return await open_page(browser, web_server.url + "/", bypass_csp=True)


async def settle(page: Page) -> None:
    """Wait until an image error handler the test itself adds has run: by then any from the probes would have."""
    await page.evaluate("""() => { const c = document.createElement('div');
      c.innerHTML = '<img src="/no-such-image" onerror="window.__control = 1">'; document.body.append(c); }""")
    await page.wait_for_function("window.__control === 1")


async def test_markdown_exact_html(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    rendered = await page.evaluate(
        "async (sources) => { const m = await import('/static/markdown.js'); return sources.map(m.renderMarkdown); }",
        [source for source, _ in CASES])
    for (source, expected), html in zip(CASES, rendered, strict=True):
        assert html == expected, f"{source!r} rendered as {html!r}"


async def test_gfm_that_answers_use_builds_the_right_dom(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    found = await page.evaluate(RENDER, [[source, list(expected)] for _, source, expected in STRUCTURE])
    failures = []
    for (name, source, expected), got in zip(STRUCTURE, found, strict=True):
        for selector, want in expected.items():
            texts = got[selector]
            if (len(texts) if isinstance(want, int) else texts) != want:
                failures.append(f"{name}: {selector!r} found {texts!r}, wanted {want!r} (from {source!r})")
    assert not failures, "\n".join(failures)


async def test_table_alignment_shows_on_the_page(web_server, browser):
    """The align attributes take effect under the page's stylesheet (which sets cells to the left)."""
    page = await open_page(browser, web_server.url + "/")
    aligns = await page.evaluate("""async (source) => {
      const { setMarkdown } = await import('/static/markdown.js');
      const box = document.createElement('div'); box.className = 'markdown';
      document.getElementById('transcript').append(box);
      setMarkdown(box, source);
      return [...box.querySelectorAll('thead th')].map((th) => getComputedStyle(th).textAlign);
    }""", TABLE)
    assert aligns == ["left", "center", "right"]


async def test_html_and_script_in_an_answer_never_run_or_become_elements(web_server, browser):
    page = await markdown_page(web_server, browser)
    await page.evaluate(MOUNT, ATTACKS)
    await settle(page)
    assert await page.evaluate("window.__xss") is None
    assert await page.evaluate(INSPECT, ".probe") == []
    # Each attack is there to read, as text.
    texts = await page.locator(".probe").all_text_contents()
    assert "<img src=x onerror=\"window.__xss='img'\">" in texts[0]
    assert "<script>window.__xss='script'</script>" in texts[1]
    assert "[click](javascript:window.__xss='link')" in texts[7]
    # The quote that tried to end the address stays inside it: one link, its only attributes the renderer's.
    quoted = page.locator(".probe").nth(15).locator("a")
    assert await quoted.evaluate("(a) => [...a.attributes].map((x) => x.name)") == ["href", "rel", "target"]
    assert await quoted.get_attribute("href") == "https://e.example/\"onmouseover=\"window.__xss='quote'"
    assert await page.locator(".probe").nth(18).locator("code").get_attribute("class") == "language-js"


def random_documents(count: int, seed: int) -> list[str]:
    """Markdown syntax and attack fragments shuffled together: each document a mix the renderer must survive."""
    pieces = [
        "# ", "- ", "  - ", "1. ", "   ", "> ", "| ", " | ", "|---|:-:|", "```", "```py\"x", "~~~", "`", "``",
        "**", "*", "_", "__", "~~", "***", "[", "]", "(", ")", "![", "](", "](https://a.example/", "](javascript:",
        "](data:", "](mailto:", "<", ">", "\"", "'", "&", "&quot;", "&#39;", "\\", "\n", "\n\n", "\t", "\u0000",
        "<img src=x onerror=window.__xss=1>", "<script>window.__xss=2</script>", "onmouseover=\"window.__xss=3\"",
        "<a href=javascript:window.__xss=4>", "<br>", "<br/>", "https://b.example/?a=1&b=\"2\"", "<https://c.example>",
        "[ ] ", "[x] ", "word", "snake_case", "2024. ",
    ]
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 40))) for _ in range(count)]


async def test_random_mixes_of_markdown_and_html_stay_inert(web_server, browser):
    page = await markdown_page(web_server, browser)
    await page.evaluate(MOUNT, random_documents(400, seed=14))
    await settle(page)
    assert await page.evaluate("window.__xss") is None
    assert await page.evaluate(INSPECT, ".probe") == []
    assert await page.locator(".probe").count() == 400
