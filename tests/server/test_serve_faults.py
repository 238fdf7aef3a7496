"""`council serve` as a real process under disconnects and a SIGTERM that outlasts the grace period."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
from pathlib import Path

import aiohttp
import pytest

from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member
from tests.server.conftest import health_when
from tests.server.test_serve_process import free_port, start, wait_healthy
from tests.waiting import PROCESS_S, wait_until

SLOW_COUNCIL = """
members:
{members}
chairman: m0
server:
  shutdown_grace_s: {grace}
  max_concurrent_runs: 400
logging:
  format: json
  level: info
"""


def slow_config(tmp_path, latency_ms: int, grace: float = 5) -> str:
    members = "\n".join(
        f"  - {{name: m{i}, provider: simulated, model: sim-{i}, persona: {{latency_ms: {latency_ms}}}}}"
        for i in range(3)
    )
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW_COUNCIL.format(members=members, grace=grace))
    return str(path)


QUESTION = {"model": "council", "messages": [{"role": "user", "content": "Why is the sea salty?"}]}


async def health(http: aiohttp.ClientSession, url: str) -> dict:
    async with http.get(url + "/healthz") as response:
        return await response.json()


def upstream_config(tmp_path, fake: FakeLLMServer) -> str:
    members = "\n".join(f"  - {{name: m{i}, provider: openai, model: model-{i}, base_url: '{fake.url}/v1'}}"
                         for i in range(3))
    path = tmp_path / "upstream.yaml"
    path.write_text(SLOW_COUNCIL.format(members=members, grace=5))
    return str(path)


@pytest.mark.parametrize("upstream", ["simulated", "http"])
async def test_disconnected_streams_leave_no_tasks_and_no_stray_output(tmp_path, fake_llm, upstream):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    if upstream == "http":
        for i in range(3):
            fake_llm.script(f"model-{i}", Step(latency_s=0.4, reply=council_member(f"m{i} says 42", lambda _t: 7)))
        config = upstream_config(tmp_path, fake_llm)
    else:
        config = slow_config(tmp_path, latency_ms=400)
    process = await start("--config", config, "--port", str(port), env={"COUNCIL_DB_PATH": str(tmp_path / "s.db")})
    try:
        await wait_healthy(url)
        async with aiohttp.ClientSession() as http:
            baseline = (await health(http, url))["tasks"]

        async def leave_early() -> None:
            # A fresh connection each time: closing it mid-stream is what a browser tab does.
            body = {**QUESTION, "stream": True}
            async with aiohttp.ClientSession() as http, http.post(url + "/v1/chat/completions", json=body) as response:
                assert response.status == 200
                await response.content.readline()  # the first chunk: the run has started

        gate = asyncio.Semaphore(50)

        async def one() -> None:
            async with gate:
                await leave_early()

        await asyncio.gather(*(one() for _ in range(300)))
        # Runs left behind finish their stages first: on a busy machine that takes a while.
        state = await health_when(url, lambda h: h["active_runs"] == 0 and h["tasks"] <= baseline, timeout_s=40)
        assert state["active_runs"] == 0 and state["tasks"] <= baseline
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 0
    lines = err.decode().splitlines()
    assert "Task was destroyed" not in err.decode()
    for number, line in enumerate(lines):
        try:
            json.loads(line)  # every line on stderr is a structured log line
        except json.JSONDecodeError:
            pytest.fail("a line on stderr is not a structured log line:\n" + "\n".join(lines[number:number + 70]))
    assert sum('"component": "access"' in line for line in lines) >= 300


async def test_sigterm_past_the_grace_period_ends_every_stream_properly(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    grace = 1.0
    db = tmp_path / "s.db"
    process = await start("--config", slow_config(tmp_path, latency_ms=20_000, grace=grace), "--port", str(port),
                          env={"COUNCIL_DB_PATH": str(db)})
    try:
        await wait_healthy(url)
        async with aiohttp.ClientSession() as http:
            opened: list[aiohttp.ClientResponse] = []
            for _ in range(4):
                response = await http.post(url + "/v1/chat/completions", json={**QUESTION, "stream": True})
                await response.content.readline()
                opened.append(response)
            plain = asyncio.ensure_future(http.post(url + "/v1/chat/completions", json=QUESTION))
            await health_when(url, lambda h: h["active_runs"] == 5)
            process.send_signal(signal.SIGTERM)
            for response in opened:
                rest = (await response.content.read()).decode()
                lines = [line for line in rest.splitlines() if line.startswith("data: ")]
                assert lines[-1] == "data: [DONE]", rest[-300:]
                error = json.loads(lines[-2].removeprefix("data: "))["error"]
                assert error["code"] == "run_interrupted" and "shutting down" in error["message"]
            answer = await plain
            assert answer.status == 503
            assert (await answer.json())["error"]["code"] == "run_interrupted"
        # The members answer after 20 s: a server that waited for them, not the grace period, is still running.
        code = await asyncio.wait_for(process.wait(), timeout=PROCESS_S)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert code == 0
    with contextlib.closing(sqlite3.connect(db)) as check:
        statuses = [status for (status,) in check.execute("SELECT status FROM runs")]
    assert statuses == ["interrupted"] * 5, "every run was cut off at the grace period and is on record as such"


def run_status(db: Path, run_id: str) -> str | None:
    """The status of ``run_id`` in the server's SQLite file, read the way another process would."""
    with contextlib.closing(sqlite3.connect(db)) as check:
        row = check.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    return None if row is None else str(row[0])


async def test_sigkill_mid_run_then_restart_marks_the_run_interrupted(tmp_path):
    db = tmp_path / "s.db"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {"COUNCIL_DB_PATH": str(db)}
    config = slow_config(tmp_path, latency_ms=30_000)
    quick = tmp_path / "quick.yaml"
    quick.write_text(SLOW_COUNCIL.format(members="\n".join(
        f"  - {{name: m{i}, provider: simulated, model: sim-{i}}}" for i in range(3)), grace=5))
    # A finished run first, on a quick council sharing the database.
    process = await start("--config", str(quick), "--port", str(port), env=env)
    try:
        await wait_healthy(url)
        async with aiohttp.ClientSession() as http, http.post(url + "/v1/chat/completions", json=QUESTION) as r:
            assert r.status == 200
            finished_id = r.headers["x-council-run-id"]
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), timeout=PROCESS_S)
    process = await start("--config", config, "--port", str(port), env=env)
    try:
        await wait_healthy(url)
        async with aiohttp.ClientSession() as http:
            response = await http.post(url + "/v1/chat/completions", json={**QUESTION, "stream": True})
            killed_id = response.headers["x-council-run-id"]
            await response.content.readline()
            await wait_until(lambda: run_status(db, killed_id) == "running", what="the run to be on record as running")
            process.kill()  # SIGKILL: no handler runs, nothing is flushed on purpose
            await process.wait()
            response.close()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        statuses = dict(check.execute("SELECT run_id, status FROM runs").fetchall())
    assert statuses == {finished_id: "complete", killed_id: "running"}

    process = await start("--config", str(quick), "--port", str(port), env=env)
    try:
        await wait_healthy(url)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{url}/v1/council/runs/{killed_id}") as r:
                killed = await r.json()
            async with http.get(f"{url}/v1/council/runs/{finished_id}") as r:
                finished = await r.json()
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), timeout=PROCESS_S)
    assert killed["status"] == "interrupted"
    assert any("found at start-up" in reason for reason in killed["degraded_reasons"])
    assert finished["status"] == "complete" and finished["final_answer"]["content"]
