"""Two real `council serve` processes on one PostgreSQL database: they share runs and agree on calibration."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import aiohttp
import psycopg

from tests.server.test_serve_process import free_port, wait_healthy

REPLICA_COUNCIL = """
members:
  - {name: m0, provider: simulated, model: sim-0, persona: {latency_ms: 5}}
  - {name: m1, provider: simulated, model: sim-1, persona: {latency_ms: 5}}
  - {name: m2, provider: simulated, model: sim-2, persona: {latency_ms: 5}}
chairman: m0
server:
  max_concurrent_runs: 64
"""
COMPLETIONS, IN_FLIGHT = 200, 16


async def start_replica(config: Path, port: int, db_url: str, log: Path) -> asyncio.subprocess.Process:
    with log.open("wb") as sink:  # a file, not a pipe: nobody reads the log while the test runs
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "council", "serve", "--config", str(config), "--port", str(port),
            env={"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_URL": db_url},
            stdout=sink, stderr=sink)


async def test_two_replicas_share_runs_and_every_review_reaches_the_calibration(postgres_server, tmp_path):
    db_url = postgres_server.create_database("replicas")
    config = tmp_path / "council.yaml"
    config.write_text(REPLICA_COUNCIL)
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    replicas = [await start_replica(config, port, db_url, tmp_path / f"replica-{n}.log")
                for n, port in enumerate(ports)]
    try:
        for url in urls:
            await wait_healthy(url)
        run_ids: list[str] = []
        slots = asyncio.Semaphore(IN_FLIGHT)

        async def ask(http: aiohttp.ClientSession, index: int) -> None:
            body = {"model": "council", "messages": [{"role": "user", "content": f"Question {index}?"}]}
            async with slots, http.post(urls[index % 2] + "/v1/chat/completions", json=body) as response:
                assert response.status == 200, await response.text()
                run_ids.append(response.headers["x-council-run-id"])

        async with aiohttp.ClientSession() as http:
            await asyncio.gather(*(ask(http, index) for index in range(COMPLETIONS)))
            assert len(set(run_ids)) == COMPLETIONS
            runs = {}
            for run_id in run_ids:  # every run, from both replicas, whichever one ran it
                bodies = []
                for url in urls:
                    async with http.get(f"{url}/v1/council/runs/{run_id}") as response:
                        assert response.status == 200, f"{run_id} not readable on {url}"
                        bodies.append(await response.json())
                assert bodies[0] == bodies[1] and bodies[0]["status"] == "complete"
                runs[run_id] = bodies[0]
    finally:
        for process in replicas:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        for process in replicas:
            await asyncio.wait_for(process.wait(), timeout=30)
    # What the reviews scored, run by run, is what the shared calibration history counted.
    scored: dict[str, int] = {}
    for run in runs.values():
        for review in run["reviews"]:
            if review["status"] == "ok":
                scored[review["reviewer"]] = scored.get(review["reviewer"], 0) + len(review["scores"])
    with psycopg.connect(db_url) as connection:
        counts = dict(connection.execute("SELECT reviewer_key, count FROM reviewer_stats").fetchall())
    assert {key.split("|")[0]: count for key, count in counts.items()} == scored
    assert sum(scored.values()) == COMPLETIONS * 3 * 2, "three reviewers scored two answers in every run"
