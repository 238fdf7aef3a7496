"""The web page in a real headless Chromium, against ``council serve`` with members on the fake LLM server."""

from __future__ import annotations

import asyncio

from playwright.async_api import expect

from council.testing.fake_llm import Step
from council.testing.scripted import (
    CHAIRMAN_PREFIX,
    council_member,
    honest_ballot,
    is_chairman_prompt,
    read_review_task,
    request_messages,
)
from tests.server.conftest import MEMBERS, quality_judge, script
from tests.web.conftest import LOOP, ask, finished_turn, open_page, screenshot
from tests.web.server import start_web

pytestmark = LOOP


def member(text: str, **kwargs: object):
    """A scripted member answering ``text`` (its quality marker decides the ranking)."""
    return council_member(text, quality_judge, **kwargs)  # type: ignore[arg-type]


def chairman_requests(fake, model: str) -> list:
    return [r for r in fake.requests_for(model) if is_chairman_prompt(request_messages(r))]


async def test_ask_watch_reload_and_follow_up(web_server, browser, tmp_path):
    page = await open_page(browser, web_server.url + "/")
    await ask(page, "Why is the sky blue?")
    turn = await finished_turn(page)

    # Every member's answer, with its status and latency.
    cards = turn.locator(".answer-card")
    await expect(cards).to_have_count(3)
    for name, quality in MEMBERS.items():
        card = turn.locator(f'.answer-card[data-member="{name}"]')
        await expect(card).to_have_attribute("data-status", "ok")
        await expect(card.locator(".badge")).to_contain_text("answered ·")
        await expect(card.locator(".markdown")).to_have_text(f"{name} thinks 42. quality={quality}")
        await expect(card.locator(".safety")).to_have_text("Safety: passed")
    # Reviews, de-anonymized, with the note that reviewers saw only labels (folded until opened).
    await turn.locator("summary", has_text="Peer review").click()
    await expect(turn.locator(".review")).to_have_count(3)
    await expect(turn.locator(".review").first).to_be_visible()
    await expect(turn.locator(".note")).to_contain_text("Reviewers saw only anonymous labels")
    alpha_review = turn.locator('.review[data-reviewer="alpha"]')
    await expect(alpha_review.locator("tbody tr")).to_have_count(2)
    seen_as = await alpha_review.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert sorted(seen_as) == ["Response A", "Response B"]
    # The ranking chart: best first, a bar per member, and the per-dimension breakdown.
    rows = turn.locator(".ranking-chart .ranking-row")
    await expect(rows).to_have_count(3)
    assert [await rows.nth(i).get_attribute("data-member") for i in range(3)] == ["alpha", "beta", "gamma"]
    await expect(turn.locator(".ranking-row .bar")).to_have_count(3)
    await expect(turn.locator("[data-testid=dimension-breakdown] tbody tr")).to_have_count(3)
    await expect(turn.locator("[data-testid=agreement]")).to_contain_text("Agreement")
    await turn.locator("summary", has_text="Full ranking").click()
    await expect(turn.locator("[data-testid=bias-flags]")).to_be_visible()
    # The final answer, and who wrote it.
    final = turn.locator("[data-testid=final-answer]")
    await expect(final.locator(".markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
    await expect(final.locator(".byline")).to_have_text("Written by the chairman, alpha")
    await expect(turn.locator("[data-testid=degraded]")).to_have_count(0)
    shot = await screenshot(page, tmp_path / "web-run.png")
    assert shot.stat().st_size > 10_000

    # After a reload the conversation opens again, rebuilt from the server.
    await page.reload()
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    turn = await finished_turn(page)
    await expect(turn.locator(".answer-card[data-status=ok]")).to_have_count(3)
    await expect(turn.locator(".ranking-row")).to_have_count(3)
    await expect(turn.locator("[data-testid=final-answer] .markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
    await expect(page.locator("#conversation-title")).to_have_text("Why is the sky blue?")
    # ...and from the list, on a fresh load of the page.
    await page.goto(web_server.url + "/")
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    await expect(page.locator(".turn")).to_have_count(0)
    await page.get_by_role("button", name="Why is the sky blue?", exact=True).click()
    await finished_turn(page)

    # A follow-up sends the conversation so far: the question and the council's final answer.
    await ask(page, "And at sunset?")
    await finished_turn(page, 1)
    follow_up = next(r for r in web_server.fake.requests_for("model-beta") if r.last_user_text == "And at sunset?")
    turns = [(m["role"], m["content"]) for m in follow_up.messages if m["role"] != "system"]
    assert turns == [("user", "Why is the sky blue?"), ("assistant", CHAIRMAN_PREFIX + "model-alpha"),
                     ("user", "And at sunset?")]


async def test_narrow_dark_page_is_readable(web_server, browser, tmp_path):
    page = await open_page(browser, web_server.url + "/", viewport={"width": 390, "height": 844},
                           color_scheme="dark", is_mobile=True, has_touch=True)
    await ask(page, "Why is the sky blue?")
    turn = await finished_turn(page)
    await expect(turn.locator("[data-testid=final-answer] .markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
    # Nothing sticks out sideways, and the dark theme is on.
    overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 23, 26)"
    # The conversation list is a drawer behind a button.
    assert not await page.locator(".conversation-open").first.is_visible()
    await page.click("#sidebar-toggle")
    await expect(page.locator(".conversation-open").first).to_be_visible()
    await page.click("#sidebar-close")
    await expect(page.locator(".conversation-open").first).to_be_hidden()
    await page.click("#sidebar-toggle")
    await page.keyboard.press("Escape")
    await expect(page.locator(".conversation-open").first).to_be_hidden()
    # The theme button (in the drawer) overrides the system's choice, and is remembered.
    await page.click("#sidebar-toggle")
    await page.click("#theme-toggle")
    await expect(page.locator("#theme-toggle")).to_have_text("Theme: light")
    assert await page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(247, 247, 245)"
    await page.click("#theme-toggle")
    await expect(page.locator("#theme-toggle")).to_have_text("Theme: dark")
    await page.keyboard.press("Escape")
    await page.reload()
    await finished_turn(page)
    await expect(page.locator("#theme-toggle")).to_have_text("Theme: dark")
    assert await page.evaluate("getComputedStyle(document.body).backgroundColor") == background
    assert (await screenshot(page, tmp_path / "web-run-narrow-dark.png")).stat().st_size > 10_000


async def test_model_output_is_inert(fake_llm, tmp_path, browser):
    payload = ("XSS probe <script>window.__xss = 'script'</script>\n\n"
               "<img src=x onerror=\"window.__xss='img'\"> and <svg onload=\"window.__xss='svg'\"></svg>\n\n"
               "[click me](javascript:window.__xss='link') <a href=\"javascript:window.__xss='a'\">raw</a>\n\n"
               "**bold** and [a real link](https://example.com/a_b?x=1&y=\"2\") quality=5")
    notes = "<img src=x onerror=\"window.__xss='notes'\">"
    for name, quality in MEMBERS.items():
        text = payload if name == "gamma" else f"{name} thinks 42. quality={quality}"
        fake_llm.script(f"model-{name}", Step(reply=member(
            text, review=lambda task, _request: honest_ballot(task, quality_judge, notes=notes))))
    runner, server = await start_web(fake_llm, tmp_path / "council.db")
    try:
        # The page's content security policy is switched off: the renderer alone must keep this inert.
        page = await open_page(browser, server.url + "/", bypass_csp=True)
        await ask(page, "<img src=x onerror=\"window.__xss='question'\"> tell me")
        turn = await finished_turn(page)
        await page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        await page.wait_for_timeout(300)
        assert await page.evaluate("window.__xss") is None
        answer = turn.locator('.answer-card[data-member="gamma"] .markdown')
        await expect(answer).to_contain_text("<script>window.__xss = 'script'</script>")
        await expect(answer).to_contain_text("onerror=")
        assert await page.locator("#transcript script, #transcript img, #transcript iframe, "
                                  "#transcript .markdown svg, #sidebar img").count() == 0
        links = answer.locator("a")
        await expect(links).to_have_count(1)
        await expect(links).to_have_attribute("href", 'https://example.com/a_b?x=1&y="2"')
        assert "noopener" in (await links.get_attribute("rel") or "")
        await expect(answer.locator("strong")).to_have_text("bold")
        handlers = await page.evaluate(
            "[...document.querySelectorAll('#transcript *, #sidebar *')]"
            ".flatMap((el) => [...el.attributes].map((a) => a.name)).filter((n) => n.startsWith('on'))")
        assert handlers == []
        await expect(turn.locator(".question-bubble")).to_contain_text("<img src=x onerror=")
        await expect(turn.locator(".review td.notes").first).to_have_text(notes)
        await expect(page.locator(".conversation-open").first).to_contain_text("<img src=x")
    finally:
        await runner.cleanup()
        server.store.close()


async def test_enter_sends_and_shift_enter_adds_a_line(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    box = page.locator("#question")
    await box.click()
    await page.keyboard.type("line one")
    await page.keyboard.press("Shift+Enter")
    await page.keyboard.type("line two")
    assert await box.input_value() == "line one\nline two"
    await page.wait_for_timeout(200)
    assert await page.locator(".turn").count() == 0 and not web_server.fake.requests
    await page.keyboard.press("Enter")
    turn = await finished_turn(page)
    await expect(turn.locator(".question-bubble")).to_have_text("You asked: line one\nline two")
    assert await box.input_value() == ""
    assert web_server.fake.requests_for("model-alpha")[0].last_user_text == "line one\nline two"


async def test_rename_and_delete_conversations(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    await ask(page, "First question")
    await finished_turn(page)
    await page.click("#new-conversation")
    await ask(page, "Second question")
    await finished_turn(page)
    items = page.locator(".conversation-open")
    await expect(items).to_have_text(["Second question", "First question"])

    await page.get_by_role("button", name="Rename First question", exact=True).click()
    await page.fill(".rename-input", "Sky colours")
    await page.press(".rename-input", "Enter")
    await expect(items).to_have_text(["Second question", "Sky colours"])
    # Escape leaves the title as it was.
    await page.get_by_role("button", name="Rename Second question", exact=True).click()
    await page.fill(".rename-input", "not this")
    await page.press(".rename-input", "Escape")
    await expect(page.locator(".conversation-open", has_text="Second question")).to_have_count(1)

    page.once("dialog", lambda dialog: dialog.accept())
    await page.get_by_role("button", name="Delete Second question", exact=True).click()
    await expect(items).to_have_text(["Sky colours"])
    await expect(page.locator(".turn")).to_have_count(0)  # the open conversation went with it
    await page.reload()
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    await expect(page.locator(".conversation-open")).to_have_text(["Sky colours"])
    await page.get_by_role("button", name="Sky colours", exact=True).click()
    await expect(page.locator("#conversation-title")).to_have_text("Sky colours")
    await expect(page.locator(".question-bubble")).to_have_text("You asked: First question")


async def test_chosen_members_and_chairman_reach_the_run(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    await page.click("#settings-toggle")
    await page.get_by_role("checkbox", name="gamma").uncheck()
    await page.select_option("#chairman-choice", "beta")
    await ask(page, "Who answers?")
    turn = await finished_turn(page)
    await expect(turn.locator(".answer-card")).to_have_count(2)
    await expect(turn.locator("[data-testid=final-answer] .byline")).to_have_text("Written by the chairman, beta")
    fake = web_server.fake
    assert fake.requests_for("model-gamma") == []
    assert len(chairman_requests(fake, "model-beta")) == 1 and chairman_requests(fake, "model-alpha") == []

    # Changed on an existing conversation: no chairman, all three members, from the next question on.
    await page.get_by_role("checkbox", name="gamma").check()
    await expect(page.locator("#settings-status")).to_contain_text("Saved")
    await page.select_option("#chairman-choice", "")
    await expect(page.locator("#settings-status")).to_contain_text("Saved")
    await ask(page, "And now?")
    turn = await finished_turn(page, 1)
    await expect(turn.locator(".answer-card")).to_have_count(3)
    await expect(turn.locator("[data-testid=final-answer] .byline")).to_have_text(
        "No chairman: the top-ranked answer, by alpha")
    assert len(fake.requests_for("model-gamma")) >= 1
    assert len(chairman_requests(fake, "model-beta")) == 1 and chairman_requests(fake, "model-alpha") == []


async def test_failures_are_shown_as_failures(fake_llm, tmp_path, browser):
    fake_llm.script("model-alpha", Step(reply=member("alpha thinks 42. quality=9")),
                    Step(reply=member("alpha thinks 42. quality=9")), Step(status=400, error_message="chair broke"))
    fake_llm.script("model-beta", Step(reply=member("beta thinks 42. quality=7")))
    fake_llm.script("model-gamma", Step(status=500, error_message="gamma is down"))
    runner, server = await start_web(fake_llm, tmp_path / "council.db")
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "Will this work?")
        turn = await finished_turn(page)
        gamma = turn.locator('.answer-card[data-member="gamma"]')
        await expect(gamma).to_have_attribute("data-status", "failed")
        await expect(gamma.locator(".badge")).to_contain_text("failed: upstream error")
        await expect(gamma.locator(".failure")).to_contain_text("No answer:")
        degraded = turn.locator("[data-testid=degraded]")
        await expect(degraded).to_contain_text("Degraded run")
        await expect(degraded).to_contain_text("members failed: gamma (upstream_error)")
        await expect(degraded).to_contain_text("chairman fallback")
        await expect(turn.locator("[data-testid=chairman-fallback]")).to_contain_text(
            "Chairman fallback: chairman alpha failed"
        )
        final = turn.locator("[data-testid=final-answer]")
        await expect(final.locator(".byline")).to_have_text("Top-ranked answer, by alpha")
        await expect(final.locator(".markdown")).to_have_text("alpha thinks 42. quality=9")

        # A run with too few answers fails, and says so.
        for name in ("alpha", "beta"):
            fake_llm.script(f"model-{name}", Step(status=500))
        await ask(page, "And now?")
        turn = await finished_turn(page, 1)
        await expect(turn.locator("[data-testid=run-failed]")).to_contain_text(
            "The council could not answer: quorum not met"
        )
        await expect(turn.locator(".answer-card[data-status=failed]")).to_have_count(3)
        await expect(turn.locator("[data-testid=final-answer]")).to_be_hidden()
        assert (await screenshot(page, tmp_path / "web-failures.png")).stat().st_size > 10_000
    finally:
        await runner.cleanup()
        server.store.close()


async def test_an_answer_blocked_by_the_safety_gate_is_withheld(fake_llm, tmp_path, browser):
    script(fake_llm)
    fake_llm.script("model-gamma", Step(reply=member("Use card 4111 1111 1111 1111 to pay. quality=5")))
    runner, server = await start_web(fake_llm, tmp_path / "council.db")
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "How do I pay?")
        turn = await finished_turn(page)
        gamma = turn.locator('.answer-card[data-member="gamma"]')
        await expect(gamma).to_have_attribute("data-status", "blocked")
        await expect(gamma.locator(".badge")).to_have_text("withheld by the safety gate")
        await expect(gamma.locator("[data-testid=blocked-why]")).to_have_text(
            "Not shown and not reviewed: pii_exposure (pii.payment_card).")
        await expect(gamma).not_to_contain_text("4111")
        await expect(turn.locator(".ranking-row")).to_have_count(2)
        await expect(turn.locator("[data-testid=degraded]")).to_contain_text("only two answers survived")
    finally:
        await runner.cleanup()
        server.store.close()


async def test_reload_mid_run_replays_and_continues(fake_llm, tmp_path, browser):
    # Gamma answers when the test lets it, after the reload: with a fixed 1.5 s, a loaded machine had finished the
    # whole run before the reloaded page looked.
    gamma_answers = asyncio.Event()
    for name, quality in MEMBERS.items():
        reply = member(f"{name} thinks 42. quality={quality}")
        first = Step(release=gamma_answers, reply=reply) if name == "gamma" else Step(reply=reply)
        fake_llm.script(f"model-{name}", first, Step(reply=reply))
    # gamma is held by the event, not by time: its deadlines must outlast a reload on a loaded machine.
    runner, server = await start_web(fake_llm, tmp_path / "council.db",
                                     stages={"stage_deadline_s": 120, "member_timeout_s": 120})
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "Slow one?")
        await expect(page.locator('.answer-card[data-member="alpha"]')).to_have_attribute("data-status", "ok")
        assert await page.locator('.answer-card[data-member="gamma"]').get_attribute("data-status") == "pending"
        await page.reload()
        await page.wait_for_selector("body[data-ready=true]", state="attached")
        # The answers so far are replayed at once; the rest arrives live.
        await expect(page.locator('.answer-card[data-member="alpha"]')).to_have_attribute("data-status", "ok")
        await expect(page.locator("#send")).to_be_disabled()
        assert await page.locator('.answer-card[data-member="gamma"]').get_attribute("data-status") == "pending"
        gamma_answers.set()
        turn = await finished_turn(page)
        await expect(turn.locator(".answer-card[data-status=ok]")).to_have_count(3)
        await expect(turn.locator("[data-testid=final-answer] .markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
        await expect(page.locator("#send")).to_be_enabled()
        assert len(fake_llm.requests_for("model-gamma")) == 2  # one answer, one review: the run was not restarted
    finally:
        await runner.cleanup()
        server.store.close()


async def test_a_run_stopped_by_a_shutdown_is_shown_as_unfinished(fake_llm, tmp_path, browser):
    script(fake_llm)
    fake_llm.script("model-gamma", Step(hang=True))
    db = tmp_path / "council.db"
    runner, server = await start_web(fake_llm, db, shutdown_grace_s=0.2)
    page = await open_page(browser, server.url + "/")
    await ask(page, "Will you finish?")
    await expect(page.locator('.answer-card[data-member="alpha"]')).to_have_attribute("data-status", "ok")
    await runner.cleanup()
    server.store.close()
    turn = await finished_turn(page)
    await expect(turn.locator("[data-testid=run-error]")).to_contain_text("the server is shutting down")

    # Opened again from a restarted server, the run is what the store kept: unfinished, never complete.
    conversation = page.url.split("#c=", 1)[1]
    runner, server = await start_web(fake_llm, db)
    try:
        page = await open_page(browser, f"{server.url}/#c={conversation}")
        turn = await finished_turn(page)
        await expect(turn.locator(".alert").first).to_have_text(
            "This run did not finish: the server stopped while it ran.")
        await expect(turn.locator("[data-testid=degraded]")).to_contain_text("the run was interrupted")
        await expect(turn.locator(".answer-card")).to_have_count(0)  # stopped before the answers were stored
        await expect(turn.locator("[data-testid=final-answer]")).to_be_hidden()
        await expect(page.locator("#send")).to_be_enabled()
    finally:
        await runner.cleanup()
        server.store.close()


def review_requests(fake, model: str) -> list:
    return [r for r in fake.requests_for(model) if read_review_task(request_messages(r)) is not None]


async def test_a_preset_chosen_on_the_page_runs_its_way(web_server, browser):
    """The quick preset: every member answers, beta scores the others, alpha (the second judge) beta's; no chairman."""
    page = await open_page(browser, web_server.url + "/")
    await page.click("#settings-toggle")
    await expect(page.locator("#preset-choice option")).to_have_count(2)
    await page.select_option("#preset-choice", "quick")
    await expect(page.locator("#chairman-choice")).to_have_value("")  # the preset's council fills the pickers
    await ask(page, "Which is quickest?")
    turn = await finished_turn(page)
    await expect(turn.locator(".answer-card")).to_have_count(3)
    await expect(turn.locator("[data-testid=final-answer] .byline")).to_contain_text("No chairman")
    fake = web_server.fake
    assert len(review_requests(fake, "model-beta")) == 1, "the judge scores the others' answers in one call"
    assert len(review_requests(fake, "model-alpha")) == 1, "the second judge scores the judge's answer"
    assert review_requests(fake, "model-gamma") == []
    assert chairman_requests(fake, "model-alpha") == []
    stored = web_server.store.list_runs()
    assert len(stored) == 1 and web_server.store.get(stored[0].run_id).preset == "quick"

    # The conversation keeps its preset: a reload shows it chosen. Back to "as configured", the next run has none.
    await page.reload()
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    await page.click("#settings-toggle")
    await expect(page.locator("#preset-choice")).to_have_value("quick")
    await page.select_option("#preset-choice", "")
    await expect(page.locator("#chairman-choice")).to_have_value("alpha")
    # Said beside the picker, above the question box.
    await expect(page.locator("#composer-status")).to_contain_text("Saved")
    await ask(page, "And the full council?")
    turn = await finished_turn(page, 1)
    await expect(turn.locator("[data-testid=final-answer] .byline")).to_have_text("Written by the chairman, alpha")
    runs = {r.question: web_server.store.get(r.run_id).preset for r in web_server.store.list_runs()}
    assert runs == {"Which is quickest?": "quick", "And the full council?": None}
