"""``GET /metrics``: what the server has done, in Prometheus text format (``prometheus-client``).

Series (each prefixed ``council_``): runs started, runs finished by status,
stage durations (histograms), upstream calls by member, role and outcome
(``ok`` or the failure reason: timeout, rate_limited, upstream_error, parse,
...), retries by member (provider attempts after the first, and ballots asked
again), tokens by member and direction, admission queue depth, queue wait
(histogram) and runs in flight, and the database's writes waiting for it
(pending), written late (retried) and dropped while it was down or locked.
Figures come from each finished run's result, from admission and from the
store's writer, so the pipeline knows nothing of metrics. One registry per
server app, not the process-global one, so two apps in one process (tests)
never share counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from council.pipeline import AUTOMATIC_REVIEWER, BacklogFigures, RunArchive
from council.result import CouncilResult, Failure
from council.server.admission import Admission
from council.types import Usage

_STAGE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
_WAIT_BUCKETS = (0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60)
_STAGES = {"answers": "answers_ms", "safety": "safety_ms", "review": "review_ms", "aggregate": "aggregate_ms",
           "final": "final_ms", "total": "total_ms"}
CONTENT_TYPE = CONTENT_TYPE_LATEST


def _outcome(failure: Failure | None) -> str:
    return "ok" if failure is None else failure.reason


class _StorageCollector(Collector):
    """The store's writer as it stands at each scrape (its counts live in the writer, not in this registry)."""

    def __init__(self, runs: Callable[[], RunArchive | None]) -> None:
        self._runs = runs

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        runs = self._runs()
        figures = runs.write_backlog() if runs is not None else BacklogFigures()
        yield GaugeMetricFamily("council_storage_pending_writes",
                                "Writes waiting for a database that is down or locked.", value=figures.pending)
        yield CounterMetricFamily("council_storage_writes_retried",
                                  "Writes that landed after the database was back.", value=figures.retried)
        yield CounterMetricFamily("council_storage_writes_dropped",
                                  "Writes given up: the backlog was full, or the server closed during an outage.",
                                  value=figures.dropped)


class ServerMetrics:
    """The server's Prometheus series, fed by finished runs, by admission and by the store's writer."""

    def __init__(self, admission: Admission, runs: Callable[[], RunArchive | None] = lambda: None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        r.register(_StorageCollector(runs))
        self.runs_started = Counter("council_runs_started", "Council runs started.", registry=r)
        self.runs_finished = Counter("council_runs_finished", "Council runs finished, by status.", ["status"],
                                     registry=r)
        self.stage_seconds = Histogram("council_stage_duration_seconds", "Time per stage of a run.", ["stage"],
                                       buckets=_STAGE_BUCKETS, registry=r)
        self.upstream_calls = Counter("council_upstream_calls", "Calls to members' models, by outcome.",
                                      ["member", "role", "outcome"], registry=r)
        self.retries = Counter("council_upstream_retries", "Attempts after the first, by member and role.",
                               ["member", "role"], registry=r)
        self.tokens = Counter("council_tokens", "Tokens by member and direction.", ["member", "direction"],
                              registry=r)
        self.queue_wait = Histogram("council_queue_wait_seconds", "Time a run waited for a slot.",
                                    buckets=_WAIT_BUCKETS, registry=r)
        queue_depth = Gauge("council_queue_depth", "Runs waiting for a slot.", registry=r)
        in_flight = Gauge("council_runs_in_flight", "Runs holding a slot.", registry=r)
        queue_depth.set_function(lambda: admission.queued)
        in_flight.set_function(lambda: admission.running)
        admission.on_wait = self.queue_wait.observe

    def run_started(self) -> None:
        """A run took its slot."""
        self.runs_started.inc()

    def run_finished(self, result: CouncilResult) -> None:
        """Count what a finished run did: its status, stages, calls, retries and tokens."""
        self.runs_finished.labels(result.status).inc()
        for stage, field in _STAGES.items():
            milliseconds = getattr(result.timings, field)
            if milliseconds > 0:
                self.stage_seconds.labels(stage).observe(milliseconds / 1000)
        for answer in result.answers:
            self.upstream_calls.labels(answer.member, "answer", _outcome(answer.error)).inc()
            self._retries(answer.member, "answer", answer.error.attempts if answer.error else answer.attempts)
            self._tokens(answer.member, answer.usage)
        for review in result.reviews:
            if review.reviewer == AUTOMATIC_REVIEWER:
                continue  # code scored it: no model was called
            self.upstream_calls.labels(review.reviewer, "review", _outcome(review.error)).inc()
            self._retries(review.reviewer, "review", max(review.attempts, review.error.attempts if review.error else 1))
            self._tokens(review.reviewer, review.usage)
        final = result.final_answer
        if final is not None and final.source == "chairman":
            self.upstream_calls.labels(final.by, "chairman", "ok").inc()
            self._tokens(final.by, final.usage)

    def _retries(self, member: str, role: str, attempts: int) -> None:
        if attempts > 1:
            self.retries.labels(member, role).inc(attempts - 1)

    def _tokens(self, member: str, usage: Usage) -> None:
        if usage.prompt_tokens:
            self.tokens.labels(member, "input").inc(usage.prompt_tokens)
        if usage.completion_tokens:
            self.tokens.labels(member, "output").inc(usage.completion_tokens)

    def exposition(self) -> bytes:
        """The current figures in Prometheus text format."""
        return generate_latest(self.registry)
