"""What runs cost, on the page: each finished turn's cost by its status line (with its breakdown), and the
conversation's total beside its title. Members on the fake report 1000 prompt and 100 completion tokens a
call, so at PRICE every call costs exactly $0.003 and a full council run (3 answers, 3 reviews, 1 chairman)
$0.021."""

from __future__ import annotations

import asyncio

from playwright.async_api import expect

from council.testing.fake_llm import Step
from council.testing.scripted import council_member
from tests.server.conftest import MEMBERS, quality_judge
from tests.web.conftest import LOOP, ask, finished_turn, open_page
from tests.web.server import CALL_USAGE, PRICE, script_usage, start_web

pytestmark = LOOP

# By stage: answers and reviews are one call per member; alpha chairs.
FULL_TITLE = ("By stage: Answers $0.0090, Peer review $0.0090, Chairman $0.0030\n"
              "By member: alpha $0.0090, beta $0.0060, gamma $0.0060")


async def open_breakdown(turn) -> None:
    """Open the full ranking section (folded once the run is complete), where the cost breakdown is."""
    await turn.locator("summary", has_text="Full ranking").click()
    await expect(turn.locator("[data-testid=cost-breakdown]")).to_be_visible()


async def rows(turn, key: str) -> list[str]:
    return await turn.locator(f"[data-testid=cost-by-{key}] tr").all_inner_texts()


async def test_each_turn_and_the_conversation_show_their_cost(fake_llm, tmp_path, browser):
    script_usage(fake_llm)
    runner, server = await start_web(fake_llm, tmp_path / "council.db", prices=dict.fromkeys(MEMBERS, PRICE))
    try:
        page = await open_page(browser, server.url + "/")
        total = page.locator("[data-testid=conversation-cost]")
        await expect(total).to_be_hidden()  # a new conversation has cost nothing yet
        await ask(page, "What does this cost?")
        first = await finished_turn(page, 0)
        cost = first.locator("[data-testid=run-status] [data-testid=run-cost]")
        await expect(cost).to_have_text("Cost $0.0210")
        await expect(cost).to_have_attribute("title", FULL_TITLE)
        await open_breakdown(first)
        assert await rows(first, "stage") == ["Answers\t$0.0090", "Peer review\t$0.0090", "Chairman\t$0.0030"]
        assert await rows(first, "member") == ["alpha\t$0.0090", "beta\t$0.0060", "gamma\t$0.0060"]
        await expect(first.locator("[data-testid=cost-unpriced]")).to_have_count(0)
        await expect(total).to_have_text("Total cost $0.0210")

        # While the second question is answered the total counts the finished turn only; it grows when it ends.
        gamma_answers = asyncio.Event()  # set once the page has been seen mid-run
        fake_llm.script("model-gamma",
                        Step(release=gamma_answers, reply=council_member("gamma thinks 42. quality=5", quality_judge),
                             usage=dict(CALL_USAGE)),
                        Step(reply=council_member("gamma thinks 42. quality=5", quality_judge), usage=dict(CALL_USAGE)))
        await ask(page, "And this one?")
        second = page.locator(".turn").nth(1)
        await expect(second.locator("[data-testid=run-waiting]")).to_contain_text("Waiting for gamma")
        await expect(total).to_have_text("Total cost $0.0210")
        await expect(second.locator("[data-testid=run-cost]")).to_be_hidden()
        gamma_answers.set()
        second = await finished_turn(page, 1)
        await expect(second.locator("[data-testid=run-cost]")).to_have_text("Cost $0.0210")
        await expect(total).to_have_text("Total cost $0.0420")

        # Rebuilt from the server after a reload: the same costs, the same total.
        await page.reload()
        await page.wait_for_selector("body[data-ready=true]", state="attached")
        await finished_turn(page, 1)
        await expect(page.locator("[data-testid=run-cost]")).to_have_text(["Cost $0.0210", "Cost $0.0210"])
        await expect(total).to_have_text("Total cost $0.0420")
        # A new conversation starts from nothing again.
        await page.click("#new-conversation")
        await expect(total).to_be_hidden()
    finally:
        await runner.cleanup()
        server.store.close()


async def test_without_prices_the_cost_is_unknown_never_zero(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    await ask(page, "What does this cost?")
    turn = await finished_turn(page)
    await expect(turn.locator("[data-testid=run-cost]")).to_have_text("cost unknown (no prices configured)")
    await expect(turn.locator("[data-testid=run-cost]")).to_have_attribute("title", "No price: alpha, beta, gamma")
    await expect(page.locator("[data-testid=conversation-cost]")).to_have_text("Total cost unknown")
    await turn.locator("summary", has_text="Full ranking").click()
    await expect(turn.locator("[data-testid=cost-unpriced]")).to_have_text(
        "No price for alpha, beta, gamma: their calls are not counted.")
    await expect(turn.locator("[data-testid=cost-by-stage]")).to_have_count(0)


async def test_a_partly_priced_council_names_the_unpriced_member(fake_llm, tmp_path, browser):
    script_usage(fake_llm)
    runner, server = await start_web(fake_llm, tmp_path / "council.db", prices={"alpha": PRICE, "beta": PRICE})
    try:
        page = await open_page(browser, server.url + "/")
        await ask(page, "What does this cost?")
        turn = await finished_turn(page)
        # alpha: answer, review and chairman; beta: answer and review; gamma's two calls have no price.
        cost = turn.locator("[data-testid=run-cost]")
        await expect(cost).to_have_text("Cost $0.0150 · partial: no price for gamma")
        await expect(cost).to_have_attribute("title", "By stage: Answers $0.0060, Peer review $0.0060, "
                                              "Chairman $0.0030\nBy member: alpha $0.0090, beta $0.0060\n"
                                              "No price: gamma")
        await open_breakdown(turn)
        assert await rows(turn, "member") == ["alpha\t$0.0090", "beta\t$0.0060"]
        await expect(turn.locator("[data-testid=cost-unpriced]")).to_have_text(
            "No price for gamma: their calls are not counted.")
        await expect(page.locator("[data-testid=conversation-cost]")).to_have_text("Total cost $0.0150 (partial)")
    finally:
        await runner.cleanup()
        server.store.close()


FORMATS = """
async (costs) => {
  const { costText, dollars } = await import('/static/run_view.js');
  return { texts: costs.map((cost) => costText(cost)), dollars: [0, 0.00004, 0.00005, 0.02099999, 12.3].map(dollars) };
}
"""


async def test_cost_wording_for_the_edge_cases(web_server, browser):
    page = await open_page(browser, web_server.url + "/")
    none: dict[str, object] = {"by_stage": {}, "by_member": {}}
    shown = await page.evaluate(FORMATS, [
        None,  # a run stored before costs were recorded
        {**none, "total_usd": None, "partial": False, "unpriced": []},  # no call was made
        {**none, "total_usd": None, "partial": True, "unpriced": ["a"]},
        {**none, "total_usd": 0.5, "partial": True, "unpriced": ["a", "b"]},
    ])
    assert shown["texts"] == ["cost not recorded", "cost unknown", "cost unknown (no prices configured)",
                              "Cost $0.5000 · partial: no price for a, b"]
    assert shown["dollars"] == ["$0.0000", "< $0.0001", "$0.0001", "$0.0210", "$12.3000"]
