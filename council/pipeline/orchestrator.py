"""The council run: answers, safety gate, review, aggregation, final answer.

:class:`Council` is the Python API::

    result = await Council.from_config("council.yaml").ask("Why is the sky blue?")

A run never raises for an upstream failure: members that fail, time out or
are blocked are recorded with their reason, the run goes on with the rest,
and the result says when it is degraded. Only a bad question, a bad config
or a broken database raise (as :class:`~council.errors.CouncilError`).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from council.assets import prompt_hash
from council.config import CouncilConfig, config_path_from, load_config, resolve_api_keys, simulated_config_path
from council.config.sections import MemberConfig
from council.errors import InvalidRequestError, StorageError
from council.events import EventSink, RunFinishedEvent, RunStartedEvent, ignore_events
from council.logs import get_logger
from council.pipeline.archive import Conversations, RunArchive
from council.pipeline.context import RunContext, elapsed_ms
from council.pipeline.cost import run_cost
from council.pipeline.kept_session import KeptSession
from council.pipeline.members import Member
from council.pipeline.new_run import new_result, prompts_of
from council.pipeline.payloads import run_finished_data
from council.pipeline.persist import queue_save, save_finished
from council.pipeline.plan import RunPlan, build_plan
from council.pipeline.request import Question, RunRequest
from council.pipeline.result_cache import CacheCircuit, cacheable, run_key, serve_hit
from council.pipeline.safety_stage import check_texts
from council.pipeline.stages import run_stages
from council.pipeline.stragglers import settle_late_calls
from council.presets import CouncilPreset
from council.providers import Provider, build_providers, check_member_params
from council.result import CouncilResult
from council.rubrics.catalog import RubricCatalog
from council.rubrics.load import is_rubric_path, load_rubric
from council.rubrics.model import Rubric
from council.safety.gate import SafetyVerdict
from council.safety.moderation import Moderator, moderation_api_key
from council.simulation import behaviour_for
from council.storage.result_cache import cached_run_id, queue_cache_entry
from council.storage.run_records import Stage
from council.storage.store import Store
from council.transport.base import HttpTransport

_log = get_logger("council")
NOT_CACHED = "the result could not be remembered by the result cache"


class Council:
    """A configured council, ready to answer questions.

    It keeps one HTTP session for all its questions, from the first call
    until :meth:`aclose`, the end of an ``async with`` block, or the end of
    the event loop (``asyncio.run`` closes it quietly); bare ``await
    council.ask(...)`` calls one after another share it too. Its connection
    pool is sized for ``runs_at_once`` runs at once (default
    ``server.max_concurrent_runs``) unless ``transport`` in the config sets
    the limits; more runs at once still complete, waiting for a connection.
    ``members=`` (and ``chairman=``) instead of a config: a council in memory, with no store unless given one.
    """

    def __init__(
        self,
        config: CouncilConfig | None = None,
        *,
        members: Sequence[MemberConfig] | None = None, chairman: str | None = None,
        store: Store | bool | None = None,
        transport: HttpTransport | None = None,
        environ: Mapping[str, str] | None = None,
        runs_at_once: int | None = None,
    ) -> None:
        config = CouncilConfig.for_council(config, members=members, chairman=chairman)
        if runs_at_once is not None and runs_at_once < 1:
            raise ValueError(f"runs_at_once must be at least 1, got {runs_at_once}")
        check_member_params(config)
        self.config = config
        self._keys = resolve_api_keys(config, environ)
        self._moderation_key = moderation_api_key(config, environ)
        self._moderator: Moderator | None = None
        source_dir = Path(config.source).parent if config.source != "<memory>" else None
        self.rubric = load_rubric(config.rubric, relative_to=source_dir)
        self._transport = transport
        self._owns_transport = transport is None
        # The pool is sized for the runs expected at once (the server's admission by default), so that a
        # gateway serving every member, one host, does not hold admitted runs back.
        self._kept = KeptSession(config.transport_for(runs_at_once or config.server.max_concurrent_runs))
        self._providers: dict[str, Provider] | None = None
        self._owns_store = store is True or (store is None and members is None)
        self.store: Store | None = self._open_store() if self._owns_store else (store if isinstance(store, Store)
                                                                                 else None)
        self._config_hash = hashlib.sha256(config.model_dump_json().encode()).hexdigest()[:16]
        #: The result cache's circuit: open after a failed lookup, so an outage costs one wait, not one a request.
        self.cache_circuit = CacheCircuit(first_pause_s=config.cache.outage_pause_s,
                                          max_pause_s=max(60.0, config.cache.outage_pause_s))

    @classmethod
    def from_config(cls, path: str | Path | None = None, *, environ: Mapping[str, str] | None = None,
                    **kwargs: Any) -> Council:
        """Load ``path`` (or ``$COUNCIL_CONFIG``, else the simulated council) and build a council."""
        import os

        env = os.environ if environ is None else environ
        chosen = config_path_from(path, env) or simulated_config_path()
        return cls(load_config(chosen, env), environ=env, **kwargs)

    def _open_store(self) -> Store:
        storage = self.config.storage
        return Store(storage.location, pool_size=storage.pool_size, critical_wait_s=storage.critical_wait_s)

    async def __aenter__(self) -> Council:
        self._ensure_providers()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP session and the store, if this council opened them.

        Calls still running fail with a typed connection error for their
        members; a later :meth:`ask` opens a fresh session (and the store, if
        this council owns it) and works as before.
        """
        await self._close_transport()
        if self._owns_store and self.store is not None:
            store, self.store = self.store, None
            await asyncio.to_thread(store.close)  # waits for writes in flight

    async def _close_transport(self) -> None:
        if self._owns_transport:
            self._transport = self._providers = self._moderator = None
            await self._kept.aclose()

    def _ensure_providers(self) -> dict[str, Provider]:
        if self._owns_transport:
            transport = self._kept.transport()  # a new one after aclose(), or from another event loop
            if transport is not self._transport:
                self._transport, self._providers, self._moderator = transport, None, None
        assert self._transport is not None
        if self._providers is None:
            self._providers = build_providers(self.config, self._transport, self._keys, behaviour_for)
        moderation = self.config.safety.moderation_provider
        if moderation is not None and self._moderator is None:
            self._moderator = Moderator(moderation, transport=self._transport, retry=self.config.retry,
                                        api_key=self._moderation_key)
        return self._providers

    @property
    def member_names(self) -> list[str]:
        """Every configured member, in config order."""
        return [m.name for m in self.config.members]

    def plan(self, request: RunRequest | Question, **options: Any) -> RunPlan:
        """Check a run request and return its :class:`RunPlan`; :meth:`ask` runs it.

        ``request`` is a :class:`RunRequest`, or the question (a string or a
        conversation) with the request's options as keyword arguments:
        ``members``, ``chairman`` (a member, ``"none"``/None for the top
        answer as it is, ``"default"``), ``rubric`` (a :class:`Rubric`, a
        registered id, ``id@version``, a shipped name or a path; a reference
        is read from the database or the disk: from async code, call this in
        a thread, as :meth:`ask` does), ``preset`` (a preset from the
        config's ``councils:``; options given here still win), ``rounds``,
        ``params`` (temperature, max_tokens, seed, ... for the members'
        answers and the chairman; reviews keep each member's own),
        ``max_usd`` (a cap on what the run spends, at most
        ``budget.max_usd_per_run`` when that is set: calls that would not
        fit are not made, and the run degrades instead), ``cache=False``
        (neither answered from the result cache nor remembered by it),
        ``shuffle_seed`` and ``reuse_scope``; see :class:`RunRequest`.
        Raises :class:`~council.errors.InvalidRequestError` naming the option at fault.
        """
        run_request = RunRequest.of(request, **options)
        plan = build_plan(self.config, run_request, default_rubric=self.rubric, resolve_rubric=self.resolve_rubric,
                          named_rubric=self.named_rubric)
        if not plan.use_cache:
            return plan
        hashes = {name: prompt_hash(name) for name in prompts_of(plan.rounds)}
        key = run_key(plan, self.config, self._config_hash, hashes)
        return replace(plan, cache_key=key)

    async def ask(
        self,
        request: RunPlan | RunRequest | Question,
        *,
        on_event: EventSink | None = None,
        run_id: str | None = None,
        cache_hit: CouncilResult | None = None,
        cache_checked: bool = False,
        storage_waited_s: float = 0.0,
        **options: Any,
    ) -> CouncilResult:
        """Run the whole council on a question, a conversation, a :class:`RunRequest` or a :class:`RunPlan`.

        The options are :meth:`plan`'s (a request or a plan already holds
        them: give none with one). ``run_id`` lets a caller name the run
        before it starts (the server sends it in a response header); by
        default a fresh one is drawn. ``on_event`` receives the run's
        progress events. ``cache_hit`` is what :meth:`lookup_cache` found for
        the plan (the server looks first, to say so in its headers, and
        passes ``cache_checked=True`` so a miss is not looked up twice,
        and ``storage_waited_s``, how long that lookup took); otherwise a
        plan that may use the cache looks itself. The lookup's wait counts
        in the run's ``storage.critical_wait_s``: a database that is down
        costs the run one wait in all, not one for the lookup and another
        for the run.
        """
        if self.store is None and self._owns_store:
            self.store = await asyncio.to_thread(self._open_store)  # reopened after aclose(), like the session
        if isinstance(request, RunPlan):
            if options:
                raise InvalidRequestError(f"a RunPlan holds its options; give them to Council.plan, not with the "
                                          f"plan: {', '.join(sorted(options))}", option=min(options))
            plan = request
        else:
            run_request = RunRequest.of(request, **options)
            # A registered rubric is read from the database, a named one from disk: neither on the event loop.
            by_reference = isinstance(run_request.rubric, str)
            plan = await asyncio.to_thread(self.plan, run_request) if by_reference else self.plan(run_request)
        sink = on_event or ignore_events
        if cache_hit is None and not cache_checked:
            looked_up = time.monotonic()
            cache_hit = await self.lookup_cache(plan)
            storage_waited_s += time.monotonic() - looked_up
        if cache_hit is not None:
            result = await serve_hit(cache_hit, run_id or uuid.uuid4().hex, plan.chairman, sink, self.store,
                                     self.config.storage.critical_wait_s, storage_waited_s)
        else:
            # Every call shares the one session, kept open until aclose() or the end of the event loop.
            result = await self._run(plan, self._ensure_providers(), sink, run_id, storage_waited_s)
        if plan.output is not None:
            result._read_output = plan.output.output_of
        return result

    async def lookup_cache(self, plan: RunPlan) -> CouncilResult | None:
        """The stored run that answers ``plan`` from the result cache, or None (a miss, or no cache for it).

        A database that is down or slow costs the cache, never the answer:
        after ``storage.critical_wait_s`` the run goes on as a miss, and the
        :class:`CacheCircuit` skips lookups (misses at no cost) until a probe
        finds the database back, probing only once the store's writer has no
        writes waiting for it.
        """
        store, key = self.store, plan.cache_key
        if key is None or store is None or not self.cache_circuit.allows(writes_waiting=store.db.writes_waiting):
            return None

        def read() -> CouncilResult | None:
            run_id = cached_run_id(store, key)
            return store.get(run_id) if run_id is not None else None

        try:
            cached = await asyncio.wait_for(asyncio.to_thread(read), timeout=self.config.storage.critical_wait_s)
        except (TimeoutError, StorageError) as error:
            # Once it failed, the next lookups cost nothing until a probe finds the database back.
            self.cache_circuit.failed(str(error) or "timed out")
            if isinstance(error, TimeoutError):
                store.db.note_unreachable()  # its run, and the next ones, need not wait for it again
            return None
        self.cache_circuit.succeeded()
        return cached if cached is not None and cacheable(cached) else None

    @property
    def presets(self) -> dict[str, CouncilPreset]:
        """The presets this council offers (``councils:`` in the config), by name."""
        return dict(self.config.councils)

    def resolve_rubric(self, reference: Rubric | str) -> Rubric:
        """A rubric object, a registered ``id`` / ``id@version``, a shipped name, or a path.

        A relative path is taken from the current directory, as a path typed
        on a command line is; only paths written in the config file (its
        ``rubric:``, a preset's) are relative to that file.
        """
        if isinstance(reference, Rubric):
            return reference
        if self.store is not None and not is_rubric_path(reference):
            registered = self.store.get_rubric(reference)
            if registered is not None:
                return registered
        return load_rubric(reference)

    @property
    def rubric_catalog(self) -> RubricCatalog:
        """The rubrics a remote client may choose by name (configured, shipped, registered)."""
        return RubricCatalog(self.config.rubric, self.rubric, self.store)

    def named_rubric(self, reference: str) -> Rubric:
        """A rubric chosen over HTTP: a name from :attr:`rubric_catalog`, never a path.

        Raises :class:`~council.rubrics.catalog.UnknownRubricError` (the same for
        every reference that is not on offer, whatever is on the disk).
        """
        return self.rubric_catalog.named(reference)

    def provider(self, member: str) -> Provider:
        """The client of one member, for pass-through calls (``KeyError`` if unknown)."""
        return self._ensure_providers()[member]

    async def check_safety(self, question: str, text: str) -> SafetyVerdict | None:
        """The run's safety gate on one text (patterns, then the configured second check); None when it is off."""
        if not self.config.safety.enabled:
            return None
        providers = self._ensure_providers()
        checked, _ = await check_texts(self.config, {"text": text}, question=question, providers=providers,
                                       moderator=self._moderator)
        return checked["text"]

    def _queue_save(self, ctx: RunContext, stage: Stage) -> None:
        queue_save(ctx, self.store, stage)

    async def _run(self, plan: RunPlan, providers: dict[str, Provider], sink: EventSink,
                   run_id: str | None, storage_waited_s: float = 0.0) -> CouncilResult:
        started = time.perf_counter()
        seed = next(s for s in (plan.shuffle_seed, self.config.review.seed, secrets.randbits(31)) if s is not None)
        members = list(plan.members)
        result = new_result(self.config, self._config_hash, plan, seed, run_id)
        ctx = RunContext(plan, self.config, providers, result, sink, seed, store=self.store, moderator=self._moderator,
                         budget=plan.new_budget(self.config), call_reuse=plan.call_reuse(self.store),
                         storage_waited_s=storage_waited_s)
        ctx.emit(RunStartedEvent(ctx.run_id, {"members": members, "chairman": plan.chairman,
                                              "simulated": result.simulated}))
        try:
            self._queue_save(ctx, "started")
            so_far = await run_stages(ctx)
            if so_far.stop is not None:
                return await self._finish_failed(ctx, started, so_far.stop)
            return await self._finish(ctx, started)
        except asyncio.CancelledError:
            # Keep what the run reached: a stopped run is on record as interrupted, not left "running".
            result.status = "interrupted"
            result.degrade("the run was interrupted before it finished")
            await self._finish(ctx, started)
            raise
        except Exception as error:
            _log.error("run_crashed", run_id=result.run_id, error=error, exc_info=True)
            return await self._finish_failed(ctx, started, f"internal error: {type(error).__name__}: {error}")

    async def _finish_failed(self, ctx: RunContext, started: float, error: str) -> CouncilResult:
        ctx.result.status = "failed"
        ctx.result.error = error
        ctx.result.degrade(error)
        return await self._finish(ctx, started)

    async def _finish(self, ctx: RunContext, started: float) -> CouncilResult:
        result = ctx.result
        changed = settle_late_calls(result, ctx.late_calls)
        # What the late calls delivered joins the stored record.
        if "answer" in changed:
            self._queue_save(ctx, "answers")
        if "review" in changed:
            self._queue_save(ctx, "ranking")
        result.usage = result.total_usage()
        safety = ctx.config.safety
        prices = {m.name: m.price for m in ctx.config.members}
        if safety.moderation_provider is not None and safety.classifier is not None:
            prices[safety.classifier] = safety.moderation_provider.price
        result.cost = run_cost(result, prices, safety.classifier, ctx.plan.chairman)
        if ctx.budget is not None:
            result.cost.budget_usd = ctx.budget.limit_usd
            if ctx.budget.refused:
                result.degrade(f"budget ${ctx.budget.limit_usd:g} reached: not called: {', '.join(ctx.budget.refused)}")
            if ctx.budget.over_reported:
                # The bound a call reserved assumes the upstream keeps to max_tokens; these did not, so the run
                # may have spent past its cap: what they reported is counted, and they are named.
                result.degrade(f"upstream over-reported its usage (counted as reported, the budget's bound did not "
                               f"hold): {'; '.join(ctx.budget.over_reported)}")
        result.timings.total_ms = elapsed_ms(started)
        if ctx.plan.cache_key is not None and self.store is not None and cacheable(result):
            # Written with the run's last row, so the next identical question finds it.
            ctx.queued_writes.append((queue_cache_entry(self.store, ctx.plan.cache_key, result.run_id,
                                                        self.config.cache.ttl_s), NOT_CACHED))
        await save_finished(ctx, self.store)
        ctx.emit(RunFinishedEvent(ctx.run_id, run_finished_data(result)))
        return result

    # -- what the faces reach through the council -------------------------------------
    @property
    def runs(self) -> RunArchive | None:
        """The run database this council keeps its runs in (None when it keeps none).

        Asked for each time it is needed: the store closes with
        :meth:`aclose` and a later run opens it again.
        """
        return RunArchive(self.store) if self.store is not None else None

    def member(self, name: str) -> Member:
        """One member, for calls outside a run (pass-through, side tasks); ``KeyError`` if there is none."""
        return Member(self.provider(name))

    def open_conversations(self) -> Conversations:
        """The web page's conversations, in this council's run database (at ``storage:`` without a store).

        The caller closes them. Blocking: call it in a thread from async code.
        """
        return Conversations.open(self.store, self.config.storage.location)
