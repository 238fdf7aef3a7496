"""Malformed HTTP on a real `council serve`: raw sockets, OpenAI's error shape, one log line, never a traceback."""

from __future__ import annotations

import asyncio
import json
import signal

import pytest

from tests.server.test_serve_process import free_port, start, wait_healthy
from tests.waiting import PROCESS_S, TIMEOUT_S

HEAD = b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
TLS_CLIENT_HELLO = bytes.fromhex("16030100c4010000c00303") + bytes(range(32)) + b"\x00\x00\x02\x13\x01\x01\x00"

# name: (the bytes sent, what the error message says)
MALFORMED = {
    "bad Content-Length": (HEAD + b"Content-Length: abc\r\n\r\n", "Content-Length"),
    "negative Content-Length": (HEAD + b"Content-Length: -5\r\n\r\n", "Content-Length"),
    "Content-Length and Transfer-Encoding": (
        HEAD + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "Transfer-Encoding"),
    "header over 8 KB": (HEAD + b"X-Big: " + b"a" * 9000 + b"\r\n\r\n", "longer than 8190 bytes"),
    "URL over 8 KB": (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "longer than 8190 bytes"),
    "500 headers": (b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(500)) + b"\r\n",
                    "headers"),
    "bare LF": (b"GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n", "malformed HTTP request"),
    "TLS on the HTTP port": (TLS_CLIENT_HELLO, "https://"),
}

CONFIG = """
members:
  - {{name: m0, provider: simulated, model: sim-0}}
  - {{name: m1, provider: simulated, model: sim-1}}
  - {{name: m2, provider: simulated, model: sim-2}}
chairman: m0
logging:
  format: {format}
"""


async def serve(tmp_path, log_format: str) -> tuple[asyncio.subprocess.Process, int]:
    config = tmp_path / "council.yaml"
    config.write_text(CONFIG.format(format=log_format))
    port = free_port()
    process = await start("--config", str(config), "--port", str(port), env={"COUNCIL_DB_PATH": str(tmp_path / "s.db")})
    await wait_healthy(f"http://127.0.0.1:{port}")
    return process, port


async def exchange(port: int, raw: bytes) -> bytes:
    """Send ``raw`` on a fresh connection and read until the server closes it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout=TIMEOUT_S)
    finally:
        writer.close()


async def stderr_after_sigterm(process: asyncio.subprocess.Process) -> str:
    process.send_signal(signal.SIGTERM)
    _out, err = await asyncio.wait_for(process.communicate(), timeout=PROCESS_S)
    assert process.returncode == 0
    return err.decode()


async def test_each_malformed_request_gets_a_json_400_and_one_log_line(tmp_path):
    process, port = await serve(tmp_path, "json")
    try:
        for name, (raw, says) in MALFORMED.items():
            answer = await exchange(port, raw)
            head, _, body = answer.partition(b"\r\n\r\n")
            status_line, *header_lines = head.decode().split("\r\n")
            headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in header_lines)}
            assert status_line.split()[1] == "400", (name, answer[:300])
            assert headers["content-type"].startswith("application/json"), (name, head)
            error = json.loads(body)["error"]
            assert error["type"] == "invalid_request_error" and error["code"] == "malformed_request", name
            assert says in error["message"], (name, error["message"])
            # One line, and nothing of what was sent is echoed back.
            assert "\n" not in error["message"] and "aaaa" not in error["message"], (name, error["message"])
    finally:
        err = await stderr_after_sigterm(process)
    assert "Traceback" not in err and "Error handling request" not in err
    lines = [json.loads(line) for line in err.splitlines()]  # every line on stderr is a structured log line
    refused = [line for line in lines if line.get("component") == "access" and line.get("status") == 400]
    assert len(refused) == len(MALFORMED)
    assert all(line["client"] == "127.0.0.1" and line["error"] for line in refused)


# A NUL, an escape sequence that would colour a terminal, a right-to-left override that would disguise a name,
# and a newline that would forge a log line; percent-encoded in the URL, decoded in the path.
CONTROL_PATHS = {"/a%00b": "/a\x00b", "/esc%1B[31mred": "/esc\x1b[31mred",
                 "/bidi%E2%80%AEexe.txt": "/bidi\u202eexe.txt", "/nl%0Aforged=1": "/nl\nforged=1"}


@pytest.mark.parametrize("log_format", ["console", "json"])
async def test_control_characters_in_a_path_are_escaped_in_the_access_log(tmp_path, log_format):
    process, port = await serve(tmp_path, log_format)
    try:
        for sent in CONTROL_PATHS:
            answer = await exchange(port, f"GET {sent} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                                    .encode())
            assert answer.startswith(b"HTTP/1.1 404")
    finally:
        err = await stderr_after_sigterm(process)
    unsafe = [c for c in err if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c == "\u202e"]
    assert not unsafe, err
    lines = err.splitlines()
    assert not any(line.startswith("forged") for line in lines)
    # The 404s the paths got, told apart by their status field, not by "404" anywhere in the line (a timestamp,
    # a port or a latency may hold those digits: a /healthz poll's line once did).
    status = '"status": 404' if log_format == "json" else "status=404"
    access = [line for line in lines if "access" in line and status in line]
    assert len(access) == len(CONTROL_PATHS)
    for line, path in zip(access, CONTROL_PATHS.values(), strict=True):
        if log_format == "console":
            assert f"path={path!r}" in line, line  # escaped as Python writes a string: '\x00', '\n'
        else:
            assert json.loads(line)["path"] == path  # JSON escapes them itself
