"""A second round over MCP, with the SDK's own client: its progress steps and ``ask_council``'s brief of it.

``council mcp`` runs over stdio on the simulated council. Whether the
``deliberate`` preset's first ranking is unsure varies run to run there,
so ``review.deliberate_below`` pins it: 1 (every run deliberates), or a
tiny threshold with the lowest tie threshold (only a tie at the top would,
and the sky question's first ranking is never under 50% sure).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.mcp_server.test_stdio import council_over_stdio

Progress = list[tuple[float, float | None, str | None]]


def with_review(simulated: dict, **review: object) -> dict:
    return {**simulated, "review": {**simulated.get("review", {}), **review}}


async def ask(tmp_path: Path, config: dict, *questions: tuple[str, str]) -> list[tuple[dict[str, Any], Progress]]:
    """Each (question, preset) asked of one ``council mcp``: the tool's answer and the progress it reported."""
    asked = []
    async with council_over_stdio(tmp_path, config) as client:
        for question, preset in questions:
            progress: Progress = []

            async def on_progress(done: float, total: float | None, message: str | None,
                                  into: Progress = progress) -> None:
                into.append((done, total, message))

            reply = await client.call_tool("ask_council", {"question": question, "preset": preset},
                                           progress_callback=on_progress)
            assert not reply.is_error, reply.content
            asked.append((reply.structured_content, progress))
    return asked


async def test_a_second_round_is_reported_as_its_own_steps_and_briefed(tmp_path, simulated):
    (two, two_progress), (full, full_progress) = await ask(
        tmp_path, with_review(simulated, deliberate_below=1.0),
        ("How does the heart pump blood?", "deliberate"), ("How does the heart pump blood?", "full"))
    assert [step for step, _, _ in two_progress] == [1, 3, 3.25, 3.75, 4]
    assert all(total == 4 for _, total, _ in two_progress), "the bar's length does not change mid-run"
    messages = [message for _, _, message in two_progress]
    assert messages[2] == ("second round: review.deliberate_below is 1, so every run has a second round; "
                           "members revising")
    assert messages[3] == "revised answers reviewed again; second ranking"
    brief = two["deliberation"]
    assert brief["rounds"] == 2 and brief["reason"].startswith("two rounds: ")
    assert brief["confidence_after"] == two["ranking_confidence"] and brief["confidence_before"] is not None
    assert sorted(m["member"] for m in brief["moves"]) == sorted(e["member"] for e in two["ranking"])
    assert set(brief["revised"]) == {m["member"] for m in brief["moves"] if m["revised"]}
    assert brief["calls"] >= 8 and brief["tokens"] > 0
    assert [step for step, _, _ in full_progress] == [1, 3, 4] and "deliberation" not in full


async def test_a_run_kept_to_one_round_reports_as_before_and_says_why(tmp_path, simulated):
    [(one, progress)] = await ask(tmp_path, with_review(simulated, deliberate_below=0.01, tie_threshold=0.5),
                                  ("Why is the sky blue?", "deliberate"))
    assert [step for step, _, _ in progress] == [1, 3, 4]
    brief = one["deliberation"]
    assert brief["rounds"] == 1 and brief["reason"].startswith("one round: the first ranking was sure")
    assert (brief["revised"], brief["moves"], brief["calls"]) == ([], [], 0)
