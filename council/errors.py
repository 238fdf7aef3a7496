"""The one exception tree of Council.

Everything Council raises on purpose derives from :class:`CouncilError`, so a
caller (the CLI, the HTTP server) can turn any of them into a clear message
without a traceback. Upstream failures are typed by what went wrong, and each
one carries the provider, the model, the member and the HTTP status (if any).

Each provider error also knows whether a retry could help (``retryable``) and
which failure ``reason`` it reports in council results: ``timeout``,
``rate_limited``, ``auth``, ``upstream_error`` or ``protocol``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, ClassVar


class CouncilError(Exception):
    """Base class of every error Council raises on purpose."""


class ConfigError(CouncilError):
    """The configuration is missing, malformed or invalid.

    ``source`` is the file (or environment variable) the problem came from;
    ``problems`` lists one line per problem, each naming its key path.
    """

    def __init__(self, source: str, problems: list[str] | str) -> None:
        self.source = source
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__(self._render())

    def _render(self) -> str:
        if len(self.problems) == 1:
            return f"config error in {self.source}: {self.problems[0]}"
        lines = "\n".join(f"  - {p}" for p in self.problems)
        return f"config error in {self.source} ({len(self.problems)} problems):\n{lines}"


class MissingApiKeyError(ConfigError):
    """A member names an environment variable for its key that is not set."""

    def __init__(self, member: str, variable: str) -> None:
        self.member = member
        self.variable = variable
        super().__init__(
            f"${variable}",
            f"member {member!r} reads its API key from ${variable}, which is not set "
            f"(export {variable}=... or remove api_key_env for a local server)",
        )

    def _render(self) -> str:
        return f"missing API key: {self.problems[0]}"


class InvalidRequestError(CouncilError):
    """The question or the run options are unusable (empty question, unknown member).

    ``option`` names the run option at fault when one is (``max_usd``,
    ``members``, ...), so a front end can name its own parameter for it.
    """

    def __init__(self, *args: object, option: str | None = None, message_index: int | None = None,
                 image_index: int | None = None, code: str | None = None) -> None:
        super().__init__(*args)
        self.option = option
        #: With ``option`` "messages": the message at fault (an index into the conversation as given) ...
        self.message_index = message_index
        #: ... and the image of that message at fault, if an image is.
        self.image_index = image_index
        #: A short machine-readable reason (``invalid_image``, ``rubric_not_found``, ...), when there is one.
        self.code = code


class StorageError(CouncilError):
    """The database could not be opened, read or written.

    ``cause`` says what failed without the database path, for messages that
    leave the machine (an HTTP client's error); the message itself has both.
    """

    cause: str | None = None


def storage_cause(error: StorageError) -> str:
    """What went wrong, without the database path: safe to show a remote client."""
    return error.cause or "the database failed"


class UnsafeBindingError(CouncilError):
    """``council serve`` was asked to expose an unauthenticated council beyond this machine."""


class ProviderError(CouncilError):
    """An upstream model call failed.

    Attributes name where it failed (``provider``, ``model``, ``member``), the
    HTTP ``status`` when there was one, and how many ``attempts`` were made.
    """

    reason: ClassVar[str] = "upstream_error"
    retryable_by_default: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str,
        member: str | None = None,
        status: int | None = None,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        self.message = message
        self.provider = provider
        self.model = model
        self.member = member
        self.status = status
        self.retryable = self.retryable_by_default if retryable is None else retryable
        self.retry_after_s = retry_after_s
        self.attempts = 1
        super().__init__(message)

    def __str__(self) -> str:
        who = f"{self.member} ({self.provider}/{self.model})" if self.member else f"{self.provider}/{self.model}"
        status = f" HTTP {self.status}" if self.status is not None else ""
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return f"{who}:{status} {self.message}{tries}"


class ProviderTimeoutError(ProviderError):
    """The upstream did not answer within the attempt timeout or the call deadline."""

    reason = "timeout"
    retryable_by_default = True


class ProviderConnectionError(ProviderError):
    """The connection could not be made, or broke before a response arrived."""

    reason = "upstream_error"
    retryable_by_default = True


class RateLimitedError(ProviderError):
    """HTTP 429: the upstream asks us to slow down (``retry_after_s`` says how long)."""

    reason = "rate_limited"
    retryable_by_default = True


class UpstreamServerError(ProviderError):
    """HTTP 5xx or 529 (overloaded), or an error object inside a 200 answer."""

    reason = "upstream_error"
    retryable_by_default = True


class AuthFailedError(ProviderError):
    """HTTP 401 or 403: the key is missing, wrong or lacks permission."""

    reason = "auth"


class BadUpstreamRequestError(ProviderError):
    """Any other 4xx: the request itself is wrong, so retrying cannot help."""

    reason = "upstream_error"


class ProtocolError(ProviderError):
    """The upstream answered, but not with what its API promises.

    An HTML page, invalid JSON, missing fields, a truncated stream or a body
    over the size cap all end up here rather than crashing a caller.
    """

    reason = "protocol"


class BudgetExhaustedError(ProviderError):
    """The call was not made: what it could cost does not fit in what is left of the run's budget."""

    reason = "budget"


RETRYABLE_STATUSES = frozenset({408, 409, 429, 529})


def error_for_status(status: int) -> type[ProviderError]:
    """Map an HTTP error status to the exception class that describes it."""
    if status == 429:
        return RateLimitedError
    if status in (401, 403):
        return AuthFailedError
    if status >= 500 or status in RETRYABLE_STATUSES:
        return UpstreamServerError
    return BadUpstreamRequestError


# The names these errors had before every exception name ended in ``Error``.
RENAMED = {
    "MissingApiKey": "MissingApiKeyError",
    "InvalidRequest": "InvalidRequestError",
    "UnsafeBinding": "UnsafeBindingError",
    "ProviderTimeout": "ProviderTimeoutError",
    "RateLimited": "RateLimitedError",
    "AuthFailed": "AuthFailedError",
    "BadUpstreamRequest": "BadUpstreamRequestError",
    "BudgetExhausted": "BudgetExhaustedError",
}


def renamed(module: str, name: str, namespace: dict[str, object], renames: dict[str, str]) -> object:
    """The object an old name of ``module`` now goes by, with a DeprecationWarning; AttributeError for any other."""
    new = renames.get(name)
    if new is None or new not in namespace:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(f"{module}.{name} is now {module}.{new}; the old name will be removed in a future release",
                  DeprecationWarning, stacklevel=3)
    return namespace[new]


if not TYPE_CHECKING:  # type checkers should flag the old names, not accept them
    def __getattr__(name: str) -> object:
        """Old error names still import, with a DeprecationWarning, so code written against them keeps working."""
        return renamed(__name__, name, globals(), RENAMED)
