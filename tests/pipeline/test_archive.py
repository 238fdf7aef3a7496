"""What the faces reach through the council: the run database (RunArchive), one member, the page's conversations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from council.config import load_config, simulated_config_path
from council.pipeline import SCHEMA_VERSION, Council, RunArchive
from council.rubrics import load_rubric
from council.types import ChatMessage, GenerationParams


def completion_params() -> GenerationParams:
    return GenerationParams(temperature=0.2)


def simulated(tmp_path, **kwargs: object) -> Council:
    environ = {"COUNCIL_DB_PATH": str(tmp_path / "council.db")}
    return Council(load_config(simulated_config_path(), environ), environ=environ, **kwargs)


async def test_a_councils_runs_are_read_back_through_its_archive_which_leaves_its_store_open(tmp_path):
    async with simulated(tmp_path) as council:
        result = await council.ask("Why is the sky blue?")
        runs = council.runs
        assert runs is not None
        assert (await runs.call(runs.get, result.run_id)).run_id == result.run_id
        assert [r.run_id for r in runs.recent(5)] == [result.run_id]
        assert runs.statuses([result.run_id, "nope"]) == {result.run_id: result.status}
        hour_ago = datetime.now(UTC) - timedelta(hours=1)
        assert runs.cost_since(hour_ago)[1] == 1
        assert runs.direct_calls_since(hour_ago).calls == 0
        runs.close()  # the council's store: not the archive's to close
        again = await council.ask("And at sunset?")
        assert council.runs is not None and council.runs.get(again.run_id) is not None
    assert council.runs is None  # closed with the council


async def test_an_archive_opened_on_its_own_reads_runs_and_keeps_the_rubric_registry(tmp_path):
    async with simulated(tmp_path) as council:
        result = await council.ask("Why is the sky blue?")
    with RunArchive.open(tmp_path / "council.db") as runs:
        assert runs.backend == "sqlite" and runs.path.endswith("council.db")
        assert runs.schema_version() == SCHEMA_VERSION and runs.pending_migrations() == []
        assert runs.integrity_check() == "ok" and runs.table_counts()["runs"] == 1
        assert runs.get(result.run_id) is not None
        rubric = load_rubric("default")
        assert runs.register_rubric(rubric) and not runs.register_rubric(rubric)
        assert runs.registered_rubric(rubric.id) == rubric
        assert [row[:2] for row in runs.registered_rubrics()] == [(rubric.id, rubric.version)]
        assert runs.delete_rubric(rubric.id) == 1 and runs.registered_rubric(rubric.id) is None
        assert runs.prune(timedelta(days=1)) == 0


async def test_a_member_handle_answers_and_says_what_it_cannot_relay(tmp_path):
    async with simulated(tmp_path) as council:
        member = council.member("boreal")
        assert (member.name, member.wire_format) == ("boreal", "simulated")
        assert member.relay_refusal({"messages": [], "tools": [{"type": "function", "function": {"name": "f"}}]}) \
            is None
        assert member.relay_refusal({"messages": [], "tools": [{"type": "custom", "custom": {"name": "f"}}]}) == \
            ("tools[0]", "only function tools can be translated, got 'custom'")
        completion = await member.complete([ChatMessage(role="user", content="Hello?")])
        assert completion.member == "boreal" and completion.content
        assert member.openai_finish_reason(None) == "stop" and member.unsupported_params(completion_params()) == []
        relayed, usage = await member.relay({"messages": [{"role": "user", "content": "Hello?"}]})
        assert relayed["choices"][0]["message"]["content"] and usage is not None and usage.completion_tokens
        with pytest.raises(KeyError):
            council.member("nobody")


async def test_the_pages_conversations_open_beside_the_runs_or_at_storage_without_a_store(tmp_path):
    for council in (simulated(tmp_path), simulated(tmp_path, store=False)):
        async with council:
            conversations = council.open_conversations()
            try:
                created = await conversations.create(["atlas", "boreal"], "atlas", "default", "A title")
                await conversations.add_question(created.id, "Why?", "run-1", ["atlas", "boreal"], "atlas", "default")
                await conversations.add_answer(created.id, "run-1", "Because.", "atlas")
                read = await conversations.get(created.id)
                assert read is not None and [m.content for m in read.messages] == ["Why?", "Because."]
                assert created.id in [c.id for c in await conversations.recent()]
                assert await conversations.delete(created.id) and await conversations.get(created.id) is None
            finally:
                conversations.close()
    assert (tmp_path / "council.db").exists()
