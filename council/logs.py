"""Structured logging with structlog, as console text or JSON lines on stderr.

Secrets are scrubbed in one place: every key Council reads is registered with
:func:`register_secret`, and a processor replaces it in every log value, so
no log level, message or upstream error text can print one.

Text from outside (a request's path, an upstream's error) may hold control
characters: a NUL, a terminal escape sequence, a newline that would forge a
line. JSON lines escape them; console lines show such a value as Python writes
a string (``'/a\\x00b'``), so every event stays one plain line.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

_SECRETS: set[str] = set()
_SENSITIVE_FIELDS = frozenset({"api_key", "authorization", "x-api-key", "x-goog-api-key", "password", "token"})
REDACTED = "***"


def register_secret(value: str) -> None:
    """Remember a secret so it is scrubbed from logs and error messages."""
    # Very short values would scrub ordinary words; real keys are long.
    if value and len(value) >= 6:
        _SECRETS.add(value)


def redact(text: str) -> str:
    """Replace every registered secret in ``text``."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: REDACTED if str(k).lower() in _SENSITIVE_FIELDS else _redact_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redact_value(v) for v in value)
    if isinstance(value, BaseException):
        return redact(f"{type(value).__name__}: {value}")
    return value


def _redaction_processor(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> dict[str, Any]:
    return {
        key: REDACTED if key.lower() in _SENSITIVE_FIELDS else _redact_value(value)
        for key, value in event_dict.items()
    }


class _Escaped:
    """A console log value holding control characters: shown quoted and escaped, never raw."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return repr(self.text)

    __str__ = __repr__


def _escape_controls(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    # The console renderer quotes a string only when it holds a space, '=', a quote or a line break.
    for key, value in event_dict.items():
        if isinstance(value, str) and not value.isprintable():
            event_dict[key] = _Escaped(value)
    return event_dict


def configure_logging(level: str = "warning", fmt: str = "console", stream: TextIO | None = None) -> None:
    """Set up structlog for the process. ``fmt`` is ``console`` or ``json``."""
    renderer: Any = (structlog.processors.JSONRenderer() if fmt == "json"
                     else structlog.dev.ConsoleRenderer(colors=False))
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _redaction_processor,
            *([] if fmt == "json" else [_escape_controls]),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        # Resolved at each use, so a replaced sys.stderr (a test capture, a daemon's redirect) is followed.
        logger_factory=lambda *_args: structlog.PrintLogger(file=stream or sys.stderr),
        cache_logger_on_first_use=False,
    )


def access_logger() -> structlog.typing.FilteringBoundLogger:
    """The server's per-request logger: on at info level whatever ``logging.level`` says (``server.access_log``)."""
    if not structlog.is_configured():
        configure_logging()
    logger: structlog.typing.FilteringBoundLogger = structlog.wrap_logger(
        None, wrapper_class=structlog.make_filtering_bound_logger(logging.INFO), component="access")
    return logger


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    """A logger tagged with the component ``name``."""
    if not structlog.is_configured():
        # structlog's own default writes to stdout, which would corrupt `--json` output.
        configure_logging()
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(component=name)
    return logger
