"""The benchmark scripts the README quotes run to the end and print every figure they promise.

Each run is a benchmark, small but CPU-bound (7 to 20 s of CPU, 20 to 40 s on a busy machine): they are marked
slow, so the everyday ``pytest`` leaves them to ``pytest -m slow`` (run by .ci/run). Their refusals stay in it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_bench_pipeline_prints_every_line_with_no_failed_question():
    done = subprocess.run(
        [sys.executable, "scripts/bench_pipeline.py", "--latency-questions", "2", "--questions", "6",
         "--concurrency", "3", "--repeats", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "| Measurement | Result |"
    latency, throughput, bare, straggler = lines[2:6]
    assert "(overhead " in latency and "the bare client's median" in latency and "median of 1 runs" in latency
    assert "ms CPU per question in the council process" in throughput and "0 failed of 6" in throughput
    assert "the council spends" in bare and "x the bare client's CPU" in bare
    assert "the slow member is failed (timeout)" in straggler


@pytest.mark.slow
@pytest.mark.timeout(1200)  # eight runs under valgrind, two at a time: a few minutes
def test_bench_instructions_counts_the_store_against_a_baseline_checkout(tmp_path):
    """Tiny runs under callgrind: every figure printed, and the store adding instructions to a question."""
    if shutil.which("valgrind") is None:
        if os.environ.get("CI"):
            pytest.fail("valgrind is missing: .ci/run installs it")
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    baseline = tmp_path / "baseline"  # this checkout's files as a second tree: the comparison path runs for real
    shutil.copytree(ROOT, baseline, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "node_modules"))
    done = subprocess.run(
        [sys.executable, "scripts/bench_instructions.py", "--small", "2", "--large", "6", "--baseline", str(baseline)],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("| Checkout | Instructions a question, no store |")
    rows = {}
    for line in lines[2:4]:
        checkout, none, sqlite, added = (cell.strip() for cell in line.strip("|").split("|"))
        rows[checkout.split(" ")[0]] = [float(value.removesuffix(" M")) for value in (none, sqlite, added)]
    assert set(rows) == {str(ROOT), str(baseline.resolve())}
    for none, sqlite, added in rows.values():
        # Four questions apart, scheduling noise can outweigh the store (CI saw 28.06 M with none, 27.49 with
        # SQLite): the figures must be sane and agree, not order. Each is rounded to 0.01 M on its own.
        assert none > 1 and sqlite > 1 and added == pytest.approx(sqlite - none, abs=0.015)
    # The ratio's sign is as noisy as the figures it divides (CI printed -23.58x once): its form is what is checked.
    assert re.search(r"This checkout's store adds -?\d+\.\d\dx the instructions a question", done.stdout)


@pytest.mark.slow
@pytest.mark.timeout(900)  # four short runs under valgrind, two at a time
def test_bench_call_counts_councils_call_against_a_bare_post():
    """Tiny runs under callgrind: both sides counted, and the ratio printed is the ratio of the figures."""
    if shutil.which("valgrind") is None:
        if os.environ.get("CI"):
            pytest.fail("valgrind is missing: .ci/run installs it")
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    done = subprocess.run([sys.executable, "scripts/bench_call.py", "--small", "2", "--large", "22"],
                          cwd=ROOT, capture_output=True, text=True, timeout=800)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = dict(re.findall(r"^\| (Council's provider and transport|bare aiohttp post) \| (\d+\.\d\d) M \|$",
                              done.stdout, re.MULTILINE))
    assert set(figures) == {"Council's provider and transport", "bare aiohttp post"}, done.stdout
    council, bare = float(figures["Council's provider and transport"]), float(figures["bare aiohttp post"])
    assert council > 0.1 and bare > 0.1, "a call over HTTP takes hundreds of thousands of instructions"
    ratio = float(re.search(r"Council's call takes (\d+\.\d\d)x the bare post's", done.stdout).group(1))
    assert ratio == pytest.approx(council / bare, abs=0.05)  # each figure is rounded on its own


def test_bench_call_refuses_sizes_out_of_order():
    done = subprocess.run([sys.executable, "scripts/bench_call.py", "--small", "9", "--large", "3"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "--small must be at least 1 and less than --large" in done.stderr


def test_bench_instructions_refuses_a_baseline_that_is_not_council(tmp_path):
    done = subprocess.run([sys.executable, "scripts/bench_instructions.py", "--baseline", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"{tmp_path} is not a checkout of Council (no council/ in it)" in done.stderr


@pytest.mark.slow
def test_bench_stragglers_prints_both_policies_and_cuts_only_with_the_policy():
    done = subprocess.run(
        [sys.executable, "scripts/bench_stragglers.py", "--questions", "4", "--median-s", "0.05",
         "--concurrency", "4", "--no-chairman"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and " s |" in line]
    assert [row.split(" | ")[0] for row in rows] == ["| wait for all", "| straggler_factor 2"]
    waited, cut = (row.rstrip(" |").split(" | ") for row in rows)
    assert waited[-2:] == ["0%", "0%"], "nobody is cut when every member is waited for"
    assert all(re.fullmatch(r"\d+\.\d\dx", row[3]) for row in (waited, cut))


def test_bench_stragglers_refuses_a_factor_below_one():
    done = subprocess.run([sys.executable, "scripts/bench_stragglers.py", "--factor", "0.5"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--factor at least 1" in done.stderr


@pytest.mark.slow
def test_simulate_juries_prints_the_weighting_table_and_the_default_holds_against_equal_weights():
    """A small run: the default is not worse than equal weights (its interval reaches 0 or above) in a
    correlated jury, and better with a careless reviewer among independent ones (its interval above 0)."""
    done = subprocess.run(
        [sys.executable, "scripts/simulate_juries.py", "--items", "400", "--only", "ind-H,jury-3-0.9-2",
         "--answers", "2"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| setting | weighting | accuracy | vs equal (95% CI) | Kendall tau | vs equal (95% CI) |" in done.stdout
    rows = re.findall(r"^\| (ind-H|jury-3-0\.9-2) \| \*\*outlier\*\* \(default\) \| (\d\.\d{3}) \| "
                      r"([+-]\d\.\d{3}) \[([+-]\d\.\d{3}), ([+-]\d\.\d{3})\] \| (\d\.\d{3}) \| "
                      r"([+-]\d\.\d{3}) \[([+-]\d\.\d{3}), ([+-]\d\.\d{3})\] \|$", done.stdout, re.MULTILINE)
    found = {row[0]: [float(v) for v in row[1:]] for row in rows}
    assert set(found) == {"ind-H", "jury-3-0.9-2"}, done.stdout
    for key, (_, diff, low, high, _, tau_diff, tau_low, tau_high) in found.items():
        assert low <= diff <= high and tau_low <= tau_diff <= tau_high, key
        assert high >= 0 and tau_high >= 0, f"{key}: the default ranks worse than equal weights"
    assert found["ind-H"][6] > 0, "the careless reviewer is down-weighted: tau above equal weights'"
    assert len(re.findall(r"^\|  \| reliability \| \d\.\d{3} \| ", done.stdout, re.MULTILINE)) == 2, "a row per setting"


@pytest.mark.slow
def test_bench_pipeline_makes_only_the_parts_asked_for():
    done = subprocess.run(
        [sys.executable, "scripts/bench_pipeline.py", "--parts", "throughput", "--questions", "4",
         "--concurrency", "2", "--repeats", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split(" | ")[0] for line in done.stdout.splitlines()[2:]]
    assert rows == ["| Throughput, 2 concurrent, 0 ms upstream", "| Bare aiohttp client, the same 9 calls per question"]
    refused = subprocess.run([sys.executable, "scripts/bench_pipeline.py", "--parts", "speed"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--parts: expected some of latency, throughput, straggler" in refused.stderr


@pytest.mark.slow
def test_bench_one_host_compares_the_old_limits_with_the_derived_ones():
    done = subprocess.run(
        [sys.executable, "scripts/bench_one_host.py", "--questions", "6", "--latency-s", "0.01", "--rounds", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines() if re.match(r"\| (old|derived)", line)]
    assert [(row[0], row[1]) for row in rows] == [("| old fixed limits", "200 / 50"),
                                                  ("| derived, 32 runs at once (default)", "128 / 128"),
                                                  ("| derived, runs_at_once=50", "200 / 200")]
    assert all(re.fullmatch(r"\d+\.\d", row[3]) and float(row[3]) > 0 for row in rows)


@pytest.mark.slow
def test_bench_bare_calls_prints_the_three_callers():
    done = subprocess.run([sys.executable, "scripts/bench_bare_calls.py", "--questions", "2", "--latency", "0",
                           "--repeats", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split(" | ")[0] for line in done.stdout.splitlines() if line.startswith("| ") and " ms |" in line]
    assert rows == ["| bare ask calls", "| inside async with", "| bare aiohttp client"]


@pytest.mark.slow
def test_bench_deliberation_prints_all_four_strategies_with_figures_in_range():
    """A tiny run: a row per strategy, shares and tau in range, and only the two-round runs paying a second round."""
    done = subprocess.run([sys.executable, "scripts/bench_deliberation.py", "--questions", "3", "--councils", "2",
                           "--workers", "1"], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    header = "| Strategy | top pick is the best answer | picked answer's quality | Kendall tau | two rounds |"
    assert header in done.stdout
    rows = dict(re.findall(r"^\| \(([abcd])\) [^|]+ \| (.+) \|$", done.stdout, re.MULTILINE))
    assert sorted(rows) == ["a", "b", "c", "d"], done.stdout
    figures = {}
    for key, cells in rows.items():
        best, quality, tau, two, calls, tokens, latency = (cell.strip() for cell in cells.split("|"))
        figures[key] = (float(best.removesuffix("%")), float(quality), float(tau), float(two.removesuffix("%")),
                        float(calls), float(tokens.replace(",", "")), float(latency.removesuffix(" ms")))
        assert 0 <= figures[key][0] <= 100 and 0 <= figures[key][1] <= 1 and -1 <= figures[key][2] <= 1, key
        assert 0 <= figures[key][3] <= 100 and figures[key][4] >= 4 and figures[key][5] > 0 and figures[key][6] > 0
    assert figures["a"][3] == figures["d"][3] == 0 and figures["b"][3] == 100, "(b) deliberates every run"
    assert figures["d"][4:6] == figures["a"][4:6], "the majority vote makes no call of its own"
    assert figures["b"][4] > figures["a"][4] and figures["a"][4] <= figures["c"][4] <= figures["b"][4]
    assert "Machine: " in done.stdout and "3 questions x 2 simulated councils" in done.stdout


@pytest.mark.slow
def test_bench_structured_rates_agree_and_the_council_is_valid_whenever_a_member_was():
    """A tiny run of both setups: rates in range and consistent, the goal met with a quorum of one, the cost above
    one member's. The fake's members fail often here (half their first answers, a third of the questions)."""
    done = subprocess.run(
        [sys.executable, "scripts/bench_structured.py", "--questions", "6", "--latency-ms", "0", "--invalid-rate",
         "0.5", "--hard-rate", "0.3", "--quorum", "1", "--seed", "7", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    setups = json.loads(done.stdout)["setups"]
    assert set(setups) == {"simulated", "fake"}
    for name, setup in setups.items():
        council, members, n = setup["council"], setup["members"], setup["questions"]
        assert n == 6 and setup["quorum"] == 1 and sum(setup["schemas"].values()) == n
        for member in members.values():
            assert 0 <= member["valid_first_try"] <= member["valid_after_retry"] <= 1, name
            alone = member["alone"]
            assert 0 <= alone["valid_first_try"] <= alone["valid_after_retry"] <= 1, name
            assert 1 <= alone["calls_per_question"] <= 2 and alone["tokens_per_question"] > 0
        final = council["final_by"]
        assert sum(final.values()) == n
        assert round(council["valid"] * n) == final["chairman"] + final["fallback"], name
        assert round(council["valid"] * n) <= council["questions_with_a_valid_member"]
        assert council["valid_given_a_valid_member"] == 1, (name, setup["missed"])
        assert council["valid"] >= max(m["valid_after_retry"] for m in members.values()), name
        assert council["calls_vs_one_member"] > 1 and council["tokens_vs_one_member"] > 1
        assert 0 < council["latency_median_s"] <= council["latency_p95_s"]
    simulated, fake = setups["simulated"], setups["fake"]
    assert simulated["council"]["valid"] == 1 and simulated["council"]["final_by"]["chairman"] == 6
    assert all(m["valid_first_try"] == 1 for m in simulated["members"].values()), "simulated members write valid JSON"
    assert {m["wire_format"] for m in fake["members"].values()} == {"openai", "anthropic", "gemini"}
    for member in fake["members"].values():  # alone, a member gets the same draws as in the council
        assert (member["alone"]["valid_first_try"], member["alone"]["valid_after_retry"]) == \
            (member["valid_first_try"], member["valid_after_retry"])
    assert any(m["valid_first_try"] < 1 for m in fake["members"].values()), "some candidates fail on the fake"
    assert fake["council"]["questions_with_a_valid_member"] < 6, "seed 7: every member fails some question"


@pytest.mark.slow
def test_bench_structured_prints_a_table_per_setup():
    done = subprocess.run([sys.executable, "scripts/bench_structured.py", "--questions", "2", "--setups", "fake",
                           "--latency-ms", "0"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("### fake: 2 questions (flat 1, nested 1), chairman alpha, quorum 2")
    rows = [line.split(" | ")[0] for line in done.stdout.splitlines() if line.startswith("| ") and " s |" in line]
    assert rows == ["| **council**", "| alpha in the council / alone", "| beta in the council / alone",
                    "| gamma in the council / alone", "| delta in the council / alone"]
    assert "the council's answer was valid on" in done.stdout and "x the calls and" in done.stdout


def test_bench_structured_refuses_an_unknown_setup_or_a_rate_out_of_range():
    for argv, message in ((["--setups", "real"], "--setups: expected simulated, fake or both"),
                          (["--invalid-rate", "1.5"], "rates are between 0 and 1"),
                          (["--member-invalid", "omega=0.2"], "--member-invalid: no fake member omega")):
        done = subprocess.run([sys.executable, "scripts/bench_structured.py", *argv],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr, argv


UNSEEN = ROOT / "tests" / "data" / "safety" / "unseen.jsonl"


@pytest.mark.slow
def test_bench_council_reading_runs_on_the_unseen_set_and_reports_only_its_split(tmp_path):
    figures_path = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, "scripts/bench_council_reading.py", "--corpus", str(UNSEEN), "--trials",
                           "1", "--json", str(figures_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = UNSEEN.read_text(encoding="utf-8").splitlines()
    counts = {label: sum(f'"label": "{label}"' in row for row in rows) for label in ("harmful", "benign")}
    printed = re.findall(r"^(\w+)\s+(harmful|benign)\s+(\d+)\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%$", done.stdout,
                         re.MULTILINE)
    assert [(split, label, int(n)) for split, label, n, *_ in printed] == \
        [("unseen", "harmful", counts["harmful"]), ("unseen", "benign", counts["benign"])], done.stdout
    figures = json.loads(figures_path.read_text(encoding="utf-8"))
    assert figures["trials"] == 1 and list(figures["splits"]) == ["unseen"]
    for label, row in figures["splits"]["unseen"].items():
        assert 0 <= row["patterns"] <= 1 and 0 <= row["council"] <= 1, label
        assert max(row["patterns"], row["council"]) <= row["both"] <= row["patterns"] + row["council"], label


@pytest.mark.slow
def test_bench_safety_reports_the_unseen_split_of_the_unseen_set(tmp_path):
    figures_path = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, "scripts/bench_safety.py", "--corpus", str(UNSEEN), "--json",
                           str(figures_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    patterns = json.loads(figures_path.read_text(encoding="utf-8"))["patterns"]
    # Only the split the file holds (beside the cost and the judge-aimed table, empty on this set).
    assert {"unseen", "cost_us_per_kb"} <= set(patterns) and not {"dev", "heldout", "fresh"} & set(patterns)
    recall = patterns["unseen"]["recall"]
    assert {"all", "lang:en", "lang:es", "lang:fr", "lang:de"} <= set(recall)
    assert all(value is not None and 0 <= value <= 1 for value in recall.values())


@pytest.mark.slow
def test_bench_cache_outage_measures_both_outages_and_every_question_is_answered():
    """Two questions a phase: PostgreSQL stopped (misses that run the council, stored once it is back) and SQLite
    locked by another process (hits, stored once it lets go). The figures are timings: their shape is checked."""
    from council.testing.postgres import require_pg_bindir

    require_pg_bindir()
    done = subprocess.run([sys.executable, "scripts/bench_cache_outage.py", "--questions", "2", "--latency", "0",
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout)
    assert figures["questions"] == 2
    assert set(figures["meets_targets"]) == {"postgresql", "sqlite"}
    pg, lite = figures["postgresql"], figures["sqlite"]
    assert [len(pg[phase]) for phase in ("up", "down", "repeats")] == [2, 2, 2]
    assert all(s["status"] == "complete" and s["seconds"] > 0 for phase in ("up", "down", "repeats") for s in pg[phase])
    assert pg["hit_up"]["hit"] and pg["hit_up"]["calls"] == 0
    assert not any(s["hit"] for s in pg["down"] + pg["repeats"]), "a stopped database serves no hit"
    assert all(s["calls"] == pg["cached_run"]["calls"] > 0 for s in pg["repeats"]), "a repeat costs a whole run"
    assert not any(s["stored"] for s in pg["down"] + pg["repeats"]), "stored once PostgreSQL is back, not before"
    assert pg["circuit"]["failures"] >= 1 and pg["stored_after_s"] >= 0
    assert all(s["hit"] and s["calls"] == 0 for s in lite["unlocked"] + lite["locked"]), "a lock stops no hit"
    assert all(s["stored"] for s in lite["unlocked"]) and not any(s["stored"] for s in lite["locked"])


def test_bench_cache_outage_refuses_one_question_or_an_unknown_part():
    for argv, message in ((["--questions", "1"], "--questions must be at least 2"),
                          (["--parts", "mysql"], "expected some of postgresql, sqlite")):
        done = subprocess.run([sys.executable, "scripts/bench_cache_outage.py", *argv],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr, (argv, done.stderr)


@pytest.mark.slow
def test_bench_safety_prints_the_judge_aimed_flag_per_language_and_split():
    done = subprocess.run([sys.executable, "scripts/bench_safety.py", "--split", "dev", "--split", "heldout"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert re.search(r"\d+ aimed at the judges and \d+ hard negatives", out) and "layer: patterns" in out
    table = out[out.index("judge-aimed flag"):]
    for row in ("all", "lang:en", "lang:es", "lang:fr", "lang:de", "kind:judge", "kind:reviser", "kind:system",
                "plain", "disguised", "other benign answers"):
        line = next(line for line in table.splitlines() if line.startswith(row))
        figures = [float(x) for x in re.findall(r"\d\.\d{3}", line)]
        assert figures and all(0 <= x <= 1 for x in figures), line
    recall = [float(x) for x in re.findall(r"\d\.\d{3}", next(line for line in table.splitlines()
                                                              if line.startswith("all")))]
    assert len(recall) == 4, "recall and false positives for dev and for heldout"
    assert re.search(r"cost: median \d+ µs per KB", out)


def test_bench_safety_refuses_a_corpus_line_that_is_not_a_record(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"text": "a", "label": "benign"}\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "scripts/bench_safety.py", "--corpus", str(corpus)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and f"cannot read the corpus {corpus}: line 1: no category" in done.stderr
    corpus.write_text("\n{not json\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "scripts/bench_safety.py", "--corpus", str(corpus)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "line 2: not JSON" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_bench_learned_weights_prints_a_row_per_label_count():
    done = subprocess.run(
        [sys.executable, "scripts/bench_learned_weights.py", "--seeds", "1", "--counts", "0,10,30", "--held-out", "60"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "| labels | learned | default | equal | majority | best judge |" in out
    rows = {int(m): [float(v) for v in rest.split(" | ")] for m, rest in
            re.findall(r"^\| (\d+) \| ([\d. |]+?) \| \d of 1 \| \d of 1 \|$", out, re.MULTILINE)}
    assert sorted(rows) == [0, 10, 30]
    assert all(len(values) == 5 and all(0.0 <= v <= 1.0 for v in values) for values in rows.values())
    # No label learns nothing: the learned ranking is the default one.
    assert rows[0][0] == rows[0][1]
    assert re.search(r"^Runtime: [\d.]+ s, ", out, re.MULTILINE)
    refused = subprocess.run([sys.executable, "scripts/bench_learned_weights.py", "--setting", "ind-A"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--setting must name a correlated jury" in refused.stderr


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_rank_limits_refuses_the_hostile_items_and_ranks_the_largest_allowed():
    done = subprocess.run([sys.executable, "scripts/bench_rank_limits.py"], cwd=ROOT, capture_output=True, text=True,
                          timeout=560)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("limits per item: ") and lines[2].startswith("| Judges x candidates |")
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[4:]]
    assert [row[0] for row in rows] == ["2 x 3", "2 x 100,000", "50,000 x 2", "2 x 1,000", "1,000 x 10", "100 x 100"]
    for judges_by_candidates, _, code, seconds, peak, said in rows:
        assert float(seconds) > 0 and float(peak.removesuffix(" MB")) > 0, judges_by_candidates
        refused = judges_by_candidates in ("2 x 100,000", "50,000 x 2")
        assert code == ("2" if refused else "0"), (judges_by_candidates, said)
        assert ("council rank handles at most" in said) if refused else said == "ranked"
