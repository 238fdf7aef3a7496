"""How a turn reads in Chromium: the final answer first, the stages folded under it once the run is complete,
and while it runs, the stage and the members still outstanding."""

from __future__ import annotations

import asyncio

from playwright.async_api import expect

from council.testing.fake_llm import Step
from council.testing.scripted import CHAIRMAN_PREFIX, council_member
from tests.server.conftest import MEMBERS, quality_judge
from tests.web.conftest import LOOP, ask, finished_turn, open_page, to_fixed
from tests.web.server import start_web

pytestmark = LOOP

SECTIONS = ("answers", "reviews", "ranking")

# Where each part of the turn sits relative to the final answer, in document order.
ORDER = """
(turn) => {
  const final = turn.querySelector('[data-testid=final-answer]');
  const follows = (el) => Boolean(final.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  const sections = [...turn.querySelectorAll('details.run-section')];
  return Object.fromEntries(sections.map((d) => [d.dataset.section, follows(d)]));
}
"""


def reply(name: str):
    return council_member(f"{name} thinks 42. quality={MEMBERS[name]}", quality_judge)  # type: ignore[arg-type]


async def test_final_answer_leads_and_the_stages_fold(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    await ask(page, "Why is the sky blue?")
    turn = await finished_turn(page)
    final = turn.locator("[data-testid=final-answer]")
    await expect(final.locator(".markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
    await expect(final).to_be_visible()
    assert await turn.evaluate(ORDER) == dict.fromkeys(SECTIONS, True)

    # The ranking summary beside the final answer: the top members with their scores, and the agreement.
    summary = turn.locator("[data-testid=ranking-summary]")
    await expect(summary).to_be_visible()
    await expect(summary.locator("li .member-name")).to_have_text(["alpha", "beta", "gamma"])
    # The same council scores as the full ranking, best first.
    full = await turn.locator(".ranking-row .score").all_text_contents()
    assert len(full) == 3 and full[0].startswith("+")
    await expect(summary.locator("li .score")).to_have_text(full)
    # Three members each scoring the other two share no common set: the summary says so, as the full ranking does.
    await expect(summary.locator("[data-testid=summary-agreement]")).to_have_text("Agreement: not measured")
    # How sure the council is of its top answer: the stored run's figure, as the CLI says it.
    stored = web_server.store.get(await turn.get_attribute("data-run-id"))
    assert stored is not None and stored.ranking_confidence is not None and not stored.tied_for_first
    sure = f"alpha is best with {to_fixed(stored.ranking_confidence, 2)} confidence."
    await expect(summary.locator("[data-testid=summary-confidence]")).to_have_text(sure)
    await expect(turn.locator("[data-testid=confidence]")).to_have_text(sure)
    await expect(summary).to_have_text(
        "RankingCouncil score, calibrated across reviewers" + "".join(
            f"#{rank}{name}{score}" for rank, (name, score) in enumerate(zip(MEMBERS, full, strict=True), 1))
        + sure + "Agreement: not measured")
    await expect(turn.locator("[data-testid=agreement]")).to_contain_text("Agreement: not measured")
    final_box, summary_box = await final.bounding_box(), await summary.bounding_box()
    assert final_box and summary_box
    assert summary_box["x"] >= final_box["x"] + final_box["width"], "on a wide screen the summary sits beside"
    assert abs(summary_box["y"] - final_box["y"]) < 5

    # Folded once the run is complete, each saying what it holds; a click opens it.
    for name in SECTIONS:
        await expect(turn.locator(f"details[data-section={name}]")).to_have_js_property("open", False)
    answers = turn.locator("details[data-section=answers]")
    await expect(answers.locator("summary")).to_have_text("Members' answers · 3 answered")
    await expect(turn.locator("details[data-section=reviews] summary")).to_have_text("Peer review · 3 reviews")
    await expect(turn.locator("details[data-section=ranking] summary")).to_have_text("Full ranking · 3 members")
    await expect(turn.locator(".answer-card").first).to_be_hidden()
    await answers.locator("summary").click()
    await expect(answers).to_have_js_property("open", True)
    await expect(turn.locator(".answer-card")).to_have_count(3)
    for card in await turn.locator(".answer-card").all():
        await expect(card).to_be_visible()
    ranking = turn.locator("details[data-section=ranking]")
    await ranking.locator("summary").click()
    await expect(ranking.locator(".ranking-row").first).to_be_visible()
    await expect(turn.locator('.review[data-reviewer="alpha"]')).to_be_hidden()
    await turn.locator("details[data-section=reviews] summary").click()
    await expect(turn.locator('.review[data-reviewer="alpha"]')).to_be_visible()
    await expect(turn.locator("[data-testid=run-status]")).to_contain_text("Done in")

    # Rebuilt from the record after a reload, the turn reads the same way.
    await page.reload()
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    turn = await finished_turn(page)
    assert await turn.evaluate(ORDER) == dict.fromkeys(SECTIONS, True)
    for name in SECTIONS:
        await expect(turn.locator(f"details[data-section={name}]")).to_have_js_property("open", False)
    await expect(turn.locator("[data-testid=final-answer] .markdown")).to_be_visible()


async def test_narrow_screen_puts_the_summary_under_the_final_answer(web_server, browser):
    page = await open_page(browser, web_server.url + "/", viewport={"width": 390, "height": 844}, is_mobile=True)
    await ask(page, "Why is the sky blue?")
    turn = await finished_turn(page)
    final_box = await turn.locator("[data-testid=final-answer]").bounding_box()
    summary_box = await turn.locator("[data-testid=ranking-summary]").bounding_box()
    assert final_box and summary_box
    assert summary_box["y"] >= final_box["y"] + final_box["height"]
    assert await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0


async def test_a_run_in_progress_shows_its_stage_and_who_is_outstanding(fake_llm, tmp_path, browser):
    # gamma answers and reviews, and the chairman (alpha) writes, only when the test has seen the stage before:
    # each stage can be seen, however slow the machine (a fixed 1.5 s each could pass before the page looked).
    gamma_answers, gamma_reviews, chairman_writes = asyncio.Event(), asyncio.Event(), asyncio.Event()
    fake_llm.script("model-alpha", Step(reply=reply("alpha")), Step(reply=reply("alpha")),
                    Step(release=chairman_writes, reply=reply("alpha")))
    fake_llm.script("model-beta", Step(reply=reply("beta")))
    fake_llm.script("model-gamma", Step(release=gamma_answers, reply=reply("gamma")),
                    Step(release=gamma_reviews, reply=reply("gamma")))
    runner, server = await start_web(fake_llm, tmp_path / "council.db")
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "Slow one?")
        turn = page.locator(".turn").first
        status = turn.locator("[data-testid=run-status]")
        answers = turn.locator("details[data-section=answers]")
        await expect(status).to_have_text("The members are answering… Waiting for gamma.")
        await expect(answers).to_have_js_property("open", True)
        await expect(turn.locator('.answer-card[data-member="alpha"]')).to_be_visible()
        await expect(turn.locator('.answer-card[data-member="gamma"]')).to_have_attribute("data-status", "pending")
        await expect(answers.locator("summary")).to_have_text("Members' answers · 2 answered, 1 waiting")
        await expect(turn.locator("[data-testid=final-answer]")).to_be_hidden()
        gamma_answers.set()

        await expect(status).to_have_text("The members are reviewing each other's answers… 2 reviews in so far.")
        await expect(answers).to_have_js_property("open", True)
        gamma_reviews.set()
        await expect(status).to_have_text("Writing the final answer… Waiting for the chairman, alpha.")
        await expect(turn.locator("[data-testid=ranking-summary]")).to_be_visible()
        assert await turn.locator(".run.finished").count() == 0
        chairman_writes.set()

        turn = await finished_turn(page)
        await expect(status).to_contain_text("Done in")
        await expect(answers).to_have_js_property("open", False)
        await expect(turn.locator("[data-testid=final-answer] .markdown")).to_have_text(CHAIRMAN_PREFIX + "model-alpha")
    finally:
        await runner.cleanup()
        server.store.close()


async def test_a_section_opened_during_the_run_stays_open(fake_llm, tmp_path, browser):
    fake_llm.script("model-alpha", Step(reply=reply("alpha")))
    fake_llm.script("model-beta", Step(reply=reply("beta")))
    gamma_reviews = asyncio.Event()  # set once the clicks are done: the run is still working while they come
    fake_llm.script("model-gamma", Step(reply=reply("gamma")), Step(release=gamma_reviews, reply=reply("gamma")))
    runner, server = await start_web(fake_llm, tmp_path / "council.db")
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "Keep it open?")
        turn = page.locator(".turn").first
        await expect(turn.locator("[data-testid=run-waiting]")).to_have_text(" 2 reviews in so far.")
        # While gamma still reviews, the reader opens the reviews and closes and reopens the answers.
        await turn.locator("details[data-section=reviews] summary").click()
        answers = turn.locator("details[data-section=answers] summary")
        await answers.click()
        await answers.click()
        assert await turn.locator(".run.finished").count() == 0, "the clicks came while the run worked"
        gamma_reviews.set()
        turn = await finished_turn(page)
        await expect(turn.locator("details[data-section=reviews]")).to_have_js_property("open", True)
        await expect(turn.locator("details[data-section=answers]")).to_have_js_property("open", True)
        await expect(turn.locator("details[data-section=ranking]")).to_have_js_property("open", False)
    finally:
        await runner.cleanup()
        server.store.close()


async def test_failures_and_degraded_reasons_stay_in_view(fake_llm, tmp_path, browser):
    fake_llm.script("model-alpha", Step(reply=reply("alpha")), Step(reply=reply("alpha")),
                    Step(status=400, error_message="chair broke"))
    fake_llm.script("model-beta", Step(reply=reply("beta")))
    fake_llm.script("model-gamma", Step(status=500, error_message="gamma is down"))
    runner, server = await start_web(fake_llm, tmp_path / "council.db")
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "Will this work?")
        turn = await finished_turn(page)
        degraded = turn.locator("[data-testid=degraded]")
        await expect(degraded).to_be_visible()
        await expect(degraded).to_contain_text("members failed: gamma (upstream_error)")
        await expect(turn.locator("[data-testid=chairman-fallback]")).to_be_visible()
        # The folded answers still say who failed.
        answers = turn.locator("details[data-section=answers]")
        await expect(answers).to_have_js_property("open", False)
        await expect(answers.locator("summary")).to_have_text("Members' answers · 2 answered, 1 failed (gamma)")
        assert await turn.evaluate(
            "(t) => t.querySelector('[data-testid=degraded]').compareDocumentPosition("
            "t.querySelector('[data-testid=final-answer]')) & Node.DOCUMENT_POSITION_FOLLOWING") != 0

        # A run with no final answer keeps its answers open: they are all there is to read.
        for name in ("alpha", "beta"):
            fake_llm.script(f"model-{name}", Step(status=500))
        await ask(page, "And now?")
        turn = await finished_turn(page, 1)
        await expect(turn.locator("[data-testid=run-failed]")).to_be_visible()
        await expect(turn.locator("details[data-section=answers]")).to_have_js_property("open", True)
        await expect(turn.locator(".answer-card[data-status=failed]").first).to_be_visible()
    finally:
        await runner.cleanup()
        server.store.close()
