"""The rubric registry on SQLite and PostgreSQL: versions kept, a latest pointer per id, delete as dataknobs does it.

Built from dataknobs' end-to-end example: its quiz_quality rubric registered,
read (latest and a given version), updated, listed and deleted.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from council import load_rubric
from council.cli import main
from council.errors import StorageError
from council.rubrics import register_check
from council.storage import Store
from council.storage.schema import MIGRATIONS, upgrade

QUIZ = str(Path(__file__).parents[1] / "rubrics" / "fixtures" / "seeds" / "dataknobs_quiz_quality.yaml")


@register_check("scoring:check_question_count")
def check_question_count(content: dict) -> str:
    """The seed's scoring function, registered as its example registers it."""
    return "pass" if len(content.get("questions", [])) >= 5 else "fail"


def quiz_versions():
    first = load_rubric(QUIZ, quiet=True)
    return first, first.model_copy(update={"version": "1.1.0", "pass_threshold": 0.8})


@pytest.fixture
def store(db_location):
    opened = Store(db_location)
    yield opened
    opened.close()


def test_delete_removes_the_latest_pointer_and_keeps_every_version(store):
    v1, v2 = quiz_versions()
    assert store.register_rubric(v1)
    store.update_rubric(v2)
    assert store.get_rubric("quiz_quality") == v2
    assert store.delete_rubric("quiz_quality") == 2, "both versions are kept"
    assert store.get_rubric("quiz_quality") is None, "the id alone no longer resolves"
    assert store.get_rubric("quiz_quality@1.0.0") == v1 and store.get_rubric("quiz_quality@1.1.0") == v2
    assert store.list_rubrics() == [] and store.rubrics_for_target("content") == []
    assert [(r[1], r[3]) for r in store.list_rubrics(include_deleted=True)] == [("1.0.0", True), ("1.1.0", True)]
    assert store.get_rubric("quiz_quality", include_deleted=True) == v2, "for show: the newest kept"
    assert store.delete_rubric("quiz_quality") == 0, "no pointer left to remove"
    with pytest.raises(StorageError, match="not registered"):
        store.update_rubric(v2.model_copy(update={"version": "1.2.0"}))
    assert store.register_rubric(v1), "registering again restores the pointer"
    assert store.get_rubric("quiz_quality") == v2, "to the newest version, not the one just registered"
    assert not store.register_rubric(v1), "now nothing changes"


def test_withdrawing_one_version_moves_the_pointer(store):
    v1, v2 = quiz_versions()
    store.register_rubric(v1)
    store.register_rubric(v2)
    assert store.delete_rubric("quiz_quality@1.1.0") == 1
    assert store.get_rubric("quiz_quality") == v1
    assert store.get_rubric("quiz_quality@1.1.0") == v2, "withdrawn, still readable for audit"
    assert [r[1] for r in store.list_rubrics()] == ["1.0.0"]
    assert store.delete_rubric("quiz_quality@1.0.0") == 1
    assert store.get_rubric("quiz_quality") is None
    assert store.register_rubric(v2), "registering a withdrawn version brings it back"
    assert store.get_rubric("quiz_quality") == v2


def test_an_older_database_gets_pointers_for_what_it_offered(db_location):
    v1, v2 = quiz_versions()
    store = Store(db_location)
    try:
        store.register_rubric(v1)
        store.register_rubric(v2)
        store.delete_rubric("quiz_quality@1.1.0")
        # As a database of schema 10 held them: no pointer table; what the old delete did shows in deleted_at.
        store.db.transaction(lambda session: (session.execute("DROP TABLE rubric_latest"),
                                      session.execute("DELETE FROM council_schema WHERE version >= 11")))
        store.db.schema_checked = False
        assert [m.version for m in upgrade(store.db)] == [m.version for m in MIGRATIONS if m.version >= 11]
        assert store.get_rubric("quiz_quality") == v1
    finally:
        store.close()


def test_the_delete_command_says_what_it_kept(capsys, tmp_path):
    env = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "registry.db")}
    assert main(["rubric", "register", QUIZ], env) == 0
    capsys.readouterr()
    assert main(["rubric", "delete", "quiz_quality"], env) == 0
    assert ("quiz_quality: latest pointer removed; 1 version(s) kept for audit (each still usable as "
            "quiz_quality@VERSION") in capsys.readouterr().out
    assert main(["rubric", "show", "quiz_quality@1.0.0"], env) == 0
    assert '"id": "quiz_quality"' in capsys.readouterr().out
    assert main(["rubric", "list", "--all"], env) == 0
    assert "registered: quiz_quality@1.0.0" in capsys.readouterr().out
    assert main(["rubric", "delete", "quiz_quality"], env) == 2
    assert "no registered rubric 'quiz_quality' to delete" in capsys.readouterr().err
