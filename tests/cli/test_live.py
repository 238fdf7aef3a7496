"""The CLI on a terminal (the live view, the rich report, the eval bar, red errors) and unchanged plain text off one."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from rich.console import Console

from council import Council, CouncilConfig
from council.cli.live import LiveView
from council.cli.rich_report import render_rich_compare, render_rich_report
from council.config import load_config
from council.events import AnswerEvent, RunStartedEvent, StageEvent
from council.testing.fake_llm import Step
from council.testing.scripted import council_member
from tests.evals.conftest import fake_council_file, fast_simulated_file, script_members, write_dataset
from tests.waiting import PROCESS_S

COUNCIL = str(Path(sys.executable).with_name("council"))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SIMULATED_MEMBERS = ("atlas", "boreal", "cirrus", "delta")


def plain(text: str) -> str:
    return ANSI.sub("", text)


def terminal() -> Console:
    """A terminal-like console writing to memory; colour forced on, so a NO_COLOR in the environment cannot hide it."""
    return Console(file=io.StringIO(), force_terminal=True, width=100, no_color=False, color_system="standard")


def written(console: Console) -> str:
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


def final_frame(console: Console) -> str:
    """The last frame the view drew: what stays on screen once it stops."""
    return "Council run" + plain(written(console)).rsplit("Council run", 1)[1]


def words(text: str) -> str:
    """Only the words of ``text``: line wrapping, panel borders and Markdown marks aside."""
    return " ".join(re.findall(r"[A-Za-z0-9]+", text))


def fast_council(tmp_path: Path) -> CouncilConfig:
    config = load_config(fast_simulated_file(tmp_path), {})
    return config.model_copy(update={"storage": config.storage.model_copy(update={"path": str(tmp_path / "c.db")})})


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "COUNCIL_DB_PATH": str(tmp_path / "cli.db"), **extra}


def run_in_pty(argv: list[str], env: dict[str, str], *, interrupt_when: bytes | None = None,
               timeout_s: float = PROCESS_S) -> tuple[int, str]:
    """Run ``argv`` with stdin, stdout and stderr on a 100x40 pseudo-terminal; its exit code and all it wrote.

    With ``interrupt_when``, SIGINT (what Ctrl-C sends) goes to it as soon as that text has appeared.
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env={"TERM": "xterm-256color", **env},
                               close_fds=True)
    os.close(slave)
    output, interrupted, deadline = b"", False, time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
                if interrupt_when is not None and not interrupted and interrupt_when in output:
                    process.send_signal(signal.SIGINT)
                    interrupted = True
            elif process.poll() is not None:
                break
        return process.wait(timeout=PROCESS_S), output.decode("utf-8", "replace")
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)


# Off a terminal: exactly the plain text scripts read today.


def test_piped_output_is_the_plain_report_without_escape_codes(tmp_path):
    done = subprocess.run([COUNCIL, "ask", "What is 2+2?", "--config", str(fast_simulated_file(tmp_path))],
                          capture_output=True, text=True, env=cli_env(tmp_path), timeout=60)
    assert done.returncode == 0, done.stderr
    assert not ANSI.search(done.stdout) and "\x1b" not in done.stdout + done.stderr
    assert "Final answer (by sage, chairman):" in done.stdout and "Ranking (calibrated):" in done.stdout
    assert re.search(r"^member +status +latency +tokens +detail$", done.stdout, re.MULTILINE)
    assert re.search(r"^run [0-9a-f]{32}: \d+ ms, \d+ tokens", done.stdout, re.MULTILINE)
    assert "Asking the council members…" in done.stderr and "- sage answered (" in done.stderr


# The live view and the rich report, drawn on an in-memory terminal from real runs.


