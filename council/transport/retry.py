"""The one place that retries and enforces call deadlines.

Every upstream call of every provider goes through :func:`call_with_retry`:

* it retries only errors marked ``retryable`` (connection errors, timeouts,
  408, 409, 429, 5xx and 529), never any other 4xx or a protocol error;
* it waits exponentially with jitter, or exactly what ``Retry-After`` /
  ``retry-after-ms`` asks, unless that exceeds ``max_retry_after_s``, in which
  case it fails now rather than stall the council;
* it bounds the attempts and gives the whole call a deadline: no attempt
  outlives it, and no wait is started that would end past it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from council.config import RetryPolicy
from council.errors import ProviderError, ProviderTimeoutError
from council.logs import get_logger
from council.transport.http import Endpoint

T = TypeVar("T")
_log = get_logger("retry")


def backoff_delay(policy: RetryPolicy, failed_attempts: int) -> float:
    """The wait after ``failed_attempts`` failures when the upstream named none."""
    base = policy.initial_backoff_s * (2 ** (failed_attempts - 1))
    return float(min(base, policy.max_backoff_s) + random.uniform(0, policy.jitter_s))


class _RetryPlan:
    """Decides whether a failed attempt is retried, and how long to wait first.

    Tenacity asks ``should_retry`` before ``wait``, so the delay chosen here
    (jitter included) is the one actually slept. ``attempts_before`` counts
    the attempts made before tenacity took over (see :func:`call_with_retry`).
    """

    def __init__(self, policy: RetryPolicy, deadline: float, endpoint: Endpoint, attempts_before: int) -> None:
        self.policy = policy
        self.deadline = deadline
        self.endpoint = endpoint
        self.attempts_before = attempts_before
        self.delay = 0.0

    def retries(self, exc: BaseException, attempt: int) -> bool:
        """Whether to try again after ``exc`` ended attempt number ``attempt``; sets :attr:`delay`."""
        if not isinstance(exc, ProviderError) or not exc.retryable:
            return False
        if attempt >= self.policy.max_attempts:
            return False
        if exc.retry_after_s is not None:
            if exc.retry_after_s > self.policy.max_retry_after_s:
                _log.warning(
                    "retry_after_too_long",
                    member=self.endpoint.member,
                    model=self.endpoint.model,
                    retry_after_s=exc.retry_after_s,
                    cap_s=self.policy.max_retry_after_s,
                )
                return False
            delay = exc.retry_after_s
        else:
            delay = backoff_delay(self.policy, attempt)
        if delay >= self.deadline - asyncio.get_running_loop().time():
            return False
        self.delay = delay
        return True

    def should_retry(self, state: RetryCallState) -> bool:
        outcome = state.outcome
        if outcome is None or not outcome.failed:
            return False
        exc = outcome.exception()
        return exc is not None and self.retries(exc, self.attempts_before + state.attempt_number)

    def wait(self, _state: RetryCallState) -> float:
        return self.delay

    def log_retry(self, exc: BaseException | None, attempt: int) -> None:
        """Log the retry about to wait :attr:`delay` after attempt number ``attempt`` failed."""
        _log.warning(
            "retrying",
            provider=self.endpoint.provider,
            member=self.endpoint.member,
            model=self.endpoint.model,
            attempt=attempt,
            wait_s=round(self.delay, 3),
            error=exc,
        )

    def before_sleep(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        self.log_retry(exc, self.attempts_before + state.attempt_number)


async def call_with_retry(
    operation: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    deadline_s: float,
    endpoint: Endpoint,
) -> tuple[T, int]:
    """Run ``operation`` under the retry policy; return its result and the attempts made.

    Raises the last :class:`ProviderError` (with ``attempts`` set) when every
    attempt failed, the error is not retryable, or the deadline is reached.
    """
    deadline = asyncio.get_running_loop().time() + deadline_s
    # Most calls succeed at once, and setting up tenacity costs more CPU than
    # the rest of the call's bookkeeping: the first attempt runs bare, and
    # tenacity takes over only once a retry is due.
    try:
        return await _one_attempt(operation, policy, deadline, deadline_s, endpoint), 1
    except ProviderError as exc:
        first_failure = exc
    plan = _RetryPlan(policy, deadline, endpoint, attempts_before=1)
    if not plan.retries(first_failure, 1):
        first_failure.attempts = 1
        raise first_failure
    plan.log_retry(first_failure, 1)
    await asyncio.sleep(plan.delay)
    retrying = AsyncRetrying(
        retry=plan.should_retry,
        wait=plan.wait,
        stop=stop_after_attempt(policy.max_attempts - 1),
        before_sleep=plan.before_sleep,
        reraise=True,
    )
    attempts = 1
    try:
        async for attempt in retrying:
            with attempt:
                attempts = 1 + attempt.retry_state.attempt_number
                result = await _one_attempt(operation, policy, deadline, deadline_s, endpoint)
    except ProviderError as exc:
        exc.attempts = attempts
        raise
    return result, attempts


async def _one_attempt(
    operation: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    deadline: float,
    deadline_s: float,
    endpoint: Endpoint,
) -> T:
    loop = asyncio.get_running_loop()
    remaining = deadline - loop.time()
    if remaining <= 0:
        raise endpoint.error(ProviderTimeoutError, f"call deadline of {deadline_s:g}s reached", retryable=False)
    limit = remaining if policy.attempt_timeout_s is None else min(policy.attempt_timeout_s, remaining)
    try:
        async with asyncio.timeout(limit):
            return await operation()
    except TimeoutError:
        what = "call deadline" if limit == remaining else "attempt timeout"
        raise endpoint.error(ProviderTimeoutError, f"no answer within the {what} of {limit:.3g}s") from None
