"""The page on a server with API keys: it loads without one, asks once, and streams with it."""

from __future__ import annotations

from playwright.async_api import expect

from council.testing.scripted import CHAIRMAN_PREFIX
from tests.server.conftest import script
from tests.web.conftest import LOOP, ask, finished_turn
from tests.web.server import WEB_KEY, start_web

pytestmark = LOOP


async def test_key_is_asked_for_once_then_sent_with_every_call(fake_llm, tmp_path, browser):
    script(fake_llm)
    runner, server = await start_web(fake_llm, tmp_path / "council.db", keys=WEB_KEY)
    try:
        page = await browser.page()
        response = await page.goto(server.url + "/")
        assert response is not None and response.status == 200  # the page itself needs no key
        dialog = page.locator("#key-dialog")
        await expect(dialog).to_be_visible()
        await page.fill("#key-input", "not-the-key")
        await page.press("#key-input", "Enter")
        await expect(page.locator("#key-message")).to_contain_text("not accepted")
        await expect(dialog).to_be_visible()
        await page.fill("#key-input", WEB_KEY)
        await page.press("#key-input", "Enter")
        await page.wait_for_selector("body[data-ready=true]", state="attached")
        await expect(dialog).to_be_hidden()
        await expect(page.locator("#notice")).to_be_hidden()

        # Calls carry the key as a Bearer header; the event stream, as ?token=.
        streams = []
        page.on("request", lambda request: streams.append(request.url) if "/events" in request.url else None)
        await ask(page, "Secret question?")
        turn = await finished_turn(page)
        await expect(turn.locator("[data-testid=final-answer] .markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
        assert streams and all(url.endswith(f"?token={WEB_KEY}") for url in streams)
        assert await page.evaluate("localStorage.getItem('council.apiKey')") == WEB_KEY

        # A reload asks nothing: the key is kept in this browser.
        await page.reload()
        await page.wait_for_selector("body[data-ready=true]", state="attached")
        await expect(dialog).to_be_hidden()
        await finished_turn(page)

        # Forgotten, it is asked for again.
        await page.click("#forget-key")
        await page.reload()
        await expect(dialog).to_be_visible()
    finally:
        await runner.cleanup()
        server.store.close()


async def test_no_keys_means_no_prompt(web_server, browser):
    page = await browser.page(web_server.url + "/")
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    await expect(page.locator("#key-dialog")).to_be_hidden()
    await expect(page.locator("#forget-key")).to_be_hidden()
    assert await page.evaluate("localStorage.getItem('council.apiKey')") is None
