"""The server's daily budget: new runs get a 429 once the day's spend reaches ``budget.max_usd_per_day``.

The day is UTC. With a run database the sum is kept there (shared by every
replica on one PostgreSQL); without one, in this process. A run's cost is
added when it ends, a pass-through call's when it returns, so a run already
under way finishes even if it takes the day past the cap: the cap stops new
work, it does not cut answers off.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from council.config import CouncilConfig
from council.errors import StorageError
from council.logs import get_logger
from council.pipeline import CallKind, DirectCall, RunArchive, spend_day, usd_of
from council.result import CouncilResult
from council.server.schema import ApiError
from council.types import Usage

_log = get_logger("server.spend")


def seconds_to_midnight() -> int:
    """Seconds until the UTC day rolls over (what ``Retry-After`` says)."""
    now = datetime.now(UTC)
    midnight = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
    return max(1, int((midnight - now).total_seconds()))


class DailySpend:
    """Checks and adds to the day's spend for one server."""

    def __init__(self, config: CouncilConfig, runs: Callable[[], RunArchive | None]) -> None:
        self.cap = config.budget.max_usd_per_day
        self.prices = {m.name: m.price for m in config.members}
        self._runs = runs  # the council opens its store lazily: ask for it each time
        self._local: dict[str, float] = {}  # without a store: this process's sums
        self._last_read = ("", 0.0)  # with a store: the last day's sum read from it ...
        self._unread: dict[str, float] = {}  # ... and what this process added since, for when it cannot be read
        self._adding: set[asyncio.Task[None]] = set()

    @property
    def runs(self) -> RunArchive | None:
        """The run database the sums are kept in, if the council has one."""
        return self._runs()

    async def spent_today(self) -> float:
        """What was spent today (UTC), on every replica sharing the database."""
        day, runs = spend_day(), self.runs
        if runs is None:
            return self._local.get(day, 0.0)
        try:
            spent = await runs.call(runs.spent_on, day)
        except StorageError as error:
            # The database is down: judge by the last sum read plus what this process added since, rather
            # than refuse every run (or hold each one) for the length of the outage.
            last_day, last = self._last_read
            estimate = (last if last_day == day else 0.0) + self._unread.get(day, 0.0)
            _log.warning("daily_spend_estimated", cause=str(error), usd=round(estimate, 6))
            return estimate
        self._last_read = (day, spent)
        self._unread = {}
        return spent

    async def check(self) -> None:
        """A 429 naming the cap when today's spend has reached it; nothing when there is no cap."""
        if self.cap is None:
            return
        spent = await self.spent_today()
        if spent >= self.cap:
            wait = seconds_to_midnight()
            raise ApiError(429, f"the daily budget of ${self.cap:g} is spent (${spent:.4f} today, UTC); new runs are "
                                f"refused until the day rolls over in {wait} s", type="rate_limit_error",
                           code="daily_budget_reached", headers={"Retry-After": str(wait)})

    async def add(self, usd: float | None) -> None:
        """Count ``usd`` toward today (None, an unknown cost, counts nothing); a storage failure is logged."""
        if self.cap is None or not usd:
            return
        day, runs = spend_day(), self.runs
        if runs is None:
            self._local[day] = self._local.get(day, 0.0) + usd
            return
        self._unread[day] = self._unread.get(day, 0.0) + usd
        try:
            # Through the store's writer: an outage keeps the addition and writes it when the database is back.
            await runs.add_spend(day, usd)
        except Exception as error:  # the answer is already computed: losing the tally must not lose it
            _log.error("daily_spend_not_stored", cause=str(error), usd=usd)

    async def add_run(self, result: CouncilResult) -> None:
        """Count a finished run's cost."""
        await self.add(result.cost.total_usd if result.cost is not None else None)

    def record_call_soon(self, member: str, kind: CallKind, usage: Usage | None) -> float | None:
        """Count a call made outside a run (pass-through, side task) behind its answer; its cost, if known.

        The call's row goes to the run database (``council runs --since``)
        and its cost to the day's sum, in the background: the answer never
        waits for the database. ``usage`` None (the member reported none)
        is a call of unknown cost, not a free one.
        """
        usd = None if usage is None else usd_of(usage, self.prices.get(member))
        tokens = (0, 0) if usage is None else (usage.prompt_tokens, usage.completion_tokens)
        call = DirectCall(member, kind, *tokens, usd).stamped()
        task = asyncio.ensure_future(self._record_call(call))
        self._adding.add(task)
        task.add_done_callback(self._adding.discard)
        return usd

    async def _record_call(self, call: DirectCall) -> None:
        await self.add(call.cost_usd)
        runs = self.runs
        if runs is None:
            return
        try:
            await runs.record_call(call)
        except Exception as error:  # the answer went out already: a lost row must not become an error
            _log.error("direct_call_not_stored", cause=str(error), member=call.member, kind=call.kind)

    def add_soon(self, result: CouncilResult) -> None:
        """Count a run from a done-callback (where nothing can be awaited)."""
        if self.cap is None:
            return
        task = asyncio.ensure_future(self.add_run(result))
        self._adding.add(task)  # held until done: an unreferenced task could be collected mid-write
        task.add_done_callback(self._adding.discard)


def call_cost_headers(usd: float | None) -> dict[str, str]:
    """``x-council-cost-usd`` of one direct call, when it is priced."""
    return {} if usd is None else {"x-council-cost-usd": f"{usd:.6f}"}


def cost_headers(result: CouncilResult) -> dict[str, str]:
    """``x-council-cost-usd`` (with ``x-council-cost-partial`` when some calls had no price), if any cost is known."""
    cost = result.cost
    if cost is None or cost.total_usd is None:
        return {}
    headers = {"x-council-cost-usd": f"{cost.total_usd:.6f}"}
    if cost.partial:
        headers["x-council-cost-partial"] = "true"
    return headers