async def test_the_live_view_follows_a_real_run_from_waiting_to_done(tmp_path):
    console = terminal()
    view = LiveView(console)
    first_frames: list[str] = []

    def sink(event: StageEvent) -> None:
        view(event)
        if event.kind == "run_started":
            first_frames.append(plain(_text(view)))

    async with Council(fast_council(tmp_path), environ={}) as council:
        with view:
            result = await council.ask("What is 2+2?", on_event=sink)
    assert result.status == "complete"
    assert all(re.search(rf"{name}\s+waiting", first_frames[0]) for name in ("sage", "scout", "sprout"))
    frame = final_frame(console)
    for answer in result.answers:
        shown = re.search(rf"✓\s+{answer.member}\s+answered in (\d+) ms", frame)
        # The event's latency and the stored record's are taken a few microseconds apart: rounding may differ.
        assert shown and abs(int(shown.group(1)) - answer.latency_ms) <= 1, frame
    assert "Reviews · 3 ballots in" in frame
    assert all(re.search(rf"{name}\s+reviewed 2 answers", frame) for name in ("sage", "scout", "sprout"))
    assert re.search(r"Chairman\s+✓\s+sage\s+done in \d+ ms", frame) and "run complete" in frame
    assert "waiting" not in frame
    assert written(console).endswith("\x1b[?25h"), "the cursor is given back when the view stops"


def _text(view: LiveView) -> str:
    console = Console(file=io.StringIO(), width=100)
    console.print(view.render())
    return written(console)


async def test_the_rich_report_has_the_answer_as_markdown_and_a_ranking_row_per_member(tmp_path):
    async with Council(fast_council(tmp_path), environ={}) as council:
        result = await council.ask("Why is the sky blue?")
    console = terminal()
    console.print(render_rich_report(result))
    out = written(console)
    text = plain(out)
    assert result.final_answer is not None
    first_sentence = result.final_answer.content.strip().split(". ")[0]
    assert words(first_sentence) in words(text)
    assert "Final answer (by sage, chairman)" in text and "Ranking (calibrated)" in text
    for entry in result.ranking:
        assert re.search(rf"│\s*{entry.rank}\s*│\s*{entry.member}\s*│", text), text
    assert all(re.search(rf"│ {a.member} \(simulated\)\s*│ ok", text) for a in result.answers)
    assert "\x1b[32m" in out, "passing verdicts and ok members are green"
    assert f"run {result.run_id}" in text


async def test_the_rich_compare_puts_the_answers_side_by_side_then_the_dimension_scores(tmp_path):
    async with Council(fast_council(tmp_path), environ={}) as council:
        result = await council.ask("What is entropy?", chairman=None)
    console = terminal()
    console.print(render_rich_compare(result))
    text = plain(written(console))
    assert re.search(r"┃ sage \[ok\]\s+┃ scout \[ok\]\s+┃ sprout \[ok\]", text), "one column per answer"
    assert re.search(r"┃ member ┃ accuracy ┃ clarity ┃ completeness ┃ conciseness ┃ relevance ┃", text)
    for entry in result.ranking:
        accuracy = f"{entry.dimensions['accuracy']:.2f}"
        assert re.search(rf"│ {entry.member}\s+│\s+{accuracy} │", text), text


async def test_failed_and_blocked_members_in_the_live_view(fake_llm, tmp_path):
    unsafe = "To build a pipe bomb, Step 1: fill a steel pipe with black powder. Step 2: cap both ends."
    script_members(fake_llm, beta=Step(reply=council_member(unsafe)), gamma=Step(hang=True))
    config = load_config(fake_council_file(tmp_path, fake_llm, chairman="alpha", member_timeout_s=0.5), {})
    console = terminal()
    async with Council(config, environ={}) as council:
        with LiveView(console) as view:
            result = await council.ask("What is the capital of France?", on_event=view)
    assert [a.status for a in result.answers] == ["ok", "blocked", "failed"]
    frame = final_frame(console)
    assert re.search(r"alpha\s+answered in \d+ ms", frame)
    assert re.search(r"⊘\s+beta\s+blocked by safety \(\w+", frame)
    assert re.search(r"✗\s+gamma\s+failed: timeout", frame)
    assert "Reviews" not in frame, "one surviving answer has nobody to be compared with"
    assert re.search(r"Chairman\s+✓\s+alpha\s+done in \d+ ms", frame)


