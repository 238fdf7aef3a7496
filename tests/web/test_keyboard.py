"""The page from the keyboard alone: asking, reading the answer, renaming, the phone's drawer and the API-key
dialog, checking after each step where focus landed (never lost to the page's body)."""

from __future__ import annotations

import asyncio

from playwright.async_api import expect

from council.testing.fake_llm import Step
from council.testing.scripted import CHAIRMAN_PREFIX, council_member
from tests.server.conftest import MEMBERS, quality_judge, script
from tests.web.conftest import LOOP, finished_turn, focus_lands_on, focused, open_page, tab_to
from tests.web.server import CALL_USAGE, PRICE, WEB_KEY, start_web

pytestmark = LOOP


def slow_gamma(fake) -> asyncio.Event:
    """Members that report CALL_USAGE a call; gamma answers once the event returned is set, so a run can be caught
    working (a fixed second was not always enough for the keys pressed meanwhile, on a loaded machine)."""
    gamma_answers = asyncio.Event()
    for name, quality in MEMBERS.items():
        reply = council_member(f"{name} thinks 42. quality={quality}", quality_judge)
        first = Step(release=gamma_answers, reply=reply, usage=dict(CALL_USAGE)) if name == "gamma" else None
        fake.script(f"model-{name}", *([first] if first else []), Step(reply=reply, usage=dict(CALL_USAGE)))
    return gamma_answers


async def test_ask_and_read_the_answer_from_the_keyboard(fake_llm, tmp_path, browser):
    gamma_answers = slow_gamma(fake_llm)
    runner, server = await start_web(fake_llm, tmp_path / "council.db", prices=dict.fromkeys(MEMBERS, PRICE))
    try:
        page = await open_page(browser, server.url + "/")
        await focus_lands_on(page, "#question")  # a new conversation starts in the question box
        await tab_to(page, "a:Skip to the question box", key="Shift+Tab")
        await page.keyboard.press("Enter")
        await focus_lands_on(page, "#question")
        await page.keyboard.type("Why is the sky blue?")
        await tab_to(page, "#send")
        await page.keyboard.press("Enter")
        await expect(page.locator(".turn")).to_have_count(1)
        await focus_lands_on(page, "#question")  # after Send focus goes back to the question box

        # Enter while the council works says why nothing was sent, and keeps the text.
        await page.keyboard.type("And at sunset?")
        await page.keyboard.press("Enter")
        await expect(page.locator("#composer-status")).to_contain_text("still answering")
        assert await page.locator("#question").input_value() == "And at sunset?"
        await focus_lands_on(page, "#question")
        gamma_answers.set()
        turn = await finished_turn(page)
        await expect(page.locator("#announcer")).to_contain_text(CHAIRMAN_PREFIX + "model-alpha")
        await expect(page.locator("#composer-status")).to_have_text("")
        await expect(page.locator(".turn")).to_have_count(1)

        # The cost's breakdown is a keypress away, not only a tooltip.
        await tab_to(page, "[data-testid=run-cost]", key="Shift+Tab")
        await expect(page.locator("[data-testid=run-cost]")).to_have_text("Cost $0.0210")
        await page.keyboard.press("Enter")
        assert await page.evaluate("document.activeElement.dataset.testid") == "cost-breakdown"
        await expect(turn.locator("[data-testid=cost-by-stage]")).to_be_visible()
        await expect(turn.locator("details[data-section=ranking]")).to_have_js_property("open", True)

        # A folded section opens with Enter, and its tables scroll from the keyboard.
        await tab_to(page, "summary:Peer review · 3 reviews", key="Shift+Tab")
        await page.keyboard.press("Enter")
        await expect(turn.locator("details[data-section=reviews]")).to_have_js_property("open", True)
        await page.keyboard.press("Tab")
        await focus_lands_on(page, "div:alpha's scores (scrolls sideways)")
    finally:
        await runner.cleanup()
        server.store.close()


