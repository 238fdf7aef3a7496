"""A council's own HTTP session, kept open between calls and closed with its event loop.

A script that asks one question after another without ``async with``
should not pay a new connection (a TLS handshake against a real provider)
for every stage of every question, so the session outlives each call. It
belongs to the event loop it was made in: it is closed by
:meth:`KeptSession.aclose`, when that loop shuts down (``asyncio.run``
closes it after the script's last line, quietly), or when the council is
collected; a call from another loop (a second ``asyncio.run``) gets a new
session.

It knows nothing of members or runs: only the transport and its loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator

from council.config import TransportConfig
from council.transport.http import Transport


async def _close_with_loop(transport: Transport) -> AsyncGenerator[None, None]:
    """Parked at its ``yield`` until the loop shuts down its async generators (or it is collected)."""
    try:
        yield
    finally:
        await transport.aclose()


class KeptSession:
    """The transport a council made itself, one per event loop, open until closed or its loop ends."""

    def __init__(self, config: TransportConfig) -> None:
        self._config = config
        self._transport: Transport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # Holds the transport and closes it when the loop shuts down (asyncio.run's shutdown_asyncgens) or
        # when the council, its only owner, is collected (the loop's async-generator finalizer).
        self._closer: AsyncGenerator[None, None] | None = None

    def transport(self) -> Transport:
        """The open transport of the running loop: the kept one, or a new one when there is none for it."""
        loop = asyncio.get_running_loop()
        if self._transport is not None and self._loop is not loop:
            self._abandon()
        if self._transport is None:
            self._transport, self._loop = Transport(self._config), loop
            self._closer = _close_with_loop(self._transport)
            # Run it to its yield now (StopIteration says it got there): the loop registers it, so the loop's
            # shutdown will close the session.
            with contextlib.suppress(StopIteration):
                self._closer.asend(None).send(None)
        return self._transport

    @property
    def current(self) -> Transport | None:
        """The transport kept now, if any (whichever loop it belongs to)."""
        return self._transport

    async def aclose(self) -> None:
        """Close the kept transport now; the next :meth:`transport` makes a new one."""
        # Detach before awaiting: a call that starts while the old session closes gets a new one, never the old.
        transport, closer, loop = self._transport, self._closer, self._loop
        self._transport = self._closer = self._loop = None
        if transport is None:
            return
        if loop is asyncio.get_running_loop() and closer is not None:
            await closer.aclose()  # closes the transport, and the loop no longer waits on the generator
        else:
            await transport.aclose()

    def _abandon(self) -> None:
        """Leave the transport of another loop to that loop: its shutdown closes it (it may be closed already)."""
        loop, closer = self._loop, self._closer
        self._transport = self._closer = self._loop = None
        if loop is not None and closer is not None and loop.is_running() and not loop.is_closed():
            loop.call_soon_threadsafe(loop.create_task, closer.aclose())
