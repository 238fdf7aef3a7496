"""The throwaway PostgreSQL server the storage tests run on: it starts, serves databases, and leaves nothing."""

from __future__ import annotations

import psycopg

from council.testing.postgres import PostgresServer, find_pg_bindir, require_pg_bindir


def test_a_server_serves_new_databases_and_is_removed_when_stopped():
    server = PostgresServer(require_pg_bindir())
    with server:
        base = server.base_dir
        assert base is not None and (base / "data" / "PG_VERSION").exists()
        url = server.create_database("scratch")
        with psycopg.connect(url) as connection:
            assert connection.execute("SELECT current_database()").fetchone() == ("scratch",)
            assert "PostgreSQL" in connection.execute("SELECT version()").fetchone()[0]
    assert not base.exists(), "the data folder is deleted"


def test_the_binaries_are_found_where_debian_puts_them(monkeypatch, tmp_path):
    monkeypatch.setenv("COUNCIL_PG_BINDIR", str(tmp_path))
    assert find_pg_bindir() != tmp_path, "a folder without initdb and pg_ctl is not taken"
    for tool in ("initdb", "pg_ctl"):
        (tmp_path / tool).write_text("")
    assert find_pg_bindir() == tmp_path, "COUNCIL_PG_BINDIR wins when it holds both tools"
