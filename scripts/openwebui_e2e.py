"""Open WebUI, typed into in headless Chromium, asks `council serve` two questions on both programs' defaults.

Nothing here is a project dependency: Open WebUI lives in a virtualenv of its own, made once with

    python3 -m venv /tmp/owui && /tmp/owui/bin/pip install torch==2.13.0   # the CPU build, first
    /tmp/owui/bin/pip install open-webui==0.12.4

and the script runs from the project's virtualenv (``--council-src`` serves another source tree, such as
``git archive HEAD | tar -x -C DIR``, instead of this checkout):

    .venv/bin/python scripts/openwebui_e2e.py --openwebui-venv /tmp/owui [--council-src DIR]

It starts `council serve` on its defaults (the simulated council, no keys, a throwaway database, a free
loopback port) and Open WebUI offline with authentication off, its OpenAI connection pointed at the
council's /v1. Then the system Chromium, driven by Playwright, does what a person does: open the app,
pick `council` in the model selector, type a question, press Enter, wait for the answer and Open WebUI's
side tasks (title, tags, follow-ups), then a second question in the same chat. For each question it
prints the answer shown, any error shown, the chat's title and tags, every chat request the council
answered (from its access log) and the council runs the question created (from the council's database).
Screenshots go to a temporary folder, never into the repository. It exits 1 when an answer does not
appear, an error is shown, or a question does not create exactly one council run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps dialling Google's hosts, which this network refuses.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
QUESTIONS = ("Why is the sky blue?", "And why are sunsets red?")
ACCESS_FIELD = re.compile(r"(\w+)=(\S+)")


@dataclass
class Turn:
    """What one typed question led to, as the browser showed it and as the council recorded it."""

    question: str
    answer: str = ""
    error: str | None = None
    error_box: str = ""
    folded: list[str] = field(default_factory=list)
    toasts: list[str] = field(default_factory=list)
    title: str = ""
    tags: list[str] = field(default_factory=list)
    follow_ups: list[str] = field(default_factory=list)
    chat_requests: list[dict[str, str]] = field(default_factory=list)
    runs: list[tuple[str, str, str]] = field(default_factory=list)
    direct: list[tuple[int, str, str]] = field(default_factory=list)
    screenshot: Path | None = None

    def failures(self) -> list[str]:
        """Why this turn fails the check (empty when it passes)."""
        found = []
        if not self.answer.strip():
            found.append("no answer appeared")
        if self.error:
            found.append(f"an error was shown: {self.error[:120]}")
        if len(self.runs) != 1:
            found.append(f"{len(self.runs)} council runs instead of 1")
        return found


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def council_env(base: Mapping[str, str], db_path: Path, council_src: Path | None) -> dict[str, str]:
    """The council's environment: the caller's, less any Council setting, with a throwaway database."""
    env = {key: value for key, value in base.items() if not key.startswith("COUNCIL_")}
    env["COUNCIL_DB_PATH"] = str(db_path)
    if council_src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(council_src), *filter(None, [base.get("PYTHONPATH")])])
    return env


def openwebui_env(base: Mapping[str, str], data_dir: Path, council_port: int) -> dict[str, str]:
    """Open WebUI's environment: offline, no login, one OpenAI connection to the council, nothing else set."""
    env = dict(base)
    env.update({
        "DATA_DIR": str(data_dir),
        "WEBUI_AUTH": "False",
        "WEBUI_SECRET_KEY": os.urandom(16).hex(),  # else it writes .webui_secret_key into the working folder
        "OPENAI_API_BASE_URL": f"http://127.0.0.1:{council_port}/v1",
        "OPENAI_API_KEY": "no-key-needed",  # the council on loopback with no keys configured takes any
        "ENABLE_OLLAMA_API": "False",
        "OFFLINE_MODE": "True",
        "HF_HUB_OFFLINE": "1",
        "ENABLE_VERSION_UPDATE_CHECK": "False",
        "SCARF_NO_ANALYTICS": "true",
        "DO_NOT_TRACK": "true",
        "ANONYMIZED_TELEMETRY": "false",
    })
    return env


