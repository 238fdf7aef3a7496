"""Running an evaluation: every sample, concurrently, each one stored as soon as it is done.

**Council mode** (the default). Each sample goes through the whole council
(``Council.ask``: answers, safety gate, review, ranking, final answer), and
the candidate answer is the council's final answer, scored by the evaluator
member (the chairman by default, else the first member). The per-sample
measurements describe what one request to the council costs:

- ``latency_e2e_ms``: from calling the council to its final answer fully
  received (the chairman's stream included), the evaluator's call excluded;
- ``latency_model_ms``: the model time on the council's critical path, as
  the provider clients reported it: the slowest answer, plus the slowest
  review, plus the chairman;
- tokens: the spec's ``input_tokens`` and ``output_tokens`` are the call
  that produced the answer returned (the chairman's, or the top-ranked
  member's answer when it is final), which is what the spec's per-sample
  token condition is about; ``spent_input_tokens`` and
  ``spent_output_tokens`` are every upstream call of the council run
  (answers, reviews, safety, chairman), what the answer cost, gated apart.
  The evaluator's tokens are measurement, not cost, and are reported apart
  (``evaluator_tokens_total``).

**Judge mode** (``judge=MEMBER``). Each member answers each sample on its
own (one call, no review) and the judge scores every answer, giving one
subject per member. Latency is that one call seen from the runner
(``latency_e2e_ms``) and from the provider client (``latency_model_ms``),
tokens are that call's. The gate is checked per member, and the run's gate
holds only when it holds for every member evaluated (choose members with
``members=`` to gate one model).

In both modes every call uses the generation defaults
(:data:`council.evals.manifest.DEFAULT_PARAMS`): answers and the chairman
per request, and the calls that use a member's own settings (reviews, the
safety member, rubric verdicts) because the CLI builds the council from
:func:`council.evals.manifest.pinned_config`. A sample that takes
longer than ``sample_timeout_s`` is abandoned and recorded ``timed_out``
with its elapsed time, as is a judge-mode member whose call timed out; a
sample with no answer is never sent to the evaluator, fails, and scores
nothing for accuracy and faithfulness.

With ``repeat`` N every sample runs N times. Metrics are computed per
repeat (for the mean and standard deviation across repeats) and over all
repeats pooled (for the gate).

**Cost.** Each sample records what its answer cost in US dollars
(``metrics.cost_usd``): in council mode the council run's total
(``CouncilResult.cost``), in judge mode the member's one call priced with
the member's ``price`` (or the upstream's reported cost). The evaluator's
calls are priced with its own price and kept apart
(``evaluation.cost_usd``), as its tokens are. A cost that is not known (no
price, no reported cost, or a council run abandoned at its timeout) is None,
never 0, and totals over it say they are partial.

**Budget.** With ``max_usd`` the runner keeps a running total of what the
samples it runs cost (answer and evaluation; an unknown cost counts 0, which
is why the CLI refuses a budget when a member the run calls has no price).
Before a sample starts, the total is checked: once it reaches ``max_usd`` no
new sample starts, the samples in flight finish and are stored, and the run
is marked ``stopped`` with the reason in ``summary.budget``. The total
counts only this runner's samples, so a resumed run gets a fresh budget.
The calls of AgentV rubric verdicts are not priced.

**Call reuse.** With ``reuse_calls`` (off with ``--fresh``) a call asked as
before gets its kept reply (:mod:`council.evals.reuse`): the sample's cost
counts it at what it cost when made (``reused_usd``), the budget does not,
and the manifest sums the reused calls per kind (``reused_calls``).
"""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from datetime import UTC, datetime

