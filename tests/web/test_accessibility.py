"""The page audited as an accessibility review would: axe-core in headless Chromium at a desktop and a phone
width, on the empty page and on an answered one with every section open, plus what axe does not check
(input borders against WCAG 1.4.11, a page that never grows sideways, the final answer in a live region)."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Locator, Page, expect

from council.testing.fake_llm import Step
from council.testing.scripted import CHAIRMAN_PREFIX, council_member
from tests.server.conftest import MEMBERS, quality_judge
from tests.web.conftest import LOOP, ask, finished_turn, open_page
from tests.web.server import PRICE, script_usage, start_web

pytestmark = LOOP

# Every rule axe runs by default: WCAG 2.x A and AA and its best practices.
AXE = Axe()

# Each visible form control's border against its own fill and the fill around it (WCAG 1.4.11: 3:1).
BORDER_CONTRAST = """() => {
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const ratio = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const fill = (el) => {
    for (let node = el; node; node = node.parentElement) {
      const colour = rgb(getComputedStyle(node).backgroundColor);
      if (colour.length === 3 || colour[3] > 0) return colour.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const controls = document.querySelectorAll("textarea, select, input[type=text], input[type=password], .attach");
  return [...controls].filter((el) => el.getClientRects().length).map((el) => {
    const border = rgb(getComputedStyle(el).borderTopColor).slice(0, 3);
    return { control: el.id || el.className, inside: ratio(border, fill(el)),
             outside: ratio(border, fill(el.parentElement)) };
  });
}"""


async def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now: rule, impact and the first few elements."""
    results = await AXE.run(page, options={"resultTypes": ["violations"]})
    return [{"rule": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [n["target"] for n in v["nodes"]][:5]} for v in results.response["violations"]]


async def low_contrast_borders(page: Page) -> list[dict[str, Any]]:
    return [c for c in await page.evaluate(BORDER_CONTRAST) if min(c["inside"], c["outside"]) < 3]


async def sideways_overflow(page: Page) -> int:
    return int(await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


async def open_every_section(turn: Locator) -> None:
    """Click each folded section of a turn open, as a reader would; none may widen the page (a phone would zoom out)."""
    folded = turn.locator("details:not([open]):not([hidden]) > summary")
    while await folded.count():
        title = await folded.first.locator(".section-title").inner_text()
        await folded.first.click()
        assert await sideways_overflow(turn.page) <= 0, f"opening {title!r} widened the page"
    await expect(turn.locator("details:not([open]):not([hidden])")).to_have_count(0)


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (1280, "dark"), (390, "light"), (390, "dark")])
async def test_axe_finds_nothing_empty_or_answered(fake_llm, tmp_path, browser, width, scheme):
    script_usage(fake_llm)
    runner, server = await start_web(fake_llm, tmp_path / "council.db", prices=dict.fromkeys(MEMBERS, PRICE))
    try:
        mobile = {"is_mobile": True, "has_touch": True} if width < 800 else {}
        page = await open_page(browser, server.url + "/", viewport={"width": width, "height": 844},
                               color_scheme=scheme, **mobile)
        missing: list[str] = []
        page.on("response", lambda response: missing.append(response.url) if response.status >= 400 else None)
        await page.wait_for_load_state("networkidle")
        assert browser.console_errors == [], "nothing fails while the page loads (a favicon included)"
        assert missing == []
        assert await axe_violations(page) == []
        await page.click("#settings-toggle")
        assert await low_contrast_borders(page) == []
        assert await axe_violations(page) == []
        await page.click("#settings-toggle")

        await ask(page, "Why is the sky blue?")
        turn = await finished_turn(page)
        await open_every_section(turn)
        await expect(turn.locator(".review").first).to_be_visible()
        await expect(turn.locator("[data-testid=cost-breakdown]")).to_be_visible()
        assert await sideways_overflow(page) <= 0, "opening every section must not widen the page"
        assert await axe_violations(page) == []
        assert await low_contrast_borders(page) == []
        # Tables that may scroll sideways can be reached and scrolled from the keyboard, and say what they hold.
        wraps = turn.locator(".table-wrap")
        assert await wraps.count() >= 4
        for wrap in await wraps.all():
            await expect(wrap).to_have_attribute("tabindex", "0")
            await expect(wrap).to_have_accessible_name(re.compile(r"\S"))
        assert browser.console_errors == []
    finally:
        await runner.cleanup()
        server.store.close()


async def test_headings_follow_one_outline(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    await ask(page, "# Why is the sky blue?")
    turn = await finished_turn(page)
    await expect(turn.get_by_role("heading", level=2)).to_have_text("You asked: # Why is the sky blue?")
    await turn.locator("details[data-section=answers] > summary").click()
    levels = await page.evaluate(
        "[...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter((h) => h.getClientRects().length)"
        ".map((h) => Number(h.tagName[1]))")
    assert levels[0] == 1 and levels.count(1) == 1
    jumps = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
    assert jumps == [], levels


async def test_the_final_answer_is_announced(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    live = page.locator("#announcer")
    await expect(live).to_have_attribute("aria-live", "polite")
    await ask(page, "Why is the sky blue?")
    await finished_turn(page)
    # The live region carries the answer itself, not only how long it took.
    await expect(live).to_contain_text("Final answer, written by the chairman, alpha:")
    await expect(live).to_contain_text(CHAIRMAN_PREFIX + "model-alpha")
    # A conversation opened again is not read out: only what arrives while the reader waits is.
    await page.reload()
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    await finished_turn(page)
    await expect(live).to_have_text("")


async def test_a_fully_blocked_run_is_said_once(fake_llm, tmp_path, browser):
    for name in MEMBERS:
        fake_llm.script(f"model-{name}",
                        Step(reply=council_member("Use card 4111 1111 1111 1111 to pay. quality=5", quality_judge)))
    runner, server = await start_web(fake_llm, tmp_path / "council.db")
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "How do I pay?")
        turn = await finished_turn(page)
        await open_every_section(turn)
        text = await turn.inner_text()
        assert "4111" not in text
        assert text.count("safety gate") == 4, text  # once for the run, once on each member's card
        await expect(turn.locator("[data-testid=run-status]")).to_contain_text("Ended in")
        await expect(turn.locator("[data-testid=degraded]")).to_have_count(0)
        await expect(turn.locator("[data-testid=final-answer]")).to_contain_text(
            "The council withheld its answer: all 3 member answers were set aside by the safety gate")
        for card in await turn.locator(".answer-card").all():
            await expect(card).to_contain_text("pii_exposure")
        await expect(page.locator("#announcer")).to_contain_text("The council withheld its answer")
        assert await axe_violations(page) == []
    finally:
        await runner.cleanup()
        server.store.close()


async def test_the_attach_button_draws_without_cjk_fonts(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    attach = page.locator("label.attach")
    await expect(attach.locator("svg")).to_have_count(1)
    assert "\uff0b" not in await page.content()
    await expect(page.get_by_label("Attach images")).to_have_count(1)


async def test_the_preset_picker_sits_beside_the_composer(web_server, browser):
    page = await open_page(browser, web_server.url + "/", viewport={"width": 390, "height": 844}, is_mobile=True)
    picker = page.locator("#composer #preset-choice")
    await expect(picker).to_be_visible()
    await expect(page.get_by_label("Council preset")).to_have_value("")
