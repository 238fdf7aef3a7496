"""The page's Markdown renderer, run in Chromium: a safe subset, and everything else as escaped text."""

from __future__ import annotations

from tests.web.conftest import open_page

LINK = 'rel="noopener noreferrer nofollow" target="_blank"'
CASES = [
    (
        "Hello *world*, **bold**, _it_ and `code <b>`",
        "<p>Hello <em>world</em>, <strong>bold</strong>, <em>it</em> and <code>code &lt;b&gt;</code></p>",
    ),
    ("# Title\n\nText\nmore", "<h3>Title</h3><p>Text\nmore</p>"),
    ("- a\n- b\n  - c\n\n1. x\n2. y", "<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul><ol><li>x</li><li>y</li></ol>"),
    (
        "```js\nlet a = '<x>';\n**not bold**\n```",
        '<pre><code data-lang="js">let a = &#39;&lt;x&gt;&#39;;\n**not bold**</code></pre>',
    ),
    (
        "[ok](https://a.example/x_y_z?q=1&r=2) [bad](javascript:alert(1)) [ftp](ftp://x)",
        f'<p><a href="https://a.example/x_y_z?q=1&amp;r=2" {LINK}>ok</a> [bad](javascript:alert(1)) [ftp](ftp://x)</p>',
    ),
    ('[x](https://e.com/" onmouseover="alert(1))', "<p>[x](https://e.com/&quot; onmouseover=&quot;alert(1))</p>"),
    ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
    ('<img src=x onerror="alert(1)">', "<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</p>"),
    ("> quoted\n> more", "<blockquote><p>quoted\nmore</p></blockquote>"),
    (
        "| a | b |\n|---|:-:|\n| 1 | **2** |",
        (
            '<div class="table-wrap"><table><thead><tr><th>a</th><th>b</th></tr></thead>'
            "<tbody><tr><td>1</td><td><strong>2</strong></td></tr></tbody></table></div>"
        ),
    ),
    ("snake_case_name ~~gone~~", "<p>snake_case_name <del>gone</del></p>"),
    ("a\u0000b", "<p>a\ufffdb</p>"),
    ("***", "<hr>"),
    ("", ""),
]


async def test_markdown_subset_and_escaping(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    rendered = await page.evaluate(
        "async (sources) => { const m = await import('/static/markdown.js'); return sources.map(m.renderMarkdown); }",
        [source for source, _ in CASES])
    for (source, expected), html in zip(CASES, rendered, strict=True):
        assert html == expected, f"{source!r} rendered as {html!r}"
