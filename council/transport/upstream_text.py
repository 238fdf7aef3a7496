"""What an upstream's answer may show a client: a summary of its body, never the body, and no secrets.

An upstream's error reaches whoever asked (a CLI user, an HTTP client of
``council serve``), so it must not be a way to read what the upstream, or
something it points at, holds. A body is summarised
(:func:`summarise_body`): an API's own error message by its first line, any
other body by its content type, its length and its first line. Every
message about an upstream also passes :func:`scrub_secrets`, which stars
what looks like a credential (a vendor-prefixed key, a long random token,
the value after ``Bearer`` or ``api_key=``), whoever wrote it.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urljoin, urlsplit

from council.config import looks_like_credential

REDACTED = "***"
_MESSAGE_LIMIT = 200
_LINE_LIMIT = 120
# Runs of characters a token can be made of; shorter runs are words, numbers and ids, not secrets.
_TOKEN = re.compile(r"[A-Za-z0-9_+/=.~-]{16,}")
_SEGMENT = re.compile(r"[-_.~/+=]")
_SCHEME = re.compile(r"(?i)\b(bearer|basic)(\s+)([^\s\"',;&)]+)")
_LABELLED = re.compile(r"(?i)\b(api[_-]?key|apikey|access[_-]?token|token|secret|password|passwd|authorization"
                       r"|x-api-key|x-goog-api-key|key)(\"?\s*[:=]\s*\"?)([^\s\"',;&)]+)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _secret_like(token: str) -> bool:
    """Whether a token is more likely a credential than a word, a model name, a path or a date.

    Names are short pieces joined by ``-``, ``.`` or ``/`` (``meta-llama/Llama-3.3-70B-Instruct``);
    keys have one long random piece (``sk-proj-Zq81…``, 32 hex digits).
    """
    parts = _SEGMENT.split(token)
    if any(len(part) >= 16 and re.search(r"[A-Za-z]", part) and re.search(r"\d", part) for part in parts):
        return True
    return looks_like_credential(token) and max(len(part) for part in parts) >= 12


def scrub_secrets(text: str) -> str:
    """``text`` with whatever looks like a credential replaced by ``***``."""
    for labelled in (_SCHEME, _LABELLED):
        text = labelled.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    return _TOKEN.sub(lambda m: REDACTED if _secret_like(m.group(0)) else m.group(0), text)


def first_line(text: str, limit: int = _LINE_LIMIT) -> str:
    """The first non-blank line of ``text``, control characters dropped, at most ``limit`` characters."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    line = _CONTROL.sub("", line)
    return line if len(line) <= limit else line[:limit - 1] + "…"


def summarise_body(body: bytes, content_type: str, cap: int | None = None) -> str:
    """What a client may read of an upstream body: an API error's message, else type, length and first line.

    ``cap`` is how much of the body was read at most: a body that filled it
    is said to be at least that long.
    """
    text = body.decode("utf-8", errors="replace").strip()
    message = _api_error_message(text)
    if message is not None:
        return scrub_secrets(first_line(message, _MESSAGE_LIMIT)) or "an error object without a message"
    kind = content_type.split(";")[0].strip().lower() or "no content type"
    size = f"at least {len(body)}" if cap is not None and len(body) >= cap else str(len(body))
    if "html" in kind or text.lower().startswith(("<!doctype", "<html")):
        return f"the upstream sent an HTML page instead of JSON ({kind}, {size} bytes)"
    if not text:
        return "empty body"
    return f"a {kind} body of {size} bytes, first line {scrub_secrets(first_line(text))!r}"


def _api_error_message(text: str) -> str | None:
    """The message of a JSON error object (OpenAI, Anthropic, Gemini and gateways' shapes), if the body is one."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]  # Gemini has been seen wrapping its error object in a list.
    if not isinstance(data, dict):
        return None
    error = data.get("error", data)
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        message = error.get("message") or error.get("type")
        if isinstance(message, str):
            return message
        return f"an error object with the fields {', '.join(sorted(str(key) for key in error)[:8])}"
    return None


def redirect_message(location: str | None, request_url: str) -> str:
    """Why a redirect was refused, naming only the host it pointed to (its path may be the secret it wants read)."""
    if not location:
        return "the upstream answered with a redirect (no Location); redirects are not followed"
    target = urlsplit(urljoin(request_url, location.strip()))
    host = target.hostname or "an unreadable address"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = target.port
    except ValueError:
        port = None
    where = f"{host}:{port}" if port is not None else host
    return (f"the upstream redirects to {where}; redirects are not followed: point base_url at the API itself")
