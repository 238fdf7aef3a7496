"""The listener of `council serve`: the interpreter's settings at start-up, and who gets a connection."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import weakref

import aiohttp
import pytest

from council import Council
from council.config import ServerConfig
from council.server.app import create_app
from council.server.listen import GC_YOUNG_THRESHOLD, client_key, connection_share, start_site, tune_garbage_collector
from council.storage.store import Store
from tests.server.conftest import API_KEY, script, server_config, start_server
from tests.waiting import TIMEOUT_S, wait_until

QUESTION = [{"role": "user", "content": "What is 6 x 7?"}]


class Node:
    self: Node


def test_start_up_objects_are_frozen_and_young_collections_are_rarer():
    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_freeze_count() > 1000  # modules, schemas and config built so far
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *before[1:])
        cycle = Node()
        cycle.self = cycle
        alive = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert alive() is None  # a cycle made after start-up is still collected
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


# -- each client address gets a share of the connection cap ---------------------------------------------------

async def open_idle(url: str, count: int, source: str) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """``count`` connections from ``source`` (any 127.x address is this machine) that never send a byte."""
    host, port = url.removeprefix("http://").split(":")
    return [await asyncio.open_connection(host, int(port), local_addr=(source, 0)) for _ in range(count)]


async def answer_of(reader: asyncio.StreamReader) -> tuple[int, dict, dict]:
    raw = await asyncio.wait_for(reader.read(), timeout=TIMEOUT_S)  # to EOF: a turned-away connection is closed at once
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), headers, json.loads(body)


async def still_open(connections: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> int:
    """How many of ``connections`` the server holds open (nothing sent to them, no EOF, within half a second)."""

    async def held(reader: asyncio.StreamReader) -> bool:
        try:
            await asyncio.wait_for(reader.read(), timeout=0.5)
        except TimeoutError:
            return True
        return False

    return sum(await asyncio.gather(*(held(reader) for reader, _ in connections)))


def close_all(connections: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> None:
    for _reader, writer in connections:
        writer.close()


def this_machines_address() -> str | None:
    """An address of this machine that is not loopback (no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address.startswith("127.") else address


async def flood_then_ask(flood_url: str, flooder: str, ask_url: str, asker: str) -> None:
    """700 idle sockets from ``flooder``, as in the issue; then a real request from ``asker`` must be answered."""
    flood = await open_idle(flood_url, 700, flooder)
    try:
        # The first 64 (an eighth of 512, at least 64) are held; the rest were answered and closed.
        status, headers, body = await answer_of(flood[-1][0])
        assert status == 429 and headers["Retry-After"] == "1"
        assert body["error"]["code"] == "too_many_connections" and "64 open connections" in body["error"]["message"]
        assert await still_open(flood[:-1]) == 64
        async with aiohttp.ClientSession(
                headers={"Authorization": f"Bearer {API_KEY}"},
                connector=aiohttp.TCPConnector(local_addr=(asker, 0))) as http, http.post(
                ask_url + "/v1/chat/completions", json={"model": "council", "messages": QUESTION}) as response:
            assert response.status == 200  # another client still gets in
    finally:
        close_all(flood)


async def test_one_remote_address_flooding_idle_sockets_leaves_room_for_everyone_else(fake_llm):
    address = this_machines_address()
    if address is None:
        pytest.skip("this machine has no address besides loopback")
    script(fake_llm)
    config = server_config(fake_llm)  # defaults: a 512-connection cap
    store = Store(":memory:")
    app = create_app(config, environ={"COUNCIL_API_KEYS": API_KEY}, council=Council(config, store=store, environ={}))
    runner, site = await start_site(app, config.server, "0.0.0.0", 0)  # reached from this machine's own address
    try:
        await flood_then_ask(f"http://{address}:{site.port}", address, f"http://127.0.0.1:{site.port}", "127.0.0.1")
    finally:
        await runner.cleanup()
        store.close()


async def test_with_per_client_loopback_one_local_address_cannot_hold_the_cap(fake_llm):
    # The case, reproduced on one machine: 700 sockets from 127.0.0.1 held the whole 512-connection cap.
    script(fake_llm)
    runner, running = await start_server(fake_llm, per_client_loopback=True)
    try:
        await flood_then_ask(running.url, "127.0.0.1", running.url, "127.0.0.2")
    finally:
        await runner.cleanup()
        running.store.close()


async def test_loopback_clients_are_held_to_the_cap_alone_by_default(fake_llm):
    # A reverse proxy or chat app on this machine is one address for all its users.
    script(fake_llm)
    runner, running = await start_server(fake_llm, max_connections=150)
    try:
        local = await open_idle(running.url, 120, "127.0.0.1")
        assert await still_open(local) == 120
        close_all(local)
    finally:
        await runner.cleanup()
        running.store.close()


async def test_a_client_gets_its_share_back_as_its_connections_close(fake_llm):
    script(fake_llm)
    runner, running = await start_server(fake_llm, max_connections=20, max_connections_per_client=3,
                                         per_client_loopback=True)
    try:
        first = await open_idle(running.url, 3, "127.0.0.3")
        [(reader, writer)] = await open_idle(running.url, 1, "127.0.0.3")
        assert (await answer_of(reader))[0] == 429
        writer.close()
        others = await open_idle(running.url, 3, "127.0.0.4")  # a second client has a share of its own
        assert await still_open(others) == 3
        close_all(first)
        await wait_until(lambda: "127.0.0.3" not in running.site.by_client,
                         what="the server to see 127.0.0.3's connections close")
        again = await open_idle(running.url, 3, "127.0.0.3")
        assert await still_open(again) == 3
        close_all(others + again)
    finally:
        await runner.cleanup()
        running.store.close()


async def test_the_cap_in_all_is_a_503_and_a_share_as_large_as_the_cap_turns_shares_off(fake_llm):
    script(fake_llm)
    runner, running = await start_server(fake_llm, max_connections=6, max_connections_per_client=6,
                                         per_client_loopback=True)
    try:
        held = await open_idle(running.url, 6, "127.0.0.5")
        [(reader, writer)] = await open_idle(running.url, 1, "127.0.0.6")
        status, _headers, body = await answer_of(reader)
        assert status == 503 and body["error"]["code"] == "too_many_connections"
        writer.close()
        close_all(held)
    finally:
        await runner.cleanup()
        running.store.close()


@pytest.mark.parametrize(("peer", "key"), [
    (("203.0.113.7", 5000), "203.0.113.7"),
    (("2001:db8:1:2:aaaa::1", 5000, 0, 0), "2001:db8:1:2::/64"),
    (("2001:db8:1:2:bbbb::9", 5000, 0, 0), "2001:db8:1:2::/64"),  # one host usually holds a whole /64
    (("::ffff:198.51.100.4", 5000, 0, 0), "198.51.100.4"),
    (("fe80::1%eth0", 5000, 0, 2), "fe80::/64"),
    (None, "unknown"),
])
def test_connections_are_counted_per_address_and_per_ipv6_slash_64(peer, key):
    assert client_key(peer) == key


def test_the_default_share_is_an_eighth_of_the_cap_at_least_64_and_never_more_than_the_cap():
    assert connection_share(ServerConfig()) == 64
    assert connection_share(ServerConfig(max_connections=4096)) == 512
    assert connection_share(ServerConfig(max_connections=10)) == 10
    assert connection_share(ServerConfig(max_connections=100, max_connections_per_client=5)) == 5
    assert connection_share(ServerConfig(max_connections=100, max_connections_per_client=500)) == 100
