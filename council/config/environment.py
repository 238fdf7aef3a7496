"""What the config reads from the environment, and what must never be written in the file.

The variables Council reads (``COUNCIL_CONFIG``, ``COUNCIL_API_KEYS``, ...),
the shape of a variable name, and the checks that refuse a credential where a
variable name or a URL belongs. Knows nothing of the config's sections.
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

# Shapes of real credentials that also pass as variable names: vendor prefixes, and long mixed-case tokens.
_KEY_PREFIXES = re.compile(r"^(?:sk_|sk-|rk_|pk_live_|AIza|ghp_|gho_|ghs_|ghu_|github_pat_|glpat|xox[abpr]|hf_|gsk_"
                           r"|r8_|AKIA[0-9A-Z]{12}|ASIA[0-9A-Z]{12})")


def looks_like_credential(value: str) -> bool:
    """Whether ``value`` is more likely a pasted key than the name of a variable that holds one.

    Variable names are words (``OPENROUTER_API_KEY_FOR_TEAM``); keys are a
    vendor prefix (``sk_live_…``, ``AIza…``) or a long run of mixed-case
    letters and digits. A name flagged by mistake only needs renaming.
    """
    if _KEY_PREFIXES.match(value) and len(value) >= 16:
        return True
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value) and any(c.isdigit() for c in value)
    return len(value) >= 32 and mixed


def _not_a_credential(value: str) -> str:
    if looks_like_credential(value):
        # The message must never carry the value: format_validation_error prints only this text.
        raise ValueError("this looks like an API key itself, not the name of a variable; put the key in an "
                         "environment variable and name that variable here")
    return value


EnvVarName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=128),
                       AfterValidator(_not_a_credential)]
_SECRET_QUERY = re.compile(r"(?:^|&)(?:key|api_key|apikey|api-key|token|access_token|secret)=", re.IGNORECASE)


def _no_credentials_in_url(url: str | None) -> str | None:
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.username or parts.password or "@" in parts.netloc:
        raise ValueError("must not contain credentials (user:secret@host); put the key in an environment "
                         "variable named by api_key_env")
    if _SECRET_QUERY.search(parts.query):
        raise ValueError("must not carry a key in its query string; put the key in an environment variable "
                         "named by api_key_env")
    return url

ENV_CONFIG = "COUNCIL_CONFIG"
ENV_API_KEYS = "COUNCIL_API_KEYS"
ENV_LOG_LEVEL = "COUNCIL_LOG_LEVEL"
ENV_LOG_FORMAT = "COUNCIL_LOG_FORMAT"
ENV_DB_PATH = "COUNCIL_DB_PATH"
ENV_DB_URL = "COUNCIL_DB_URL"