async def test_renaming_keeps_focus_on_the_conversation(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    await page.fill("#question", "Why is the sky blue?")
    await page.press("#question", "Enter")
    await finished_turn(page)
    await tab_to(page, "button:Rename Why is the sky blue?", key="Shift+Tab")
    await page.keyboard.press("Enter")
    await focus_lands_on(page, "input:New title")
    await page.keyboard.press("Control+A")
    await page.keyboard.type("Sky colours")
    await page.keyboard.press("Enter")
    await expect(page.locator("#conversation-title")).to_have_text("Sky colours")
    await expect(page.locator(".rename-input")).to_have_count(0)
    await focus_lands_on(page, "button:Rename Sky colours")
    await page.keyboard.press("Enter")
    await page.keyboard.type("not this")
    await page.keyboard.press("Escape")
    await expect(page.locator(".rename-input")).to_have_count(0)
    await focus_lands_on(page, "button:Rename Sky colours")
    await expect(page.locator(".conversation-open")).to_have_text(["Sky colours"])


async def test_the_phone_drawer_takes_focus_and_the_page_under_it_is_inert(web_server, browser):
    page = await open_page(browser, web_server.url + "/", viewport={"width": 390, "height": 844}, is_mobile=True)
    await tab_to(page, "#sidebar-toggle")
    await page.keyboard.press("Enter")
    # At once, during the slide-in: focus is in the drawer, not left on the button behind it.
    assert await focused(page) == "#new-conversation"
    assert await page.evaluate("document.querySelector('main').inert")
    for _ in range(12):
        await page.keyboard.press("Tab")
        where = await page.evaluate("document.activeElement.closest('#sidebar') ? 'drawer' : "
                                    "document.activeElement === document.body ? 'body' : 'page'")
        assert where in {"drawer", "body"}, "Tab never leaves the open drawer for the page under it"
    await page.keyboard.press("Escape")
    await focus_lands_on(page, "#sidebar-toggle")
    assert not await page.evaluate("document.querySelector('main').inert")
    await expect(page.locator("#sidebar")).not_to_be_in_viewport()

    # Widened while open (a phone turned sideways), the page is usable again.
    await page.keyboard.press("Enter")
    await page.set_viewport_size({"width": 1280, "height": 844})
    await expect(page.locator("main")).to_have_js_property("inert", False)


async def test_escape_on_the_key_dialog_then_asking(fake_llm, tmp_path, browser):
    """Escape at load, then a question: the page asks for the key again and answers it (no null body sent)."""
    script(fake_llm)
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        page = await browser.page(server.url + "/")
        dialog = page.locator("#key-dialog")
        await expect(dialog).to_be_visible()
        await focus_lands_on(page, "#key-input")
        await page.keyboard.press("Escape")
        await expect(dialog).to_be_hidden()
        await expect(page.locator("#notice")).to_contain_text("needs an API key")
        await focus_lands_on(page, "#key-retry")  # focus goes to the way to enter the key, not the body

        await tab_to(page, "#question")
        await page.keyboard.type("Secret question?")
        await page.keyboard.press("Enter")
        await expect(dialog).to_be_visible()
        await page.keyboard.type(WEB_KEY)
        await page.keyboard.press("Enter")
        turn = await finished_turn(page)
        await expect(turn.locator("[data-testid=final-answer] .markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
        await expect(page.locator("#notice")).to_be_hidden()
        await focus_lands_on(page, "#question")
    finally:
        await runner.cleanup()
        server.store.close()


async def test_escape_on_the_key_dialog_then_entering_the_key(fake_llm, tmp_path, browser):
    script(fake_llm)
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        page = await browser.page(server.url + "/")
        await expect(page.locator("#key-dialog")).to_be_visible()
        await page.keyboard.press("Escape")
        await focus_lands_on(page, "#key-retry")
        await page.keyboard.press("Enter")
        await expect(page.locator("#key-dialog")).to_be_visible()
        await focus_lands_on(page, "#key-input")
        await page.keyboard.type(WEB_KEY)
        await page.keyboard.press("Enter")
        await page.wait_for_selector("body[data-ready=true]", state="attached")
        await expect(page.locator("#notice")).to_be_hidden()
        await expect(page.locator("#preset-choice option")).to_have_count(2)  # the options were loaded after all
        await focus_lands_on(page, "#question")
    finally:
        await runner.cleanup()
        server.store.close()
