"""How many upstream calls a re-run of an evaluation makes, with call reuse and with ``--fresh``.

Runs ``council eval`` (the CLI's main, as a user would) on a dataset
(default: config/datasets/sample.jsonl) against the fake upstream, with a
council of four members on its OpenAI API, ``atlas`` chairing and
evaluating, in a fresh database: the first run, an unchanged re-run, a
re-run with another chairman (``--evaluator atlas`` kept), and a ``--fresh``
re-run. The fake upstream counts every request it gets; the script prints
those counts beside the manifest's ``reused_calls``.

    python scripts/measure_eval_reuse.py [DATASET.jsonl]
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

from council.assets import config_dir
from council.cli.app import main
from council.testing.fake_llm import FakeLLMServer, Step
from council.testing.scripted import council_member

MEMBERS = ("atlas", "boreal", "cirrus", "delta")
LENIENT = ["--min-aggregate-score", "0", "--min-pass-rate", "0", "--max-faithfulness-failure-rate", "1",
           "--max-sample-tokens", "1000000", "--max-spent-tokens-per-sample", "1000000",
           "--max-sample-latency-ms", "600000", "--max-latency-p95-ms", "600000", "--no-report", "--json", "--quiet"]


def write_config(folder: Path, fake: FakeLLMServer, chairman: str) -> Path:
    """The four members on the fake upstream, one database for every run."""
    members = "".join(f"  - {{name: {m}, provider: openai, model: model-{m}, base_url: '{fake.base_url('openai')}'}}\n"
                      for m in MEMBERS)
    path = folder / f"council-{chairman}.yaml"
    path.write_text(f"members:\n{members}chairman: {chairman}\nretry: {{max_attempts: 1}}\n"
                    f"storage: {{path: '{folder / 'council.db'}'}}\n", encoding="utf-8")
    return path


def run_eval(dataset: str, config: Path, *extra: str) -> dict[str, object]:
    """``council eval`` once; its JSON output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["eval", dataset, "--config", str(config), "--evaluator", "atlas", *LENIENT, *extra],
                    {"PATH": ""})
    if code not in (0, 1):
        raise SystemExit(f"council eval exited {code}")
    data: dict[str, object] = json.loads(out.getvalue())
    return data


async def measure(dataset: str) -> None:
    async with FakeLLMServer() as fake:
        for member in MEMBERS:
            fake.script(f"model-{member}", Step(reply=council_member(f"{member} answers carefully.")))
        with tempfile.TemporaryDirectory() as folder:
            first = write_config(Path(folder), fake, "atlas")
            other = write_config(Path(folder), fake, "boreal")
            steps = [("first run", first, ()), ("unchanged re-run", first, ()),
                     ("another chairman", other, ()), ("--fresh re-run", first, ("--fresh",))]
            print(f"dataset: {dataset}")
            print(f"{'run':<20} {'upstream calls':>14}  reused (manifest)")
            for name, config, extra in steps:
                before = len(fake.requests)
                data = await asyncio.to_thread(run_eval, dataset, config, *extra)
                manifest = data["manifest"]
                assert isinstance(manifest, dict)
                reused = manifest.get("reused_calls") or {}
                total = sum(reused.values())
                print(f"{name:<20} {len(fake.requests) - before:>14}  {total} {json.dumps(reused)}")


if __name__ == "__main__":
    asyncio.run(measure(sys.argv[1] if len(sys.argv) > 1 else str(config_dir() / "datasets" / "sample.jsonl")))