def start(command: list[str], env: Mapping[str, str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    """A server in its own process group, its output in ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(command, env=dict(env), cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def stop(process: subprocess.Popen[bytes]) -> None:
    """End a server this script started, and whatever it started, by its process group."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


def wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float) -> float:
    """Seconds until ``url`` answers 200; exits with the log's tail if the server dies or never does."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            sys.exit(f"{url}: the server exited ({process.returncode}):\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit(f"{url} not healthy after {timeout:.0f} s:\n{log.read_text(errors='replace')[-3000:]}")


def chat_requests(log_text: str) -> list[dict[str, str]]:
    """The council's access-log lines for chat completions, as their key=value fields."""
    found = []
    for line in log_text.splitlines():
        if "component=access" in line and "path=/v1/chat/completions" in line:
            found.append(dict(ACCESS_FIELD.findall(line)))
    return found


def council_runs(db_path: Path) -> list[tuple[str, str, str]]:
    """(run id, status, question) of every stored council run, oldest first, read-only."""
    if not db_path.exists():
        return []
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT run_id, status, question FROM runs ORDER BY created_at").fetchall()
    return [(str(run_id), str(status), str(question)) for run_id, status, question in rows]


def direct_calls(db_path: Path) -> list[tuple[int, str, str]]:
    """(id, member, kind) of every stored call that was not a council run (none before the store kept them)."""
    if not db_path.exists():
        return []
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
        try:
            rows = db.execute("SELECT id, member, kind FROM direct_calls ORDER BY id").fetchall()
        except sqlite3.OperationalError:  # a release before direct calls were stored
            return []
    return [(int(row_id), str(member), str(kind)) for row_id, member, kind in rows]


async def open_chat_api(page: Page, chat_id: str) -> dict[str, Any]:
    """Open WebUI's stored chat, read with the browser's own session token."""
    script = """async (id) => {
        const r = await fetch('/api/v1/chats/' + id, {headers: {Authorization: 'Bearer ' + localStorage.token}});
        return r.ok ? await r.json() : {};
    }"""
    return dict(await page.evaluate(script, chat_id))


def current_reply(chat: Mapping[str, Any]) -> dict[str, Any]:
    """The chat's newest message (the assistant's reply once one was started)."""
    history = chat.get("chat", {}).get("history", {})
    return dict(history.get("messages", {}).get(history.get("currentId") or "", {}))


async def ask(page: Page, turn: Turn, previous_reply: str | None, timeout: float) -> str:
    """Type the question, press Enter and wait until the reply is done; returns the reply's message id."""
    await page.locator("#chat-input").click()
    await page.keyboard.type(turn.question)
    await page.keyboard.press("Enter")
    await page.wait_for_url(re.compile(r"/c/[0-9a-f-]+$"), timeout=timeout * 1000)
    chat_id = page.url.rsplit("/", 1)[1]
    deadline = time.monotonic() + timeout
    reply: dict[str, Any] = {}
    while time.monotonic() < deadline:
        reply = current_reply(await open_chat_api(page, chat_id))
        fresh = reply.get("role") == "assistant" and reply.get("id") != previous_reply
        if fresh and (reply.get("done") or reply.get("error")):
            break
        await page.wait_for_timeout(500)
    else:
        turn.error = f"no finished reply within {timeout:.0f} s (last state: done={reply.get('done')})"
        return str(reply.get("id", ""))
    message = page.locator(f"#message-{reply['id']}")
    await message.wait_for(timeout=10_000)
    container = f"#message-{reply['id']} #response-content-container"
    # The answer is the rendered Markdown; the stage progress sits above it, folded under a "Thought for" button.
    turn.answer = "\n".join(await page.locator(f"{container} .markdown-prose").all_inner_texts()).strip()
    turn.folded = [text.strip() for text in await page.locator(f"{container} button[aria-expanded]").all_inner_texts()]
    if reply.get("error"):
        error = reply["error"]
        turn.error = str(error.get("content") if isinstance(error, dict) else error)
        turn.error_box = (await message.inner_text()).strip()
    return str(reply["id"])


async def settle(page: Page, council_log: Path, council_url: str, quiet_s: float, cap_s: float) -> None:
    """Wait until Open WebUI's side tasks are over: no new chat request for ``quiet_s`` and no council run going."""
    seen, since, started = -1, time.monotonic(), time.monotonic()
    while time.monotonic() - started < cap_s:
        count = len(chat_requests(council_log.read_text(errors="replace")))
        if count != seen:
            seen, since = count, time.monotonic()
        with urllib.request.urlopen(f"{council_url}/healthz", timeout=5) as response:
            idle = json.load(response).get("active_runs", 0) == 0
        if idle and time.monotonic() - since >= quiet_s:
            return
        await page.wait_for_timeout(500)


async def drive(openwebui_url: str, council_url: str, council_log: Path, db_path: Path, shots: Path,
                questions: tuple[str, ...], timeout: float, quiet_s: float) -> list[Turn]:
    """Both questions typed into one chat in headless Chromium; what each led to."""
    turns: list[Turn] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            toasts: list[str] = []
            await page.goto(openwebui_url, timeout=timeout * 1000)
            changelog = page.get_by_role("button", name="Okay, Let's Go!")  # "What's new", once per fresh install
            with contextlib.suppress(PlaywrightTimeout):  # no changelog shown: nothing to dismiss
                await changelog.click(timeout=15_000)
            await page.locator("#model-selector-model-button").click()
            await page.locator("#model-search-input").fill("council")
            await page.locator('button[role=option][data-value="council"]').click()
            previous: str | None = None
            for number, question in enumerate(questions, 1):
                turn = Turn(question)
                log_before = len(chat_requests(council_log.read_text(errors="replace")))
                runs_before = {run[0] for run in council_runs(db_path)}
                direct_before = {call[0] for call in direct_calls(db_path)}
                previous = await ask(page, turn, previous, timeout)
                await settle(page, council_log, council_url, quiet_s, cap_s=timeout)
                toasts = await page.locator("[data-sonner-toast]").all_inner_texts()
                turn.toasts = [text.strip() for text in toasts if "logged in" not in text]
                chat = await open_chat_api(page, page.url.rsplit("/", 1)[1])
                reply = chat.get("chat", {}).get("history", {}).get("messages", {}).get(previous, {})
                turn.follow_ups = list(reply.get("followUps") or [])
                turn.title = f"{chat.get('title', '')!s} (browser tab: {await page.title()})"
                turn.tags = list((chat.get("meta") or {}).get("tags") or [])
                turn.chat_requests = chat_requests(council_log.read_text(errors="replace"))[log_before:]
                turn.runs = [run for run in council_runs(db_path) if run[0] not in runs_before]
                turn.direct = [call for call in direct_calls(db_path) if call[0] not in direct_before]
                turn.screenshot = shots / f"question-{number}.png"
                await page.screenshot(path=str(turn.screenshot), full_page=True)
                turns.append(turn)
        except PlaywrightError as error:  # a step the page did not allow: say which, keep the picture
            await page.screenshot(path=str(shots / "failure.png"), full_page=True)
            sys.exit(f"the browser could not go on ({type(error).__name__}: {str(error).splitlines()[0]}); "
                     f"what the page showed: {shots / 'failure.png'}")
        finally:
            await browser.close()
    return turns


def report(turns: list[Turn]) -> list[str]:
    """The summary lines, one block per question."""
    lines = []
    for number, turn in enumerate(turns, 1):
        answer = " ".join(turn.answer.split())[:200]
        lines += [f"question {number}: {turn.question!r}",
                  f"  answer shown ({len(turn.answer)} chars): {answer!r}",
                  f"  folded above it: {turn.folded}",
                  f"  error: {turn.error!r}; the message box shows {' '.join(turn.error_box.split())[:300]!r}"
                  if turn.error else "  error shown: none",
                  f"  toasts: {turn.toasts}",
                  f"  chat title: {turn.title}",
                  f"  tags: {turn.tags}   follow-ups: {turn.follow_ups}",
                  f"  chat requests the council answered: {len(turn.chat_requests)}"]
        for request in turn.chat_requests:
            extra = {k: v for k, v in request.items()
                     if k not in {"client", "component", "method", "path", "status", "run_id", "latency_ms"}}
            lines.append(f"    status {request.get('status')} run {request.get('run_id')} "
                         f"{request.get('latency_ms')} ms {extra or ''}".rstrip())
        lines.append(f"  council runs created: {len(turn.runs)}")
        lines += [f"    {run_id} {status} {question[:60]!r}" for run_id, status, question in turn.runs]
        lines.append(f"  direct calls stored (one member, no council run): {len(turn.direct)} "
                     f"{[f'{kind} by {member}' for _, member, kind in turn.direct]}")
        lines.append(f"  screenshot: {turn.screenshot}")
        failures = turn.failures()
        lines.append(f"  check: {'FAIL: ' + '; '.join(failures) if failures else 'ok'}")
    return lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--openwebui-venv", type=Path, required=True,
                        help="a virtualenv with open-webui 0.12.4 installed (its bin/open-webui is started)")
    parser.add_argument("--council-src", type=Path, default=None,
                        help="a Council source tree to serve instead of the installed one (e.g. an exported commit)")
    parser.add_argument("--timeout", type=float, default=180, help="seconds for each server start and each answer")
    parser.add_argument("--quiet", type=float, default=8,
                        help="seconds without a new chat request after which the side tasks count as over")
    parser.add_argument("--keep", action="store_true", help="keep the servers' logs and data (kept anyway on failure)")
    args = parser.parse_args(argv)
    if not (args.openwebui_venv / "bin" / "open-webui").is_file():
        parser.error(f"--openwebui-venv: no bin/open-webui in {args.openwebui_venv}")
    if args.council_src is not None and not (args.council_src / "council" / "__init__.py").is_file():
        parser.error(f"--council-src: no council package in {args.council_src}")
    if not Path(CHROMIUM).is_file():
        parser.error(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    return args


def main(argv: list[str] | None = None) -> int:
    """Start both servers, drive the browser, print the summary; 1 when a question was not answered as it should."""
    args = parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="council-owui-e2e-"))
    shots = work / "screenshots"
    shots.mkdir()
    db_path, council_log, openwebui_log = work / "council.db", work / "council.log", work / "openwebui.log"
    council_port, openwebui_port = free_port(), free_port()
    council_url, openwebui_url = f"http://127.0.0.1:{council_port}", f"http://127.0.0.1:{openwebui_port}"
    council = start([sys.executable, "-m", "council", "serve", "--port", str(council_port)],
                    council_env(os.environ, db_path, args.council_src), work, council_log)
    openwebui = None
    try:
        council_s = wait_healthy(f"{council_url}/healthz", council, council_log, args.timeout)
        (work / "openwebui-data").mkdir()
        openwebui = start([str(args.openwebui_venv / "bin" / "open-webui"), "serve", "--host", "127.0.0.1",
                           "--port", str(openwebui_port)],
                          openwebui_env(os.environ, work / "openwebui-data", council_port), work, openwebui_log)
        openwebui_s = wait_healthy(f"{openwebui_url}/health", openwebui, openwebui_log, args.timeout)
        print(f"council serve healthy in {council_s:.1f} s at {council_url} "
              f"(council from {args.council_src or ROOT}); Open WebUI in {openwebui_s:.1f} s at {openwebui_url}")
        turns = asyncio.run(drive(openwebui_url, council_url, council_log, db_path, shots, QUESTIONS,
                                  args.timeout, args.quiet))
    finally:
        for process in (openwebui, council):
            if process is not None:
                stop(process)
    print("\n".join(report(turns)))
    failed = any(turn.failures() for turn in turns)
    print(f"summary: {sum(not t.failures() for t in turns)} of {len(turns)} questions answered with one run each; "
          f"{sum(len(t.runs) for t in turns)} council runs for {len(turns)} questions; "
          f"{sum(len(t.chat_requests) for t in turns)} chat requests; screenshots in {shots}")
    if failed or args.keep:
        print(f"logs and data kept in {work}")
    else:
        for path in work.iterdir():
            if path != shots:
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
