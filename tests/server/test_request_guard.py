"""CSRF and DNS rebinding on a loopback server: JSON bodies only (415), loopback Host values only (421)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from council import Council
from council.config import CouncilConfig
from council.server.app import create_app
from council.server.listen import start_site
from council.storage.store import Store
from tests.server.conftest import API_KEY, RunningServer, script, server_config, start_server

AUTH = {"Authorization": f"Bearer {API_KEY}"}
QUESTION = {"model": "council", "messages": [{"role": "user", "content": "what is 6 times 7?"}]}


async def send(server: RunningServer, method: str, path: str, body: Any = None,
               headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    async with aiohttp.ClientSession() as http, http.request(
            method, server.url + path, data=data, headers={**AUTH, **(headers or {})}) as response:
        text = await response.text()
        return response.status, json.loads(text) if text else None


@pytest.fixture
async def open_server(fake_llm):
    """A server without API keys on 127.0.0.1, as `council serve` runs on defaults: the case CSRF is about."""
    script(fake_llm)
    runner, running = await start_server(fake_llm, keys=None)
    yield running
    await runner.cleanup()
    running.store.close()


# -- Content-Type -----------------------------------------------------------------------------------

@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "application/octet-stream",
                                          "application/json; charset=latin-1"])
async def test_a_chat_completion_that_is_not_json_gets_415_and_calls_no_member(open_server, content_type):
    # A page on any site can POST text/plain to 127.0.0.1 without a CORS preflight; it must start nothing.
    status, payload = await send(open_server, "POST", "/v1/chat/completions", QUESTION,
                                 {"Content-Type": content_type})
    assert status == 415
    assert set(payload["error"]) == {"message", "type", "param", "code"}
    assert payload["error"]["code"] == "unsupported_media_type"
    assert repr(content_type) in payload["error"]["message"] and "application/json" in payload["error"]["message"]
    assert open_server.fake.requests == []


async def test_a_post_without_a_content_type_gets_415_naming_its_absence(open_server):
    async with aiohttp.ClientSession() as http:
        request = http.post(open_server.url + "/v1/chat/completions", data=b"{}",
                            skip_auto_headers=["Content-Type"])
        async with request as response:
            payload = await response.json()
    assert response.status == 415
    assert "no Content-Type" in payload["error"]["message"]


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "Application/JSON;charset=UTF-8"])
async def test_json_with_or_without_a_utf8_charset_is_answered(open_server, content_type):
    status, payload = await send(open_server, "POST", "/v1/chat/completions", QUESTION,
                                 {"Content-Type": content_type})
    assert status == 200, payload
    assert payload["choices"][0]["message"]["content"]


async def test_the_page_api_refuses_form_posts_and_patches(open_server):
    status, payload = await send(open_server, "POST", "/api/conversations", {"title": "csrf"},
                                 {"Content-Type": "text/plain"})
    assert status == 415 and payload["error"]["code"] == "unsupported_media_type"
    status, listed = await send(open_server, "GET", "/api/conversations")
    assert status == 200 and listed["conversations"] == []

    status, created = await send(open_server, "POST", "/api/conversations", {"title": "mine"},
                                 {"Content-Type": "application/json"})
    assert status == 201, created
    path = f"/api/conversations/{created['id']}"
    status, payload = await send(open_server, "PATCH", path, {"title": "renamed"}, {"Content-Type": "text/plain"})
    assert status == 415
    status, payload = await send(open_server, "POST", path + "/messages", {"content": "hi"},
                                 {"Content-Type": "text/plain"})
    assert status == 415
    status, kept = await send(open_server, "GET", path)
    assert kept["title"] == "mine" and kept["messages"] == []
    assert open_server.fake.requests == []


async def test_an_unknown_route_is_still_a_404_and_a_wrong_method_a_405(open_server):
    status, payload = await send(open_server, "POST", "/v1/nothing", b"x", {"Content-Type": "text/plain"})
    assert status == 404 and payload["error"]["code"] == "not_found"
    status, payload = await send(open_server, "POST", "/healthz", b"x", {"Content-Type": "text/plain"})
    assert status == 405


# -- Host ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example",
                                  "localhost.attacker.example:80", "192.168.1.10:8000", "[::2]:8000"])
async def test_a_foreign_host_gets_421_on_every_route(open_server, host):
    # A DNS-rebinding page reaches 127.0.0.1 under its own name: the Host header still says that name.
    for method, path, body in [("GET", "/api/conversations", None), ("GET", "/v1/models", None),
                               ("GET", "/healthz", None), ("POST", "/v1/chat/completions", QUESTION)]:
        status, payload = await send(open_server, method, path, body,
                                     {"Host": host, "Content-Type": "application/json"})
        assert status == 421, (method, path)
        assert payload["error"]["code"] == "misdirected_request"
        assert repr(host) in payload["error"]["message"] and "server.allowed_hosts" in payload["error"]["message"]
    assert open_server.fake.requests == []


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "LOCALHOST:1", "127.0.0.1", "127.0.0.1:65535",
                                  "[::1]", "[::1]:8000", "127.0.0.2:80"])
async def test_loopback_hosts_with_any_port_are_served(open_server, host):
    status, payload = await send(open_server, "GET", "/api/conversations", headers={"Host": host})
    assert status == 200, payload


async def serve_with(fake_llm, bind_host: str, **server: object) -> tuple[Any, RunningServer]:
    script(fake_llm)
    config: CouncilConfig = server_config(fake_llm, **server)
    store = Store(":memory:")
    council = Council(config, store=store, environ={})
    app = create_app(config, environ={}, council=council, bind_host=bind_host)
    runner, site = await start_site(app, config.server, "127.0.0.1", 0)
    return runner, RunningServer(f"http://127.0.0.1:{site.port}", fake_llm, council, store, site)


async def test_allowed_hosts_let_a_reverse_proxy_through(fake_llm):
    runner, running = await serve_with(fake_llm, "127.0.0.1",
                                       allowed_hosts=["council.example.com", "proxy.internal:8443"])
    try:
        for host in ("council.example.com", "council.example.com:443", "Council.Example.Com", "proxy.internal:8443",
                     "localhost:8000"):
            status, payload = await send(running, "GET", "/api/conversations", headers={"Host": host})
            assert status == 200, (host, payload)
        for host in ("proxy.internal", "proxy.internal:80", "other.example.com"):
            status, _ = await send(running, "GET", "/api/conversations", headers={"Host": host})
            assert status == 421, host
    finally:
        await runner.cleanup()
        running.store.close()


async def test_a_server_bound_beyond_loopback_does_not_check_hosts(fake_llm):
    # Bound to every address it is reached by many names (and needs API keys there); allowed_hosts can narrow it.
    runner, running = await serve_with(fake_llm, "0.0.0.0")
    try:
        status, _ = await send(running, "GET", "/api/conversations", headers={"Host": "council.lan:8000"})
        assert status == 200
    finally:
        await runner.cleanup()
        running.store.close()
    runner, running = await serve_with(fake_llm, "0.0.0.0", allowed_hosts=["council.lan"])
    try:
        assert (await send(running, "GET", "/api/conversations", headers={"Host": "council.lan:8000"}))[0] == 200
        assert (await send(running, "GET", "/api/conversations", headers={"Host": "elsewhere.lan"}))[0] == 421
    finally:
        await runner.cleanup()
        running.store.close()


@pytest.mark.parametrize("entry", ["https://council.example.com", "council.example.com/path", "", "a b",
                                   "host:99999", "host:"])
def test_allowed_hosts_entries_must_be_host_values(fake_llm, entry):
    with pytest.raises(Exception, match="allowed_hosts"):
        server_config(fake_llm, allowed_hosts=[entry])
