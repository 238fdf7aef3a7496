"""The rubrics a remote client may choose by name: never a path.

Over HTTP (the chat API, the web page's API, later MCP) a client names a
rubric, and the name must not reach the file system: a path would let any
key holder read server files, and a different answer for "not found" and
"not a rubric" would tell them which files exist. So a remote reference is
looked up only among

* the configured rubric (by its id, ``id@version`` or its config name),
* the shipped rubrics in ``config/rubrics`` (by file stem), loaded once,
* the rubric registry in the store (``id`` or ``id@version``),

and anything else, a traversal path included, gets one and the same
:class:`UnknownRubricError`. Paths stay allowed where the user already owns the
machine: the CLI and the config file (:func:`council.rubrics.model.load_rubric`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Protocol

from council.errors import CouncilError, InvalidRequestError
from council.logs import get_logger
from council.rubrics.load import load_rubric, rubrics_dir
from council.rubrics.model import Rubric

# An id, optionally @ a version; the same alphabet as rubric ids and semantic versions.
_REFERENCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(?:@[0-9A-Za-z.+-]{1,64})?")
_log = get_logger("rubrics")


class UnknownRubricError(InvalidRequestError):
    """A remote client named a rubric that is not on offer; the message lists what is."""

    def __init__(self, reference: str, choices: list[str]) -> None:
        shown = reference if len(reference) <= 80 else reference[:77] + "..."
        super().__init__(f"unknown rubric {shown!r}; choose one of: {', '.join(choices) or '(none)'} "
                         "(see GET /v1/council/rubrics)", option="rubric", code="rubric_not_found")
        self.reference = reference
        self.choices = choices


@dataclass(frozen=True)
class RubricChoice:
    """One rubric on offer, and where it comes from."""

    name: str
    rubric: Rubric
    source: str  # configured, shipped or registered


@functools.cache
def shipped_rubrics() -> dict[str, Rubric]:
    """Every shipped rubric that loads, by file stem (read once per process)."""
    loaded: dict[str, Rubric] = {}
    for path in sorted(rubrics_dir().glob("*.yaml")):
        try:
            loaded[path.stem] = load_rubric(path.stem, quiet=True)
        except CouncilError as error:  # a broken shipped rubric is left out, not fatal
            _log.warning("rubric_unavailable", rubric=path.stem, error=str(error))
    return loaded


class RubricRegistry(Protocol):
    """Where registered rubrics are kept (the run store); the catalog only reads it."""

    def get_rubric(self, reference: str) -> Rubric | None:
        """``id`` or ``id@version``, or None."""

    def list_rubrics(self) -> list[tuple[str, str, str, bool]]:
        """(id, version, created_at, deleted) for every registered version."""


class RubricCatalog:
    """The configured, shipped and registered rubrics, chosen by name only."""

    def __init__(self, configured_name: str, configured: Rubric, store: RubricRegistry | None) -> None:
        self.configured_name = configured_name
        self.configured = configured
        self.store = store

    def choices(self) -> list[RubricChoice]:
        """Everything a client may name: the configured rubric first, then shipped, then registered."""
        seen = {self.configured_name}
        offered = [RubricChoice(self.configured_name, self.configured, "configured")]
        for name, rubric in shipped_rubrics().items():
            if name not in seen:
                seen.add(name)
                offered.append(RubricChoice(name, rubric, "shipped"))
        if self.store is not None:
            for rubric_id, version, _created, _deleted in self.store.list_rubrics():
                ref = f"{rubric_id}@{version}"
                if ref not in seen:
                    seen.add(ref)
                    registered = self.store.get_rubric(ref)
                    if registered is not None:
                        offered.append(RubricChoice(ref, registered, "registered"))
        return offered

    def names(self) -> list[str]:
        """The names :meth:`named` accepts, for messages."""
        return [choice.name for choice in self.choices()]

    def named(self, reference: str) -> Rubric:
        """The rubric ``reference`` names, or :class:`UnknownRubricError`; never reads a path."""
        if _REFERENCE.fullmatch(reference):
            if reference in (self.configured_name, self.configured.id, self.configured.ref):
                return self.configured
            if self.store is not None:
                registered = self.store.get_rubric(reference)
                if registered is not None:
                    return registered
            name, _, version = reference.partition("@")
            shipped = shipped_rubrics().get(name)
            if shipped is not None and version in ("", shipped.version):
                return shipped
        raise UnknownRubricError(reference, self.names())
