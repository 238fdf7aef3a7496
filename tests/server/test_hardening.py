"""Abuse and fault cases of `council serve`, in process: rubric references, slow clients, CORS, storage, logs."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime

import aiohttp
import pytest

from council.config import StorageConfig
from council.errors import StorageError
from council.rubrics.load import load_rubric
from council.storage.store import Store
from council.testing.fake_llm import Step
from tests.server.conftest import API_KEY, RunningServer, health_when, script, serve, server_config, start_server
from tests.storage.test_store import result as stored_result
from tests.waiting import TIMEOUT_S, wait_until

AUTH = {"Authorization": f"Bearer {API_KEY}"}
QUESTION = [{"role": "user", "content": "What is 6 x 7?"}]


async def post(running: RunningServer, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    async with aiohttp.ClientSession(headers=headers if headers is not None else AUTH) as http, http.post(
            running.url + "/v1/chat/completions", json=body) as response:
        return response.status, await response.json()


# -- council_rubric never reaches the file system -------------------------------------------------

@pytest.mark.parametrize("reference", [
    "../../../../etc/passwd",
    "/etc/passwd",
    "/proc/self/environ",
    "/etc/shadow",
    "../config/rubrics/default.yaml",
    "default.yaml",
    "no-such-rubric",
    "default@9.9.9",
])
async def test_a_rubric_reference_that_is_not_on_offer_gets_one_and_the_same_400(server, reference):
    status, body = await post(server, {"model": "council", "messages": QUESTION, "council_rubric": reference})
    assert status == 400
    error = body["error"]
    assert error["param"] == "council_rubric" and error["code"] == "rubric_not_found"
    # Apart from echoing the reference itself, every refusal reads the same: it tells nothing about the disk.
    generic = error["message"].replace(repr(reference), "'X'")
    assert generic.startswith("council_rubric: unknown rubric 'X'; choose one of: default")
    assert "GET /v1/council/rubrics" in generic
    for leaked in ("root:", "PATH=", "not found", "YAML", "mapping", "permission", "criteria"):
        assert leaked not in generic
    assert not server.fake.requests, "no council run starts for a refused request"


async def test_every_refused_reference_gets_the_identical_message_shape(server):
    messages = set()
    for reference in ("/etc/passwd", "/etc/does-not-exist", "/proc/self/environ", "nope"):
        _status, body = await post(server, {"model": "council", "messages": QUESTION, "council_rubric": reference})
        messages.add(body["error"]["message"].replace(repr(reference), "'X'"))
    assert len(messages) == 1


async def test_a_huge_file_named_as_a_rubric_is_refused_without_being_read(server, tmp_path):
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:
        handle.truncate(60 * 1024 * 1024)  # 60 MB, sparse: reading it would take the server's memory
    status, body = await post(server, {"model": "council", "messages": QUESTION, "council_rubric": str(huge)})
    assert status == 400 and body["error"]["code"] == "rubric_not_found"


async def test_shipped_and_registered_rubrics_are_chosen_by_name(server):
    script(server.fake)
    status, body = await post(server, {"model": "council", "messages": QUESTION, "council_rubric": "code_review"})
    assert status == 200
    assert server.store.get(body["council"]["run_id"]).reproducibility.rubric_id == "code_review"

    registered = load_rubric("default", quiet=True).model_copy(update={"id": "house-style", "version": "2.0.0"})
    server.store.register_rubric(registered)
    for reference in ("house-style", "house-style@2.0.0"):
        status, body = await post(server, {"model": "council", "messages": QUESTION, "council_rubric": reference})
        assert status == 200, body
        stored = server.store.get(body["council"]["run_id"])
        assert (stored.reproducibility.rubric_id, stored.reproducibility.rubric_version) == ("house-style", "2.0.0")


async def test_the_rubric_list_names_what_can_be_chosen(server):
    server.store.register_rubric(
        load_rubric("default", quiet=True).model_copy(update={"id": "house", "version": "1.0.0"})
    )
    async with aiohttp.ClientSession(headers=AUTH) as http, http.get(server.url + "/v1/council/rubrics") as response:
        assert response.status == 200
        listed = {entry["id"]: entry for entry in (await response.json())["data"]}
    assert listed["default"]["source"] == "configured" and listed["default"]["default"] is True
    assert listed["code_review"]["source"] == "shipped"
    assert listed["house@1.0.0"]["source"] == "registered"


# -- slow and greedy clients ----------------------------------------------------------------------

async def raw_connection(running: RunningServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = running.url.removeprefix("http://").split(":")
    return await asyncio.open_connection(host, int(port))


async def test_a_half_sent_header_is_closed_after_the_header_timeout(fake_llm):
    runner, running = await start_server(fake_llm, header_timeout_s=0.5)
    try:
        reader, writer = await raw_connection(running)
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
        await writer.drain()
        # The server hangs up: EOF, well before the 75 s it used to wait.
        assert await asyncio.wait_for(reader.read(), timeout=TIMEOUT_S) == b""
        writer.close()
    finally:
        await runner.cleanup()
        running.store.close()


async def test_a_body_shorter_than_its_content_length_gets_408_and_is_closed(fake_llm):
    runner, running = await start_server(fake_llm, body_timeout_s=0.5)
    try:
        reader, writer = await raw_connection(running)
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Authorization: Bearer " + API_KEY.encode() + b"\r\nContent-Length: 400\r\n\r\n{\"model\": ")
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), timeout=TIMEOUT_S)  # read() to EOF: the server closes
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408")
        assert json.loads(body)["error"]["code"] == "request_timeout"
        writer.close()
    finally:
        await runner.cleanup()
        running.store.close()


async def test_connections_over_the_cap_are_turned_away_and_real_clients_get_in_after(fake_llm):
    script(fake_llm)
    runner, running = await start_server(fake_llm, max_connections=4)
    idle = [await raw_connection(running) for _ in range(4)]
    try:
        await wait_until(lambda: running.site.open == 4, what="the server to count the 4 idle connections")
        reader, writer = await raw_connection(running)
        refused = await asyncio.wait_for(reader.read(), timeout=TIMEOUT_S)
        assert refused.startswith(b"HTTP/1.1 503") and b"too_many_connections" in refused
        writer.close()
        for _reader, idle_writer in idle:
            idle_writer.close()
            await idle_writer.wait_closed()
        await wait_until(lambda: running.site.open == 0, what="the server to see the idle connections close")
        status, body = await post(running, {"model": "council", "messages": QUESTION})
        assert status == 200 and body["choices"][0]["message"]["content"]
    finally:
        await runner.cleanup()
        running.store.close()


# -- CORS -------------------------------------------------------------------------------------------

async def preflight(running: RunningServer, origin: str) -> aiohttp.ClientResponse:
    async with aiohttp.ClientSession() as http:
        response = await http.options(running.url + "/v1/chat/completions", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        await response.read()
        return response


async def test_cors_preflight_from_an_allowed_origin_succeeds_and_others_are_refused(fake_llm):
    script(fake_llm)
    runner, running = await start_server(fake_llm, cors_origins=["https://chat.example.com"])
    try:
        allowed = await preflight(running, "https://chat.example.com")
        assert allowed.status == 204
        assert allowed.headers["Access-Control-Allow-Origin"] == "https://chat.example.com"
        assert "POST" in allowed.headers["Access-Control-Allow-Methods"]
        assert "authorization" in allowed.headers["Access-Control-Allow-Headers"].lower()
        other = await preflight(running, "https://evil.example.net")
        assert other.status == 403 and "Access-Control-Allow-Origin" not in other.headers

        headers = {**AUTH, "Origin": "https://chat.example.com"}
        async with aiohttp.ClientSession(headers=headers) as http:
            async with http.post(running.url + "/v1/chat/completions",
                                 json={"model": "council", "messages": QUESTION}) as response:
                assert response.headers["Access-Control-Allow-Origin"] == "https://chat.example.com"
                assert "x-council-run-id" in response.headers["Access-Control-Expose-Headers"]
            async with http.post(running.url + "/v1/chat/completions",
                                 json={"model": "council", "messages": QUESTION, "stream": True}) as response:
                assert response.headers["Access-Control-Allow-Origin"] == "https://chat.example.com"
                await response.read()
    finally:
        await runner.cleanup()
        running.store.close()


async def test_without_cors_origins_a_cross_origin_preflight_is_refused(server):
    response = await preflight(server, "https://chat.example.com")
    assert response.status == 403 and "Access-Control-Allow-Origin" not in response.headers


# -- storage failures ---------------------------------------------------------------------------------

@pytest.mark.parametrize("failure", ["read_only", "full"])
async def test_a_failing_database_keeps_the_answer_and_says_it_was_not_stored(fake_llm, tmp_path, capsys, failure):
    script(fake_llm)
    db = tmp_path / "runs.db"
    store = Store(db)
    runner, running = await serve(fake_llm, server_config(fake_llm), store, API_KEY)
    try:
        # Real SQLite conditions on the server's own connections (reads and the writer's): read-only, full.
        connections = [store.db, store.db.writer_connection()]
        if failure == "read_only":
            for connection in connections:
                connection.run(lambda session: session.execute("PRAGMA query_only = 1"))
        else:
            # Cap the file, then fill it with runs until no run fits (runs are a few KB: small pages fill last).
            pages = store.db.fetchone("PRAGMA page_count")[0]
            for connection in connections:
                connection.run(lambda session: session.execute(f"PRAGMA max_page_count = {pages + 2}"))
            with pytest.raises(StorageError, match="full"):
                for index in range(10_000):
                    store.save(stored_result(f"filler-{index}"))
        status, body = await post(running, {"model": "council", "messages": QUESTION})
        assert status == 200 and body["choices"][0]["message"]["content"]
        assert body["council"]["stored"] is False
        reasons = " ".join(body["council"]["degraded_reasons"])
        assert "could not be stored" in reasons
        assert ("readonly" in reasons) if failure == "read_only" else ("full" in reasons)
        assert str(tmp_path) not in json.dumps(body)
        logged = capsys.readouterr().err
        assert "run_not_stored" in logged and str(db) in logged  # the operator sees the cause and the file
    finally:
        await runner.cleanup()
        store.close()


async def test_reading_from_a_broken_database_is_a_503_without_the_path(fake_llm, tmp_path, capsys):
    db = tmp_path / "runs.db"
    store = Store(db)
    runner, running = await serve(fake_llm, server_config(fake_llm), store, API_KEY)
    try:
        store.db.close()  # the database went away under the server
        async with aiohttp.ClientSession(headers=AUTH) as http, http.get(
                running.url + "/v1/council/runs/abc123") as response:
            assert response.status == 503
            body = await response.json()
        assert body["error"]["code"] == "storage_unavailable"
        assert str(tmp_path) not in json.dumps(body)
        assert "storage_failed" in capsys.readouterr().err
    finally:
        await runner.cleanup()
        with pytest.raises(sqlite3.ProgrammingError):
            store.db.execute("SELECT 1")


# -- the access log --------------------------------------------------------------------------------------

async def test_one_access_log_line_per_request_without_keys_or_bodies(fake_llm, capsys):
    from council.logs import configure_logging

    configure_logging("warning", "json")  # the default level: access lines still show
    script(fake_llm)
    runner, running = await start_server(fake_llm)
    try:
        capsys.readouterr()
        async with aiohttp.ClientSession(headers=AUTH) as http:
            async with http.get(running.url + "/healthz") as response:
                assert response.status == 200
            async with http.post(running.url + "/v1/chat/completions",
                                 json={"model": "council", "messages": [{"role": "user", "content": "secret-q"}]}) as r:
                run_id = r.headers["x-council-run-id"]
            async with http.get(running.url + "/v1/models", headers={"Authorization": "Bearer wrong-key"}) as r:
                assert r.status == 401
        lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if '"access"' in line]
        assert [(e["method"], e["path"], e["status"]) for e in lines] == [
            ("GET", "/healthz", 200), ("POST", "/v1/chat/completions", 200), ("GET", "/v1/models", 401)]
        assert lines[1]["run_id"] == run_id and lines[1]["latency_ms"] > 0 and lines[1]["client"] == "127.0.0.1"
        text = json.dumps(lines)
        assert API_KEY not in text and "wrong-key" not in text and "secret-q" not in text
    finally:
        await runner.cleanup()
        running.store.close()
        configure_logging()


async def test_a_slow_upstream_still_lets_health_checks_through(fake_llm):
    script(fake_llm)
    fake_llm.script("model-alpha", Step(latency_s=1.0, reply="slow alpha quality=9"))
    runner, running = await start_server(fake_llm)
    try:
        run = asyncio.ensure_future(post(running, {"model": "council", "messages": QUESTION}))
        health = await health_when(running.url, lambda h: h["active_runs"] == 1)
        assert health["tasks"] > 0 and health["status"] == "ok"
        assert (await run)[0] == 200
    finally:
        await runner.cleanup()
        running.store.close()


# -- retention -------------------------------------------------------------------------------------------

async def test_storage_keep_runs_days_prunes_old_runs_when_the_server_starts(fake_llm, tmp_path):
    store = Store(tmp_path / "runs.db")
    ancient = stored_result("ancient").model_copy(update={"created_at": datetime(2020, 1, 1, tzinfo=UTC)})
    store.save(ancient)
    store.save(stored_result("recent"))
    config = server_config(fake_llm).model_copy(update={"storage": StorageConfig(keep_runs_days=30)})
    runner, _running = await serve(fake_llm, config, store, API_KEY)
    try:
        await wait_until(lambda: store.get("ancient") is None, what="the old run to be pruned")
        assert store.get("recent") is not None
    finally:
        await runner.cleanup()
        store.close()