from council.config import Price
from council.errors import ProviderError
from council.evals.candidates import score_candidates, with_candidates
from council.evals.dataset import Dataset, Sample
from council.evals.evaluator import Evaluation, evaluate_sample
from council.evals.gate import check_gate, repeat_stats
from council.evals.leaderboard import council_leaderboard, judge_leaderboard
from council.evals.manifest import alias_warnings, model_record, role_warnings, run_notices
from council.evals.metrics import (
    SampleMetrics,
    aggregate_metrics,
    failed_conditions,
    model_critical_path_ms,
    returned_answer_usage,
    sample_score,
    usd,
)
from council.evals.records import (
    COUNCIL_SUBJECT,
    BudgetStatus,
    EvalStore,
    EvalSummary,
    RunManifest,
    SampleRecord,
    SubjectSummary,
)
from council.evals.reuse import reuse_scope, runner_reuse, sample_seed, settle_kept
from council.evals.spending import budget_spend, cost_summary, evaluator_tokens
from council.evals.structured import candidates_valid, member_valid_rates, schema_valid, structured_member_answer
from council.pipeline.call_reuse import reusable_call, reused_in
from council.pipeline.cost import usd_of
from council.pipeline.judge import judge_answer
from council.pipeline.orchestrator import Council
from council.pipeline.request import RunRequest
from council.result import CouncilResult
from council.types import ChatMessage, Completion, GenerationParams, Usage

RecordSink = Callable[[SampleRecord], None]
Unit = tuple[int, Sample, str]


