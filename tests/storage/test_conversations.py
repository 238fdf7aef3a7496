"""Conversation storage, on SQLite and PostgreSQL: in the run database, beside the run store."""

from __future__ import annotations

import pytest

from council.storage.conversations import (
    DEFAULT_TITLE,
    TITLE_MAX,
    ConversationError,
    ConversationStore,
    clean_title,
)
from council.storage.store import Store
from council.types import ChatMessage


@pytest.fixture
def store(db_location):
    conversations = ConversationStore(db_location)  # a SQLite file, then a PostgreSQL database
    yield conversations
    conversations.close()


def test_create_get_and_list_newest_first(store):
    first = store.create(["a", "b"], "a", "default")
    second = store.create(["b"], None, "default", title="Named")
    assert (first.title, first.members, first.chairman, first.rubric) == (DEFAULT_TITLE, ["a", "b"], "a", "default")
    assert [c.id for c in store.list_conversations()] == [second.id, first.id]
    store.add_question(first.id, "Why?", "run-1", ["a"], "a", "default")
    assert [c.id for c in store.list_conversations()] == [first.id, second.id]  # activity moves it up
    assert store.list_conversations()[0].turns == 1
    assert store.get("missing") is None


def test_first_question_names_an_untitled_conversation(store):
    untitled = store.create(["a"], None, "default")
    named = store.create(["a"], None, "default", title="Mine")
    for conversation in (untitled, named):
        store.add_question(conversation.id, "What is\n the  answer?", "r-" + conversation.id, ["a"], None, "default")
        store.add_question(conversation.id, "Later", "s-" + conversation.id, ["a"], None, "default")
    assert store.get(untitled.id).title == "What is the answer?"
    assert store.get(named.id).title == "Mine"


def test_update_changes_only_what_is_given(store):
    conversation = store.create(["a", "b"], "a", "default")
    updated = store.update(conversation.id, title="New")
    assert (updated.title, updated.members, updated.chairman) == ("New", ["a", "b"], "a")
    updated = store.update(conversation.id, chairman=None, members=["b"], rubric="other")
    assert (updated.title, updated.members, updated.chairman, updated.rubric) == ("New", ["b"], None, "other")
    assert store.update("missing", title="x") is None
    assert store.update(conversation.id).title == "New"
    other = store.create(["a"], None, "default")
    store.update(conversation.id, title="Renamed")
    assert store.list_conversations()[0].id == other.id  # a rename is not activity


def test_a_conversation_keeps_its_preset_until_told_otherwise(store):
    conversation = store.create(["a", "b"], None, "default", preset="quick")
    assert conversation.preset == "quick" and store.get(conversation.id).preset == "quick"
    assert store.update(conversation.id, title="Renamed").preset == "quick", "left alone when not given"
    assert store.update(conversation.id, preset=None).preset is None
    assert store.list_conversations()[0].as_json()["preset"] is None
    assert store.create(["a"], "a", "default").preset is None


def test_history_holds_only_answered_exchanges(store):
    conversation = store.create(["a"], "a", "default")
    store.add_question(conversation.id, "One?", "r1", ["a"], "a", "default")
    store.add_answer(conversation.id, "r1", "Answer one", "a")
    store.add_question(conversation.id, "Two?", "r2", ["a"], "a", "default")  # its run failed: no answer
    store.add_question(conversation.id, "Three?", "r3", ["a"], "a", "default")
    store.add_answer(conversation.id, "r3", "Answer three", "b")
    loaded = store.get(conversation.id)
    assert [m.role for m in loaded.messages] == ["user", "assistant", "user", "user", "assistant"]
    assert loaded.history() == [
        ChatMessage(role="user", content="One?"),
        ChatMessage(role="assistant", content="Answer one"),
        ChatMessage(role="user", content="Three?"),
        ChatMessage(role="assistant", content="Answer three"),
    ]
    assert loaded.as_json(with_messages=True)["messages"][4]["author"] == "b"


def test_delete_takes_the_messages_and_a_late_answer_is_dropped(store):
    conversation = store.create(["a"], None, "default")
    store.add_question(conversation.id, "Q", "r1", ["a"], None, "default")
    assert store.delete(conversation.id) is True
    assert store.delete(conversation.id) is False
    store.add_answer(conversation.id, "r1", "too late", "a")
    count = store.db.fetchone("SELECT COUNT(*) FROM conversation_messages")[0]
    assert count == 0


def test_shares_the_run_database_and_survives_a_restart(db_location):
    path = db_location
    runs = Store(path)
    conversations = ConversationStore(path)
    conversation = conversations.create(["a"], None, "default")
    conversations.add_question(conversation.id, "Q", "r1", ["a"], None, "default")
    assert runs.list_runs() == []
    conversations.close()
    runs.close()
    reopened_runs = Store(path)  # the run store still opens a file holding the conversation tables
    reopened = ConversationStore(path)
    try:
        assert reopened.get(conversation.id).messages[0].content == "Q"
    finally:
        reopened.close()
        reopened_runs.close()


def test_unusable_path_is_a_conversation_error(tmp_path):
    with pytest.raises(ConversationError, match="cannot open"):
        ConversationStore(tmp_path)  # a directory


def test_clean_title():
    assert clean_title("  a\n\tb  ") == "a b"
    assert clean_title(None) == "" and clean_title("   ") == ""
    long = clean_title("x" * 500)
    assert len(long) == TITLE_MAX and long.endswith("…")
