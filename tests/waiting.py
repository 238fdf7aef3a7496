"""Waiting in tests for something to happen, never for a fixed time.

A fixed sleep is either too short on a busy machine (the test fails for
nothing) or too long everywhere else (the suite crawls). These helpers poll
the condition itself and return as soon as it holds; the timeout is only a
bound against a hang, and a test that hits it fails with a message naming
what never happened.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable

import pytest

#: How often a condition is checked: short enough not to slow a test down, long enough not to spin a core.
POLL_S = 0.01
#: The default bound: far beyond any wait a test expects, so only a hang (or a real bug) reaches it.
TIMEOUT_S = 20.0
#: The bound on a command a test started (``python -m council ...``) starting, answering or exiting: only a hang
#: reaches it. Importing the CLI alone costs over a second of CPU, and a machine running several suites at once
#: (a load of 15 to 20 on two cores) stretched that to 13 s: a 5 or 15 s bound failed such runs for nothing.
PROCESS_S = 60.0

Condition = Callable[[], bool | Awaitable[bool]]
#: What is awaited, in words; or a function giving them, called only on failure (to show the last state seen).
What = str | Callable[[], str]


def _never_happened(what: What, timeout_s: float) -> None:
    pytest.fail(f"waited {timeout_s:g} s for {what() if callable(what) else what}, and it never happened")


async def wait_until(condition: Condition, *, what: What, timeout_s: float = TIMEOUT_S) -> None:
    """Return once ``condition()`` is true (it may be a coroutine function); fail the test naming ``what`` if it
    is still false after ``timeout_s``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        outcome = condition()
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if outcome:
            return
        if loop.time() > deadline:
            _never_happened(what, timeout_s)
        await asyncio.sleep(POLL_S)


def wait_until_sync(condition: Callable[[], bool], *, what: What, timeout_s: float = TIMEOUT_S) -> None:
    """:func:`wait_until` for code outside an event loop (a subprocess, a thread, a socket)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            _never_happened(what, timeout_s)
        time.sleep(POLL_S)
