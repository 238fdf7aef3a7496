"""``GET /metrics``: scraped in Prometheus text format after real runs, behind the API's auth unless public."""

from __future__ import annotations

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from council.storage.store import Store
from council.testing.fake_llm import Step
from council.testing.scripted import council_member
from tests.server.conftest import API_KEY, MEMBERS, quality_judge, script, serve, server_config, start_server
from tests.storage.outage import sqlite_locked_elsewhere
from tests.waiting import wait_until

AUTH = {"Authorization": f"Bearer {API_KEY}"}
QUESTION_BODY = {"model": "council", "messages": [{"role": "user", "content": "What is six times seven?"}]}


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


async def test_metrics_hold_the_runs_calls_tokens_and_queue(fake_llm):
    script(fake_llm)
    fake_llm.script("model-gamma", Step(status=500))  # gamma never answers: an upstream_error outcome
    beta = Step(reply=council_member(f"beta thinks 42. quality={MEMBERS['beta']}", quality_judge))
    fake_llm.script("model-beta", Step(status=503), beta)  # beta's first call fails once, then it answers
    runner, running = await start_server(fake_llm)
    try:
        async with aiohttp.ClientSession(headers=AUTH) as http:
            for _ in range(2):
                async with http.post(running.url + "/v1/chat/completions", json=QUESTION_BODY) as response:
                    assert response.status == 200
            async with http.get(running.url + "/metrics") as response:
                assert response.status == 200 and response.headers["Content-Type"].startswith("text/plain")
                scraped = samples(await response.text())
    finally:
        await runner.cleanup()
        running.store.close()
    assert scraped[("council_runs_started_total", ())] == 2
    assert scraped[("council_runs_finished_total", (("status", "complete"),))] == 2

    def calls(member: str, role: str, outcome: str) -> float:
        key = (("member", member), ("outcome", outcome), ("role", role))
        return scraped.get(("council_upstream_calls_total", key), 0)

    assert calls("alpha", "answer", "ok") == 2 and calls("gamma", "answer", "upstream_error") == 2
    assert calls("alpha", "review", "ok") == 2 and calls("alpha", "chairman", "ok") == 2
    assert scraped[("council_upstream_retries_total", (("member", "gamma"), ("role", "answer")))] >= 2
    assert scraped[("council_upstream_retries_total", (("member", "beta"), ("role", "answer")))] == 1
    assert scraped[("council_tokens_total", (("direction", "output"), ("member", "beta")))] > 0
    assert scraped[("council_stage_duration_seconds_count", (("stage", "answers"),))] == 2
    assert scraped[("council_queue_wait_seconds_count", ())] == 2
    assert scraped[("council_queue_depth", ())] == 0 and scraped[("council_runs_in_flight", ())] == 0


async def test_metrics_need_the_key_unless_public(fake_llm):
    script(fake_llm)
    for public, expected in ((False, 401), (True, 200)):
        runner, running = await start_server(fake_llm, metrics_public=public)
        try:
            async with aiohttp.ClientSession() as http, http.get(running.url + "/metrics") as response:
                assert response.status == expected
        finally:
            await runner.cleanup()
            running.store.close()


async def test_metrics_count_writes_waiting_for_a_locked_database_and_written_late(fake_llm, tmp_path):
    script(fake_llm)
    path = tmp_path / "runs.db"
    runner, running = await serve(fake_llm, server_config(fake_llm), Store(path, critical_wait_s=1), API_KEY)
    try:
        async with aiohttp.ClientSession(headers=AUTH) as http:
            with sqlite_locked_elsewhere(path):
                async with http.post(running.url + "/v1/chat/completions", json=QUESTION_BODY) as response:
                    assert response.status == 200
                    assert (await response.json())["council"]["stored"] is False
                async with http.get(running.url + "/metrics") as response:
                    during = samples(await response.text())
            assert during[("council_storage_pending_writes", ())] >= 1  # the run's stages (some may be in a try)
            assert during[("council_storage_writes_retried_total", ())] == 0

            async def written() -> bool:
                async with http.get(running.url + "/metrics") as response:
                    return samples(await response.text())[("council_storage_pending_writes", ())] == 0

            await wait_until(written, what="the waiting writes to be written")
            async with http.get(running.url + "/metrics") as response:
                after = samples(await response.text())
        assert len(running.store.list_runs()) == 1 and running.store.list_runs()[0].status == "complete"
    finally:
        await runner.cleanup()
        running.store.close()
    assert after[("council_storage_writes_retried_total", ())] >= during[("council_storage_pending_writes", ())]
    assert after[("council_storage_writes_dropped_total", ())] == 0