class EvalRunner:
    """Runs the samples of one manifest that are not stored yet, then summarizes the whole run.

    With ``max_usd``, no sample starts once what this runner's samples cost
    reaches it (module docstring); the run is then ``stopped``.
    """

    def __init__(self, council: Council, store: EvalStore, dataset: Dataset, manifest: RunManifest,
                 on_record: RecordSink | None = None, max_usd: float | None = None) -> None:
        self.council = council
        self.store = store
        self.dataset = dataset
        self.manifest = manifest
        self.on_record = on_record or (lambda record: None)
        self.max_usd = max_usd
        self.spent_usd = 0.0
        self.stopped = False
        self._writes: list[asyncio.Future[None]] = []

    def _over_budget(self) -> bool:
        return self.max_usd is not None and self.spent_usd >= self.max_usd

    @property
    def subjects(self) -> list[str]:
        """What is evaluated: the council, or each member in judge mode."""
        return [COUNCIL_SUBJECT] if self.manifest.mode == "council" else list(self.manifest.members)

    def pending(self) -> list[Unit]:
        """Every (repeat, sample, subject) not stored yet, in order."""
        done = self.store.done_keys(self.manifest.run_id)
        return [(repeat, sample, subject) for repeat in range(self.manifest.repeat)
                for sample in self.dataset.samples for subject in self.subjects
                if (repeat, sample.id, subject) not in done]

    async def run(self) -> EvalSummary:
        """Run what is pending with ``concurrency`` samples in flight, then summarize and mark the run complete.

        An interruption (cancellation, Ctrl-C) marks the run ``interrupted``;
        what finished is stored and ``resume`` picks up the rest.
        """
        queue = deque(self.pending())

        async def worker() -> None:
            # The budget is checked before each sample starts; samples already in flight finish and are stored.
            while queue and not self._over_budget():
                record = await self._run_unit(*queue.popleft())
                await self.store.call(self.store.save_sample, record)
                self.spent_usd += budget_spend(record)
                self.on_record(record)

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.manifest.concurrency, len(queue))):
                    group.create_task(worker())
        except BaseExceptionGroup as group:
            self.store.update_run(self.manifest.run_id, status="interrupted")
            # One worker's failure (a broken database) is the error to report, not the group around it.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        except BaseException:
            self.store.update_run(self.manifest.run_id, status="interrupted")
            raise
        self.stopped = bool(queue)
        summary = self.summarize()
        self.store.update_run(self.manifest.run_id, status="stopped" if self.stopped else "complete",
                              manifest=self.manifest, summary=summary)
        return summary

    async def _run_unit(self, repeat: int, sample: Sample, subject: str) -> SampleRecord:
        if self.manifest.mode == "council":
            return await self._council_sample(repeat, sample)
        return await self._judge_sample(repeat, sample, subject)

    async def _council_sample(self, repeat: int, sample: Sample) -> SampleRecord:
        run_id = uuid.uuid4().hex
        params = self.manifest.generation_params
        started = time.perf_counter()
        result: CouncilResult | None = None
        status, error = "ok", None
        plan = self.council.plan(RunRequest(
            messages=sample.messages, members=self.manifest.members, params=params, preset=self.manifest.preset,
            output_type=sample.output_schema,
            reuse_scope=reuse_scope(repeat) if self.manifest.reuse_calls else None,
            shuffle_seed=sample_seed(self.council.config.review.seed, sample.id, repeat)))
        try:
            async with asyncio.timeout(self.manifest.sample_timeout_s):
                result = await self.council.ask(plan, run_id=run_id)
        except TimeoutError:
            status, error = "timed_out", f"no final answer within {self.manifest.sample_timeout_s:g}s"
        elapsed = (time.perf_counter() - started) * 1000
        answer, by = None, None
        if result is not None:
            final = result.final_answer
            if result.status not in ("complete", "blocked"):
                status, error = "failed", result.error or "the council run failed"
            elif final is None or final.blocked or not final.content.strip():
                status, error = "failed", "no final answer (every answer was blocked or empty)"
            else:
                answer, by = final.content, final.by
        usage = result.usage if result is not None else None
        # The spec's per-sample tokens are the answer returned; the whole council's spend is kept beside them.
        returned = returned_answer_usage(result) if answer is not None and result is not None else Usage()
        # A run abandoned at the sample timeout has no cost record: its cost is unknown, not 0.
        cost = result.cost if result is not None else None
        metrics = SampleMetrics(
            answered=answer is not None, latency_e2e_ms=elapsed, timed_out=status == "timed_out",
            latency_model_ms=model_critical_path_ms(result) if result is not None else None,
            input_tokens=returned.prompt_tokens, output_tokens=returned.completion_tokens,
            spent_input_tokens=usage.prompt_tokens if usage else 0,
            spent_output_tokens=usage.completion_tokens if usage else 0,
            # What the answer costs, reused calls at what they cost when made (the spend is the budget's business).
            cost_usd=cost.total_usd + cost.reused_usd if cost and cost.total_usd is not None else None,
            cost_partial=cost.partial if cost else False,
            schema_valid=schema_valid(sample, answer),
        )
        versions = {a.member: a.model_version for a in result.answers if a.model_version} if result else {}
        record = await self._finish(repeat, sample, COUNCIL_SUBJECT, status, error, answer, by, run_id, versions,
                                    metrics, list(cost.unpriced) if cost else [],
                                    reused_in(result) if result is not None else {}, cost.reused_usd if cost else 0.0)
        scored = await score_candidates(
            self.council.provider(self.manifest.evaluator.member), sample, result, params,
            self.manifest.evaluator_template, runner_reuse(self.council.store, self.manifest.reuse_calls, repeat),
            self._price(self.manifest.evaluator.member)) if self.manifest.score_candidates else {}
        return with_candidates(record.model_copy(update={"candidates_valid": candidates_valid(result)}), scored)

    async def _judge_sample(self, repeat: int, sample: Sample, member: str) -> SampleRecord:
        provider = self.council.provider(member)
        started = time.perf_counter()
        completion: Completion | None = None
        status, error, reused = "ok", None, False
        params = self.manifest.generation_params
        reuse = runner_reuse(self.council.store, self.manifest.reuse_calls, repeat)
        async def call(messages: list[ChatMessage], asked: GenerationParams | None) -> Completion:
            nonlocal reused
            answered, reused = await reusable_call(reuse, "answer", provider, messages, asked,
                                                   functools.partial(provider.complete, messages, asked),
                                                   kept=self._writes.append)
            return answered

        try:
            async with asyncio.timeout(self.manifest.sample_timeout_s):
                if sample.output_schema is not None:
                    completion = await structured_member_answer(provider, sample, params, call)
                else:
                    completion = await call(list(sample.messages), params)
        except TimeoutError:
            status, error = "timed_out", f"no answer within {self.manifest.sample_timeout_s:g}s"
        except ProviderError as exc:
            status = "timed_out" if exc.reason == "timeout" else "failed"
            error = f"{exc.reason}: {exc}"
        elapsed = (time.perf_counter() - started) * 1000
        answer = completion.content if completion is not None and completion.content.strip() else None
        if completion is not None and answer is None:
            status, error = "failed", f"empty answer (finish_reason {completion.finish_reason})"
        # A call that failed with no usage reported cost nothing known: $0 for a priced member, else unknown.
        usd = usd_of(completion.usage if completion else Usage(), self._price(member))
        metrics = SampleMetrics(
            answered=answer is not None, latency_e2e_ms=elapsed, timed_out=status == "timed_out",
            latency_model_ms=completion.latency_ms if completion is not None else None,
            input_tokens=completion.usage.prompt_tokens if completion else 0,
            output_tokens=completion.usage.completion_tokens if completion else 0,
            cost_usd=usd, schema_valid=schema_valid(sample, answer),
        )
        versions = {member: completion.model_version} if completion and completion.model_version else {}
        return await self._finish(repeat, sample, member, status, error, answer, member, None, versions, metrics,
                                  [member] if usd is None else [], {"answer": 1} if reused else {},
                                  (usd or 0.0) if reused else 0.0)

    def _price(self, member: str) -> Price | None:
        return self.council.config.member(member).price

    async def _finish(self, repeat: int, sample: Sample, subject: str, status: str, error: str | None,
                      answer: str | None, by: str | None, council_run_id: str | None, versions: dict[str, str],
                      metrics: SampleMetrics, unpriced: list[str], reused: dict[str, int],
                      reused_usd: float) -> SampleRecord:
        evaluator = self.manifest.evaluator.member
        if answer is None:
            evaluation = Evaluation(evaluator_error="no_answer")
        else:
            evaluation = await evaluate_sample(self.council.provider(evaluator), sample, answer,
                                               self.manifest.generation_params, self.manifest.evaluator_template,
                                               runner_reuse(self.council.store, self.manifest.reuse_calls, repeat),
                                               self._writes.append)
            metrics = metrics.model_copy(update={"accuracy_score": evaluation.accuracy_score,
                                                 "faithfulness_score": evaluation.faithfulness_score})
        writes, self._writes = self._writes, []  # taken first: other samples go on adding theirs meanwhile
        await settle_kept(writes)
        if evaluation.reused:
            reused = {**reused, "evaluation": evaluation.reused}
        evaluation.cost_usd = usd_of(evaluation.usage, self._price(evaluator))
        if evaluation.attempts and evaluation.reused == evaluation.attempts:
            reused_usd += evaluation.cost_usd or 0.0  # kept replies are not paid for again
        verdicts, rubric_failures = [], []
        for rubric in self.dataset.rubrics.get(sample.id, []):
            if answer is None:
                break
            verdict = await judge_answer(self.council, sample.messages, answer, rubric)
            verdicts.append(verdict)
            if not verdict.passed:
                why = f"; required {', '.join(verdict.failed_required)} failed" if verdict.failed_required else ""
                rubric_failures.append(f"rubric {rubric.id}: failed at {verdict.score:.0%} "
                                       f"(pass at {verdict.threshold:.0%}){why}")
        # A failed verdict is one of the sample's failures, so it counts wherever a pass is counted.
        metrics = metrics.model_copy(update={"other_failures": rubric_failures})
        reasons = failed_conditions(metrics, self.manifest.thresholds)
        return SampleRecord(
            run_id=self.manifest.run_id, repeat=repeat, sample_id=sample.id, subject=subject,
            question=sample.question[:300], status=status, error=error, candidate_answer=answer, answered_by=by,
            council_run_id=council_run_id, model_versions=versions, evaluator=evaluator, metrics=metrics,
            evaluation=evaluation, passed=not reasons, failed_conditions=reasons, sample_score=sample_score(metrics),
            created_at=datetime.now(UTC), rubric_verdicts=verdicts, unpriced=unpriced, reused_calls=reused,
            reused_usd=reused_usd,
        )

    def _complete_manifest(self, records: list[SampleRecord]) -> None:
        seen: dict[str, set[str]] = defaultdict(set)
        evaluator_versions: set[str] = set()
        for record in records:
            for member, model_version in record.model_versions.items():
                seen[member].add(model_version)
            if record.evaluation.model_version:
                evaluator_versions.add(record.evaluation.model_version)
        config = self.council.config
        notice = run_notices(self.manifest.repeat, self.manifest.evaluator_template, self.dataset)
        models = [model_record(config, m, seen.get(m, ())) for m in self.manifest.members]
        evaluator = model_record(config, self.manifest.evaluator.member, evaluator_versions)
        reused: Counter[str] = Counter()
        for record in records:
            reused.update(record.reused_calls)
        self.manifest = self.manifest.model_copy(update={
            "models": models, "evaluator": evaluator, "reused_calls": dict(sorted(reused.items())),
            "warnings": alias_warnings([*models, evaluator]) + role_warnings(
                config, self.manifest.mode, self.manifest.members, evaluator.member) + notice,
        })

    def summarize(self) -> EvalSummary:
        """Metrics, repeat statistics and gate per subject, and the leaderboard, from every stored sample."""
        records = self.store.samples(self.manifest.run_id)
        self._complete_manifest(records)
        thresholds = self.manifest.thresholds
        subjects = {}
        for subject in self.subjects:
            mine = [r for r in records if r.subject == subject]
            per_repeat = [aggregate_metrics([r.metrics for r in mine if r.repeat == n], thresholds)
                          for n in range(self.manifest.repeat)]
            pooled = aggregate_metrics([r.metrics for r in mine], thresholds)
            failures = [failed_conditions(r.metrics, thresholds) for r in mine]
            reasons = Counter(condition.split()[0] for found in failures for condition in found)
            subjects[subject] = SubjectSummary(subject=subject, metrics=pooled, repeats=repeat_stats(per_repeat),
                                               gate=check_gate(pooled, thresholds), n_failed=sum(map(bool, failures)),
                                               failed_because=dict(reasons))
        if self.manifest.mode == "council":
            results = []
            for record in records:
                stored = self.council.store.get(record.council_run_id) if (
                    self.council.store is not None and record.council_run_id) else None
                if stored is not None:
                    results.append((record.sample_id, stored))
            leaderboard = council_leaderboard(results, self.council.rubric, self.manifest.aggregation_method,
                                              self.manifest.members)
        else:
            leaderboard = judge_leaderboard(records, self.manifest.members, thresholds)
        return EvalSummary(
            run_id=self.manifest.run_id, mode=self.manifest.mode,
            gate_passed=bool(subjects) and all(s.gate.passed for s in subjects.values()),
            subjects=subjects, leaderboard=leaderboard,
            evaluator_tokens_total=evaluator_tokens(records),
            cost=cost_summary(records), budget=self._budget_status(len(records)),
            warnings=self.manifest.warnings,
            member_schema_valid_rate=member_valid_rates([r.candidates_valid for r in records if r.candidates_valid]),
        )

    def _budget_status(self, done: int) -> BudgetStatus | None:
        if self.max_usd is None:
            return None
        total = self.manifest.repeat * len(self.dataset.samples) * len(self.subjects)
        reason = (f"budget ${self.max_usd:g} reached after {done} of {total} samples "
                  f"({usd(self.spent_usd)} spent)") if self.stopped else None
        return BudgetStatus(max_usd=self.max_usd, spent_usd=self.spent_usd, stopped=self.stopped, done=done,
                            total=total, reason=reason)
