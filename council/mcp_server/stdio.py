"""``council mcp`` over stdio, each line screened before the SDK reads it.

The SDK's stdio transport reads a line that is not a usable JSON-RPC message
as nothing at all (see :mod:`.envelope`); here such a line is answered on
stdout, and the line after it is read as usual. The SDK's transport still
does the rest, on streams handed to it; as it does when it opens them
itself, the process's own stdin and stdout are set aside while it serves
(fd 0 reads the null device, fd 1 writes to stderr), so nothing a library
prints can break the stream the client reads.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, cast

import anyio
from mcp.server import MCPServer
from mcp.server.stdio import stdio_server

from council.logs import get_logger
from council.mcp_server.envelope import envelope_error

_log = get_logger("mcp")


async def run_screened_stdio(server: MCPServer) -> None:
    """Serve ``server`` on stdin and stdout until the client closes stdin."""
    with _claimed_std_streams() as (wire_in, wire_out):
        out = _LineWriter(anyio.wrap_file(io.TextIOWrapper(wire_out, encoding="utf-8")))
        lines = _ScreenedLines(anyio.wrap_file(io.TextIOWrapper(wire_in, encoding="utf-8", errors="replace")), out)
        async with stdio_server(stdin=cast(Any, lines), stdout=cast(Any, out)) as (read_stream, write_stream):
            # What the SDK's run_stdio_async does, on these streams (it opens its own and takes none).
            lowlevel = server._lowlevel_server
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


class _LineWriter:
    """stdout for the SDK's writer and for the screen's answers: one whole line at a time, never interleaved."""

    def __init__(self, wire: anyio.AsyncFile[str]) -> None:
        self.wire = wire
        self.lock = anyio.Lock()

    async def write(self, text: str) -> None:
        """Write ``text`` (the SDK writes one message and its newline at once)."""
        async with self.lock:
            await self.wire.write(text)

    async def flush(self) -> None:
        """Send what was written."""
        async with self.lock:
            await self.wire.flush()


class _ScreenedLines:
    """The client's lines for the SDK's reader; one the SDK would misread is answered here instead."""

    def __init__(self, wire: anyio.AsyncFile[str], out: _LineWriter) -> None:
        self.wire = wire
        self.out = out

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self.wire:
            if not line.strip():  # a blank line is no message, and no mistake worth answering
                continue
            problem = envelope_error(line)
            if problem is None:
                yield line
                continue
            _log.warning("message_refused", error=problem["error"]["message"])
            await self.out.write(json.dumps(problem) + "\n")
            await self.out.flush()


@contextmanager
def _claimed_std_streams() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        with open(wire_in, "rb", closefd=False) as reader, open(wire_out, "wb", closefd=False) as writer:
            yield reader, writer
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)
