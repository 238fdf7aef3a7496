"""Where the shipped prompt templates and config files live at run time.

In a source checkout (including an editable install) they are the top-level
``prompts/`` and ``config/`` folders, so an edit takes effect at once. A built
wheel carries copies inside the package under ``council/_assets/``.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def assets_root() -> Path:
    """The folder that holds ``prompts/`` and ``config/``."""
    bundled = _PACKAGE_DIR / "_assets"
    if (bundled / "prompts").is_dir():
        return bundled
    checkout = _PACKAGE_DIR.parent
    if (checkout / "prompts").is_dir():
        return checkout
    raise FileNotFoundError(
        f"Council's prompts/ folder is missing: looked in {bundled} and {checkout}; reinstall the package"
    )


def prompts_dir() -> Path:
    """The folder of prompt templates."""
    return assets_root() / "prompts"


def config_dir() -> Path:
    """The folder of shipped council configs and rubrics."""
    return assets_root() / "config"


@cache
def load_prompt(name: str) -> str:
    """Return the text of the prompt template ``prompts/NAME`` (read once per process)."""
    path = prompts_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"prompt template {name!r} not found in {prompts_dir()}")
    return path.read_text(encoding="utf-8")


@cache
def prompt_hash(name: str) -> str:
    """A short SHA-256 of a prompt template, recorded for reproducibility."""
    return hashlib.sha256(load_prompt(name).encode("utf-8")).hexdigest()[:16]
