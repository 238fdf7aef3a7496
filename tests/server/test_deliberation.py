"""A second round on the chat endpoint, driven by the real openai SDK: its own stage in the progress, its brief.

The simulated council's reviewers draw their scores per run, so whether
the shipped ``deliberate`` preset's first ranking is unsure varies from run
to run ("How does the heart pump blood?" deliberates most of the time,
"Why is the sky blue?" almost never). The tests pin it with
``review.deliberate_below``: 1 makes every run of the preset deliberate;
with a tiny threshold and the lowest tie threshold, only a tie at the top
(a first ranking under 50% sure, never seen for the sky question) would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest

from council.config import CouncilConfig
from council.storage.store import Store
from tests.server.conftest import RunningServer, serve
from tests.storage.test_store import simulated_without_latency

UNSURE = [{"role": "user", "content": "How does the heart pump blood?"}]
SURE = [{"role": "user", "content": "Why is the sky blue?"}]
BRIEF = {"rounds", "reason", "revised", "confidence_before", "confidence_after", "moves", "calls", "tokens",
         "cost_usd"}


def simulated(**review: object) -> CouncilConfig:
    raw = simulated_without_latency().model_dump(mode="json", exclude_none=True)
    raw["review"] = {**raw.get("review", {}), **review}
    return CouncilConfig.model_validate(raw)


async def _serving(fake_llm, config: CouncilConfig) -> AsyncIterator[RunningServer]:
    runner, running = await serve(fake_llm, config, Store(":memory:"), None)
    yield running
    await runner.cleanup()
    running.store.close()


@pytest.fixture
async def always(fake_llm) -> AsyncIterator[RunningServer]:
    """The simulated council where every run of council/deliberate has a second round."""
    async for running in _serving(fake_llm, simulated(deliberate_below=1.0)):
        yield running


@pytest.fixture
async def only_on_a_tie(fake_llm) -> AsyncIterator[RunningServer]:
    """The simulated council where council/deliberate has a second round only on a tie at the top."""
    async for running in _serving(fake_llm, simulated(deliberate_below=0.01, tie_threshold=0.5)):
        yield running


async def streamed(running: RunningServer, model: str, messages: list[dict[str, str]]) -> tuple[str, str]:
    """(progress, answer) of a streamed completion: the reasoning text and the content."""
    async with openai.AsyncOpenAI(base_url=running.base_url, api_key="unused", max_retries=0) as sdk:
        stream = await sdk.chat.completions.create(model=model, messages=messages, stream=True)  # type: ignore[arg-type]
        chunks = [chunk async for chunk in stream]
    progress = "".join(c.choices[0].delta.model_extra.get("reasoning_content") or "" for c in chunks if c.choices)
    return progress, "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


async def summary_of(running: RunningServer, model: str, messages: list[dict[str, str]]) -> dict[str, Any]:
    """The ``council`` object of a non-streamed completion."""
    async with openai.AsyncOpenAI(base_url=running.base_url, api_key="unused", max_retries=0) as sdk:
        completion = await sdk.chat.completions.create(model=model, messages=messages)  # type: ignore[arg-type]
    assert completion.choices[0].message.content
    return completion.model_extra["council"]


def line_at(lines: list[str], start: str) -> int:
    """The index of the first line starting with ``start`` (fails the test when there is none)."""
    found = [i for i, line in enumerate(lines) if line.startswith(start)]
    assert found, f"no line starting {start!r} in:\n" + "\n".join(lines)
    return found[0]


async def test_a_streamed_second_round_is_its_own_stage_in_the_progress(always):
    progress, answer = await streamed(always, "council/deliberate", UNSURE)
    lines = progress.splitlines()
    stage = line_at(lines, "Second round: members read the critiques")
    first_ranking, second_ranking = line_at(lines, "Ranking: 1."), line_at(lines, "Second ranking: 1.")
    summary, final = line_at(lines, "Deliberation: two rounds: "), line_at(lines, "Writing the final answer")
    assert first_ranking < stage < second_ranking < summary < final, progress
    second_round = lines[stage + 1:second_ranking]
    decisions = [line for line in second_round if " revised its answer" in line or " kept its answer" in line]
    again = [line for line in second_round if line.endswith(" answers again")]
    assert len(decisions) == 4, "each of the four members revised or kept its answer"
    assert len(again) == 4 and all("reviewed 3 answers again" in line for line in again), second_round
    assert not any("again" in line for line in lines[:stage]), "the first round's reviews are not 'again'"
    assert "second round" in lines[summary] and "calls" in lines[summary]
    assert answer.strip(), "the chairman's answer follows the progress"


async def test_the_council_object_has_a_deliberation_brief_matching_the_stored_run(always):
    council = await summary_of(always, "council/deliberate", UNSURE)
    brief = council["deliberation"]
    stored = always.store.get(council["run_id"])
    assert stored is not None and stored.deliberation is not None
    assert set(brief) == BRIEF
    assert brief["rounds"] == 2 and brief["reason"].startswith("two rounds: ")
    assert brief["revised"] == stored.deliberation.revised
    assert brief["confidence_after"] == council["ranking_confidence"] == stored.ranking_confidence
    assert brief["confidence_before"] == stored.deliberation.first_round.ranking_confidence
    assert {m["member"] for m in brief["moves"]} == {e["member"] for e in council["ranking"]}
    assert all(m["rank_after"] == next(e["rank"] for e in council["ranking"] if e["member"] == m["member"])
               for m in brief["moves"]), "the moves end where the run's (second) ranking stands"
    assert brief["calls"] == stored.deliberation.calls >= 8 and brief["tokens"] > 0, "four revisions, four reviews"


async def test_a_run_kept_to_one_round_says_why_and_shows_no_second_round(only_on_a_tie):
    progress, _answer = await streamed(only_on_a_tie, "council/deliberate", SURE)
    lines = progress.splitlines()
    summary = line_at(lines, "Deliberation: one round: ")
    assert line_at(lines, "Ranking: 1.") < summary < line_at(lines, "Writing the final answer")
    assert not [line for line in lines if line.startswith(("Second round", "Second ranking"))
                or " again" in line or " its answer" in line], progress
    brief = (await summary_of(only_on_a_tie, "council/deliberate", SURE))["deliberation"]
    assert brief["rounds"] == 1 and brief["reason"].startswith("one round: the first ranking was sure")
    assert (brief["revised"], brief["moves"], brief["calls"], brief["confidence_after"]) == ([], [], 0, None)


async def test_a_council_without_rounds_has_no_deliberation_text_or_key(always):
    progress, answer = await streamed(always, "council/full", UNSURE)
    assert answer.strip() and "Ranking: 1." in progress
    assert "Second round" not in progress and "Deliberation" not in progress and " again" not in progress
    council = await summary_of(always, "council/full", UNSURE)
    assert "deliberation" not in council and council["preset"] == "full"