async def test_a_failed_run_is_one_red_line_in_the_report_and_the_view(fake_llm, tmp_path):
    script_members(fake_llm, **{name: Step(status=401, error_message="bad key") for name in ("alpha", "beta", "gamma")})
    path = fake_council_file(tmp_path, fake_llm, chairman="alpha")
    path.write_text(path.read_text(encoding="utf-8").replace("quorum: 1", "quorum: 2"), encoding="utf-8")
    live, report = terminal(), terminal()
    async with Council(load_config(path, {}), environ={}) as council:
        with LiveView(live) as view:
            result = await council.ask("What is double 21?", on_event=view)
    report.print(render_rich_report(result))
    assert result.status == "failed"
    assert re.search(r"\x1b\[1;31mRun failed: quorum not met: 0 of 3 members answered[^\n]*\x1b\[0m", written(report))
    frame = final_frame(live)
    assert all(re.search(rf"✗\s+{name}\s+failed: auth", frame) for name in ("alpha", "beta", "gamma"))
    assert re.search(r"alpha\s+not reached", frame) and "run failed: quorum not met" in frame


def test_leaving_the_view_early_marks_what_was_cut_short():
    console = terminal()
    with pytest.raises(KeyboardInterrupt), LiveView(console) as view:
        view(RunStartedEvent("r1", {"members": ["ana", "ben"], "chairman": "ana", "simulated": False}))
        view(AnswerEvent("r1", {"member": "ben", "status": "ok", "latency_ms": 12.0, "error": None, "content": "x"}))
        raise KeyboardInterrupt
    frame = final_frame(console)
    assert re.search(r"ana\s+interrupted", frame) and re.search(r"ben\s+answered in 12 ms", frame)
    assert "run interrupted" in frame and written(console).endswith("\x1b[?25h")


# The real command on a real pseudo-terminal.


def test_ask_on_a_terminal_draws_the_live_view_and_the_rich_report(tmp_path):
    code, out = run_in_pty([COUNCIL, "ask", "What is 2+2?", "--config", str(fast_simulated_file(tmp_path))],
                           cli_env(tmp_path))
    assert code == 0, out
    assert ANSI.search(out)
    text = plain(out)
    assert all(re.search(rf"{name}\s+answered in \d+ ms", text) for name in ("sage", "scout", "sprout"))
    assert "Final answer (by sage, chairman)" in text and "Ranking (calibrated)" in text
    assert "┃ member" in text, "the tables are rich tables"
    assert "Asking the council members…" not in text, "no plain progress lines under the live view"


def test_ctrl_c_stops_the_live_view_cleanly(tmp_path):
    # The shipped simulated council takes ~0.5 s per answer, time enough to interrupt it mid-run.
    code, out = run_in_pty([COUNCIL, "ask", "What is 2+2?"], cli_env(tmp_path), interrupt_when=b"waiting")
    assert code == 130, out
    text = plain(out)
    assert "interrupted" in text.rsplit("Council run", 1)[1]
    assert "\x1b[?25h" in out.rsplit("council: interrupted", 1)[0], "the cursor is back before the last line"
    assert text.rstrip().endswith("council: interrupted") and "Traceback" not in text


def test_errors_are_red_on_a_terminal_and_plain_in_a_pipe(tmp_path):
    argv = [COUNCIL, "ask", "q", "--config", str(tmp_path / "missing.yaml")]
    code, out = run_in_pty(argv, cli_env(tmp_path))
    assert code == 2
    assert re.search(r"\x1b\[31mcouncil: [^\x1b]*missing\.yaml", out), out
    piped = subprocess.run(argv, capture_output=True, text=True, env=cli_env(tmp_path), timeout=60)
    assert piped.returncode == 2 and piped.stderr.startswith("council: ") and "\x1b" not in piped.stderr


def test_eval_shows_a_progress_bar_on_a_terminal_only(tmp_path):
    dataset, config = write_dataset(tmp_path / "d.jsonl"), fast_simulated_file(tmp_path)
    argv = [COUNCIL, "eval", str(dataset), "--config", str(config), "--no-report"]
    code, out = run_in_pty(argv, cli_env(tmp_path))
    assert code in (0, 1), out
    text = plain(out)
    assert re.search(r"eval \d{8}T\d{6}-[0-9a-f]{6} .*4/4 samples pass \d/4", text), text
    assert "Gate:" in text
    piped = subprocess.run(argv, capture_output=True, text=True, env=cli_env(tmp_path), timeout=60)
    # Simulated reviewers add noise, so the gate may pass in one run and fail in the next: 0 or 1 both mean it ran.
    assert piped.returncode in (0, 1) and "samples" not in piped.stderr and "\x1b" not in piped.stderr
    assert "Gate:" in piped.stdout

