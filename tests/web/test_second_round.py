"""The second round (review.rounds: 2) on the page, in real headless Chromium, live and reopened from the store.

The server runs the shipped simulated council. Its reviewers' noise is drawn afresh each run, so whether a
question deliberates at the shipped threshold varies; the tests' presets fix it: ``deliberate`` here has
``deliberate_below: 1`` (every run has a second round), ``deliberate_when_unsure`` has 0.5 (a sure question,
about 0.85-0.98, stays at one round). Simulated latency is 0 to keep runs quick.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest_asyncio
from aiohttp import web
from playwright.async_api import expect

from council import Council
from council.assets import config_dir
from council.config import load_config
from council.result import DeliberationRecord
from council.server.app import create_app
from council.server.listen import start_site
from council.storage.store import Store
from tests.web.conftest import LOOP, ask, finished_turn, open_page, to_fixed

pytestmark = LOOP

UNSURE = "How does the heart pump blood?"
SURE = "Why is the sky blue?"


@dataclass
class SimulatedServer:
    url: str
    store: Store
    runner: web.AppRunner


def simulated_config(tmp_path: Path) -> Path:
    text = (config_dir() / "simulated.yaml").read_text(encoding="utf-8")
    text = re.sub(r"latency_ms: \d+", "latency_ms: 0", text)
    preset = "    rounds: 2\n"
    assert text.count(preset) == 1, "the shipped deliberate preset sets rounds: 2"
    text = text.replace(preset, f"{preset}    deliberate_below: 1.0\n")
    text += ("  deliberate_when_unsure:\n    description: \"A second round below 0.5 confidence.\"\n"
             "    rounds: 2\n    deliberate_below: 0.5\n")
    path = tmp_path / "simulated.yaml"
    path.write_text(text, encoding="utf-8")
    return path


async def start(tmp_path: Path) -> SimulatedServer:
    config = load_config(simulated_config(tmp_path), {})
    db = tmp_path / "council.db"
    config = config.model_copy(update={"storage": config.storage.model_copy(update={"path": str(db)})})
    store = Store(db)
    app = create_app(config, environ={}, council=Council(config, store=store, environ={}))
    runner, site = await start_site(app, config.server, "127.0.0.1", 0)
    return SimulatedServer(f"http://127.0.0.1:{site.port}", store, runner)


async def stop(server: SimulatedServer) -> None:
    await server.runner.cleanup()
    server.store.close()


@pytest_asyncio.fixture(loop_scope="session")
async def simulated(tmp_path: Path) -> AsyncIterator[SimulatedServer]:
    server = await start(tmp_path)
    yield server
    await stop(server)


def signed(value: float) -> str:
    """As the page's chart.js writes a council score."""
    return f"{'+' if value > 0 else '−' if value < 0 else '±'}{to_fixed(abs(value), 2)}"


def before_after(a, b, show) -> str:
    return f"{'–' if a is None else show(a)} → {'–' if b is None else show(b)}"


async def ask_with(page, preset: str, question: str) -> None:
    await page.click("#settings-toggle")
    await page.select_option("#preset-choice", preset)
    await ask(page, question)


async def assert_second_round(turn, record, *, with_reviews: bool) -> None:
    """The second-round block says what ``record`` (the stored DeliberationRecord) holds."""
    block = turn.locator("[data-testid=second-round]")
    await expect(block).to_be_visible()
    if await block.get_attribute("open") is None:
        await block.locator("summary").first.click()  # folded once the run completed
    await expect(block.locator("[data-testid=second-round-reason]")).to_have_text(
        "Two rounds: review.deliberate_below is 1, so every run has a second round")
    decisions = block.locator("[data-testid=revisions] li")
    await expect(decisions).to_have_count(len(record.revisions))
    for revision in record.revisions:
        item = block.locator(f'[data-testid=revisions] li[data-member="{revision.member}"]')
        await expect(item).to_have_attribute("data-decision", revision.decision)
        await expect(item.locator(".revision-reason")).to_have_text(revision.reason)
    for move in record.moves:
        row = block.locator(f'[data-testid=moves] tr[data-member="{move.member}"]')
        await expect(row).to_have_attribute("data-revised", "true" if move.revised else "false")
        await expect(row.locator(".revised-mark")).to_have_count(1 if move.revised else 0)
        await expect(row.locator(".rank-move")).to_have_text(
            before_after(move.rank_before, move.rank_after, lambda rank: f"#{rank}"))
        await expect(row.locator(".score-move")).to_have_text(before_after(move.score_before, move.score_after, signed))
    await expect(block.locator("[data-testid=second-round-confidence]")).to_have_text(
        "Confidence in the top answer: "
        + before_after(record.confidence_before, record.confidence_after, lambda v: to_fixed(v, 2)))
    await expect(block.locator("[data-testid=second-round-cost]")).to_contain_text(
        f"The second round: {record.calls} calls, {record.tokens} tokens, cost unknown")
    revised = ", ".join(record.revised)
    await expect(block.locator(".section-count")).to_contain_text(f"revised: {revised}" if revised else "nobody")
    reviews = block.locator("[data-testid=second-round-reviews]")
    if with_reviews:
        await reviews.locator("summary").click()
        await expect(reviews.locator(".review")).to_have_count(4)
        for reviewer in ("atlas", "boreal", "cirrus", "delta"):
            await expect(reviews.locator(f'.review[data-reviewer="{reviewer}"] tbody tr')).to_have_count(3)


