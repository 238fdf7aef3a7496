"""``council db check`` and ``council runs prune`` on a real SQLite file."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import pytest

from council.cli import main
from council.cli.common import UsageError
from council.cli.db import age
from council.ranking.sheet import ReviewerHistory
from council.storage import Store
from council.storage.schema import SCHEMA_VERSION
from tests.storage.test_store import result


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "runs.db")}


def stored_runs(path: str, ages_days: dict[str, int]) -> None:
    store = Store(path)
    try:
        for run_id, days in ages_days.items():
            record = result(run_id).model_copy(update={"created_at": datetime.now(UTC) - timedelta(days=days),
                                                       "status": "complete"})
            store.save(record)
        store.update_reviewer_history(["r|openai|m"], lambda _current: {"r|openai|m": ReviewerHistory(
            count=4, mean=6.0, m2=2.0, resid_count=4, resid_m2=1.0)})
    finally:
        store.close()


def test_db_check_reports_the_schema_counts_and_integrity(capsys, env):
    stored_runs(env["COUNCIL_DB_PATH"], {"a": 1, "b": 2})
    assert main(["db", "check"], env) == 0
    out = capsys.readouterr().out
    assert f"backend: sqlite ({env['COUNCIL_DB_PATH']})" in out and f"schema version: {SCHEMA_VERSION}" in out
    assert any(line.split() == ["runs", "2", "rows"] for line in out.splitlines())
    assert "integrity check: ok" in out


def test_prune_deletes_old_runs_and_keeps_the_rest(capsys, env):
    stored_runs(env["COUNCIL_DB_PATH"], {"old": 40, "older": 90, "recent": 3})
    assert main(["runs", "prune", "--older-than", "30d"], env) == 0
    assert "pruned 2 run(s) older than 30d" in capsys.readouterr().out
    store = Store(env["COUNCIL_DB_PATH"])
    try:
        assert [r.run_id for r in store.list_runs(10)] == ["recent"]
        assert store.reviewer_history(["r|openai|m"])["r|openai|m"].count == 4, "calibration history is kept"
    finally:
        store.close()
    assert main(["runs", "prune"], env) == 2
    assert "needs --older-than" in capsys.readouterr().err


def test_ages():
    assert age("30d") == timedelta(days=30) and age(" 12h ") == timedelta(hours=12)
    assert age("2w") == timedelta(weeks=2) and age("90m") == timedelta(minutes=90)
    for bad in ("30", "0d", "-1d", "ten days", "3y"):
        with pytest.raises(UsageError):
            age(bad)


def test_db_check_and_upgrade_on_postgresql(capsys, postgres_server):
    env = {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_URL": postgres_server.create_database("cli_check")}
    assert main(["db", "check"], env) == 0
    out = capsys.readouterr().out
    assert "backend: postgresql (postgresql://council@127.0.0.1:" in out
    assert "schema version: 0" in out and "pending migrations: 1, 2, 3, 4" in out
    assert main(["db", "upgrade"], env) == 0
    out = capsys.readouterr().out
    assert "applied migration 1:" in out and f"applied migration {SCHEMA_VERSION}:" in out and \
        f"schema version: {SCHEMA_VERSION} (upgraded)" in out
    assert main(["db", "upgrade"], env) == 0
    assert "already up to date" in capsys.readouterr().out
    assert main(["db", "check"], env) == 0
    out = capsys.readouterr().out
    assert any(line.split() == ["runs", "0", "rows"] for line in out.splitlines())
    assert "integrity check: none for postgresql" in out


def test_a_password_in_the_config_file_is_refused_and_never_printed(capsys, tmp_path):
    config = tmp_path / "council.yaml"
    config.write_text("members: [{name: a, provider: simulated, model: sim}]\n"
                      "storage: {url: 'postgresql://council:hunter22@db.internal/council'}\n")
    assert main(["db", "check", "--config", str(config)], {"PATH": os.environ.get("PATH", "")}) == 2
    err = capsys.readouterr().err
    assert "storage.url: holds a password" in err and "PGPASSWORD" in err and "hunter22" not in err
