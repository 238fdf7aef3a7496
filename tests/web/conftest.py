"""Fixtures for the web page: a council server on a loopback port and a headless Chromium.

The server is started in the test's event loop (members on the fake LLM
server, scripted as council members), and Playwright's async API drives
the system Chromium from the same loop. Playwright never downloads a
browser here: the tests use Debian's ``chromium`` package, and skip only
when no Chromium can be found at all.

Each xdist worker starts Playwright and one Chromium once (``chromium``, a
session fixture), and every test opens its pages in fresh browser contexts
of it: a context shares no cookie, storage or cache with any other, as a
fresh profile did, at a fraction of a browser's start-up. So the tests and
their async fixtures run in the worker's one event loop, where that
Chromium lives: a module here sets ``pytestmark = LOOP``, and an async
fixture is ``@pytest_asyncio.fixture(loop_scope="session")`` (the root
``fake_llm`` is redefined below for that).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import (
    Browser as Chromium,
)
from playwright.async_api import (
    BrowserContext,
    Locator,
    Page,
    async_playwright,
)

from council.testing.fake_llm import FakeLLMServer
from tests.server.conftest import RunningServer, script
from tests.web.server import start_web

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: The mark of every test module here: its tests run in the worker's one event loop, where ``chromium`` lives.
LOOP = pytest.mark.asyncio(loop_scope="session")


def to_fixed(value: float, digits: int) -> str:
    """``value.toFixed(digits)`` as the page's JavaScript writes it.

    JavaScript rounds an exact tie (0.625, which a double holds exactly) up, Python's ``format`` to even;
    a test that formats with ``:.2f`` fails on the runs whose scores land on such a tie.
    """
    exact = Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{exact:.{digits}f}"


def find_chromium() -> str | None:
    """The system Chromium: Debian's /usr/bin/chromium, else one on PATH."""
    if Path("/usr/bin/chromium").is_file():
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest_asyncio.fixture(loop_scope="session")
async def fake_llm() -> AsyncIterator[FakeLLMServer]:
    """The root ``fake_llm``, started in the worker's event loop like the tests here."""
    async with FakeLLMServer() as server:
        yield server


@pytest_asyncio.fixture(loop_scope="session")
async def web_server(fake_llm: FakeLLMServer, tmp_path: Path) -> AsyncIterator[RunningServer]:
    """A council server with no API keys, its three members scripted on the fake."""
    script(fake_llm)
    runner, running = await start_web(fake_llm, tmp_path / "council.db")
    yield running
    await runner.cleanup()
    running.store.close()


@dataclass
class Browser:
    """Opens pages in fresh contexts of the worker's Chromium and records every uncaught page error."""

    chromium: Chromium
    contexts: list[BrowserContext] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    async def page(self, url: str | None = None, **options: Any) -> Page:
        """A new page in a new context; ``options`` go to the context (viewport, color_scheme, ...)."""
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = await self.chromium.new_context(**options)
        self.contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        # Kept, not failed on: a page asking for an API key logs its 401s; tests that expect none assert it.
        page.on("console", lambda message: self.console_errors.append(f"{message.text} ({message.location})")
                if message.type == "error" else None)
        if url is not None:
            await page.goto(url)
        return page


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Chromium]:
    """The worker's headless system Chromium, started once (the tests skip when there is none)."""
    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium found (/usr/bin/chromium or chromium on PATH): apt-get install chromium")
    async with async_playwright() as playwright:
        shared = await playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            yield shared
        finally:
            await shared.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium: Chromium) -> AsyncIterator[Browser]:
    """Pages in fresh contexts of the worker's Chromium; the test fails if any page threw an uncaught error."""
    opened = Browser(chromium)
    try:
        yield opened
    finally:
        for context in opened.contexts:
            await context.close()
    assert not opened.page_errors, f"the page threw: {opened.page_errors}"


async def screenshot(page: Page, path: Path) -> Path:
    """Save a full-page screenshot at ``path`` (a test's tmp_path: the suite never writes into the repository).

    scripts/screenshot_page.py saves the one kept under artifacts/.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # The bars are sticky: grow the viewport to the whole page so they sit where a reader sees them.
    viewport = page.viewport_size or {"width": 1280, "height": 900}
    height = await page.evaluate("document.documentElement.scrollHeight")
    await page.set_viewport_size({"width": viewport["width"], "height": max(height, viewport["height"])})
    await page.screenshot(path=str(path))
    await page.set_viewport_size(viewport)
    return path


async def open_page(browser: Browser, url: str, **options: Any) -> Page:
    """The page at ``url``, once it has loaded its options and conversations."""
    page = await browser.page(url, **options)
    await page.wait_for_selector("body[data-ready=true]", state="attached")
    return page


async def ask(page: Page, question: str) -> None:
    """Type a question and send it with Enter."""
    await page.fill("#question", question)
    await page.press("#question", "Enter")


async def finished_turn(page: Page, index: int = 0) -> Locator:
    """The ``index``-th turn of the open conversation, once its run has ended."""
    turn = page.locator(".turn").nth(index)
    await turn.locator(".run.finished").wait_for()
    return turn


async def focused(page: Page) -> str:
    """Where keyboard focus is: ``#id``, ``[data-testid=...]``, else the tag with its label or text; ``body`` when
    it was lost."""
    return str(await page.evaluate("""() => {
        const el = document.activeElement;
        if (!el || el === document.body) return "body";
        if (el.id) return "#" + el.id;
        if (el.dataset.testid) return `[data-testid=${el.dataset.testid}]`;
        const name = el.getAttribute("aria-label") || el.textContent.trim().slice(0, 60);
        return `${el.tagName.toLowerCase()}:${name}`;
    }"""))



async def tab_to(page: Page, target: str, limit: int = 80, key: str = "Tab") -> None:
    """Press Tab (or ``key``) until focus is on ``target`` (as :func:`focused` names it); fail if it never is."""
    seen = []
    for _ in range(limit):
        await page.keyboard.press(key)
        seen.append(await focused(page))
        if seen[-1] == target:
            return
    raise AssertionError(f"{key} never reached {target}: {seen}")


async def focus_lands_on(page: Page, target: str, timeout_s: float = 5.0) -> None:
    """Wait until focus is on ``target`` (as :func:`focused` names it): the page moves it once a call answers."""
    where = ""
    for _ in range(int(timeout_s / 0.05)):
        where = await focused(page)
        if where == target:
            return
        await page.wait_for_timeout(50)
    raise AssertionError(f"focus is on {where}, not {target}")