async def test_a_run_that_deliberates_shows_its_second_round_live_and_when_reopened(browser, tmp_path):
    simulated = await start(tmp_path)
    try:
        conversation, record = await _deliberate_live(simulated, browser)
    finally:
        await stop(simulated)
    # A restarted server no longer holds the run's events: the page draws it from the store.
    again = await start(tmp_path)
    try:
        page = await open_page(browser, f"{again.url}/#c={conversation}")
        turn = await finished_turn(page)
        await assert_second_round(turn, record, with_reviews=False)
    finally:
        await stop(again)


async def _deliberate_live(simulated: SimulatedServer, browser) -> tuple[str, DeliberationRecord]:
    """Ask with the deliberate preset, check the block as the run drew it; the conversation and the record."""
    page = await open_page(browser, simulated.url + "/")
    await ask_with(page, "deliberate", UNSURE)
    # The block appears as the round runs; its contents are checked once the run has ended.
    await expect(page.locator("[data-testid=second-round]")).to_be_visible()
    turn = await finished_turn(page)
    [summary] = simulated.store.list_runs()
    record = simulated.store.get(summary.run_id).deliberation
    assert record is not None and record.rounds == 2
    await assert_second_round(turn, record, with_reviews=True)
    # The peer review keeps the first round's ballots; the full ranking is the second round's.
    await expect(turn.locator('[data-section=reviews] .review')).to_have_count(4)
    await expect(turn.locator("[data-testid=ranking-round]")).to_contain_text("After the second round")
    await expect(turn.locator("[data-testid=one-round]")).to_have_count(0)
    assert await page.evaluate("document.querySelectorAll('#transcript script, #transcript img').length") == 0

    return page.url.split("#c=", 1)[1], record


async def test_a_sure_run_says_why_one_round_was_enough(simulated, browser):
    page = await open_page(browser, simulated.url + "/")
    await ask_with(page, "deliberate_when_unsure", SURE)
    turn = await finished_turn(page)
    [summary] = simulated.store.list_runs()
    record = simulated.store.get(summary.run_id).deliberation
    assert record is not None and record.rounds == 1
    await expect(turn.locator("[data-testid=one-round]")).to_have_text(
        f"One round: the first ranking was sure (confidence {record.confidence_before:.3f} >= 0.5, no tie)")
    await expect(turn.locator("[data-testid=second-round]")).to_have_count(0)


async def test_a_full_preset_run_has_no_second_round(simulated, browser):
    page = await open_page(browser, simulated.url + "/")
    await ask_with(page, "full", UNSURE)
    turn = await finished_turn(page)
    await expect(turn.locator(".ranking-row")).to_have_count(4)
    await expect(turn.locator("[data-testid=second-round]")).to_have_count(0)
    await expect(turn.locator("[data-testid=one-round]")).to_have_count(0)
    await expect(turn.locator("[data-testid=ranking-round]")).to_have_count(0)
    await expect(turn.locator("[data-section=reviews] .review")).to_have_count(4)


async def test_model_output_in_the_second_round_is_inert(fake_llm, tmp_path, browser):
    from council.presets import CouncilPreset
    from council.testing.fake_llm import Step
    from council.testing.scripted import council_member, honest_ballot, revision_reply
    from tests.server.conftest import MEMBERS, quality_judge, serve
    from tests.web.server import web_config

    probe = "<img src=x onerror=\"window.__xss='revision'\">"
    for name, quality in MEMBERS.items():
        fake_llm.script(f"model-{name}", Step(reply=council_member(
            f"{name} thinks 42. quality={quality}", quality_judge,
            review=lambda task, _request: honest_ballot(task, quality_judge, notes=f"{probe} notes"),
            revise=lambda task, _request: revision_reply(task, f"{probe} revised text. quality=9", f"{probe} why"))))
    config = web_config(fake_llm, tmp_path / "council.db")
    config = config.model_copy(update={"councils": {**config.councils, "deliberate": CouncilPreset(
        description="every run deliberates", rounds=2, deliberate_below=1.0)}})
    runner, server = await serve(fake_llm, config, Store(tmp_path / "council.db"), None)
    try:
        page = await open_page(browser, server.url + "/", bypass_csp=True)
        await ask_with(page, "deliberate", "What is six times seven?")
        turn = await finished_turn(page)
        await page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        block = turn.locator("[data-testid=second-round]")
        await expect(block.locator(".revision-reason").first).to_have_text(f"{probe} why")
        await expect(block.locator("[data-testid=second-round-reviews] td.notes").first).to_have_text(
            f"{probe} notes")
        assert await page.evaluate("window.__xss") is None
        assert await page.locator("#transcript img").count() == 0
    finally:
        await runner.cleanup()
        server.store.close()
