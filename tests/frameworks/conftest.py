"""`council serve` on defaults as a real process, and client frameworks run against it in their own environments.

Each framework lives where scripts/framework_envs.sh installs it (instructor in
.venv-frameworks/instructor, the JavaScript clients in tests/frameworks/js/node_modules),
not in the project's venv. A test runs the framework's client script as a
process, gets the object it parsed as JSON on stdout, and checks it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from council.storage.store import Store
from tests.waiting import PROCESS_S, wait_until_sync

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
JS = HERE / "js"
INSTRUCTOR_VENV = ROOT / ".venv-frameworks" / "instructor"
SETUP = "scripts/framework_envs.sh"
#: A bound on one client's run (start, one council run, print) against a hang; the simulated council takes ~1 s.
CLIENT_S = 90.0
#: What every client asks (each script has the same words).
QUESTION = "Name a large city and a few words about it."


class City(BaseModel):
    """The schema every client asks for (each client script declares the same one in its own language)."""

    name: str = Field(min_length=1)
    population: int = Field(ge=1)
    tags: list[str] = Field(min_length=1)


def require(ready: bool, what: str) -> None:
    """Skip (fail in CI, where the setup script must have run) when a framework's environment is not installed."""
    if ready:
        return
    message = f"{what} is not installed: run {SETUP}"
    if os.environ.get("CI", "") not in ("", "0", "false"):
        pytest.fail(message)
    pytest.skip(message)


def installed(stamp: Path, pins: Path) -> bool:
    """Whether the setup script installed these pins (it leaves a copy of them as the stamp)."""
    return stamp.is_file() and stamp.read_bytes() == pins.read_bytes()


@dataclass
class Served:
    """A running `council serve` and where its log goes."""

    url: str
    db: Path
    log: Path

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def log_tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-40:])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=5) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="module")
def council_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`council serve --port N` with no config: the shipped simulated council, no key, a throwaway database."""
    home = tmp_path_factory.mktemp("council-serve")
    port = free_port()
    log = home / "serve.log"
    # PYTHONPATH: this checkout's council, whatever checkout the venv's editable install points at.
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "COUNCIL_DB_PATH": str(home / "council.db"),
           "XDG_DATA_HOME": str(home)}
    with log.open("wb") as out:
        # The log goes to a file, never a pipe nobody reads (a full pipe would stall the server).
        process = subprocess.Popen([sys.executable, "-m", "council", "serve", "--port", str(port)], cwd=home,
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
    served = Served(f"http://127.0.0.1:{port}", home / "council.db", log)
    try:
        wait_until_sync(lambda: process.poll() is not None or healthy(served.url),
                        what=f"`council serve` to answer /healthz on port {port}", timeout_s=PROCESS_S)
        if process.poll() is not None:
            pytest.fail(f"`council serve` exited with {process.returncode}:\n{served.log_tail()}")
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=PROCESS_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_client(argv: list[str], served: Served) -> dict[str, Any]:
    """Run one client script; its last line of stdout is a JSON object. A failed run fails the test, saying why."""
    # Only what a client needs: no OPENAI_* or LangSmith settings from the developer's shell, no project venv.
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), "NO_COLOR": "1"}
    result = subprocess.run(argv, env=env, cwd=HERE, capture_output=True, text=True, timeout=CLIENT_S, check=False)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(argv)} exited with {result.returncode}\n--- stderr:\n{result.stderr[-4000:]}"
                    f"\n--- stdout:\n{result.stdout[-2000:]}\n--- council serve:\n{served.log_tail()}")
    lines = result.stdout.strip().splitlines()
    assert lines, f"{' '.join(argv)} printed nothing; stderr:\n{result.stderr[-4000:]}"
    printed = json.loads(lines[-1])
    assert isinstance(printed, dict), printed
    return printed


def city_from(printed: dict[str, Any]) -> City:
    """The object a client printed, validated here too: a client that let an invalid object through fails."""
    city = City.model_validate(printed["city"])
    assert city.name.strip() and all(tag.strip() for tag in city.tags), city
    assert printed["updates"] >= 1, "a streamed client saw no object at all"
    return city


def council_answer(served: Served) -> Any:
    """The JSON value the council decided in its newest run, read from the server's database.

    Each test module has its own server (per xdist worker) and its tests run one
    after another, so the newest run is the one the client just made (a result
    cache hit is a run of its own too, marked ``cached_from``).
    """
    store = Store(str(served.db))
    try:
        def finished() -> bool:
            runs = store.list_runs(limit=1)
            return bool(runs) and runs[0].status != "running"

        wait_until_sync(finished, what="the client's run to be stored as finished")
        result = store.get(store.list_runs(limit=1)[0].run_id)
    finally:
        store.close()
    assert result is not None and result.status == "complete" and result.final_answer is not None, result
    asked = [message.content for message in result.question if message.role == "user"]
    assert asked and QUESTION in asked[-1], f"the newest run is not the client's: {result.question!r}"
    content = result.final_answer.content.strip()
    if content.startswith("```"):  # a prompted run (instructor's MD_JSON) may answer in a fence
        content = content.split("\n", 1)[1].rsplit("```", 1)[0]
    return json.loads(content)


def assert_client_got_the_councils_answer(printed: dict[str, Any], served: Served) -> City:
    """The client parsed a valid City, and it is the value the council decided, not something else."""
    city = city_from(printed)
    assert city.model_dump() == council_answer(served)
    return city
