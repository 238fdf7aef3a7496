"""Deterministic check functions: the registry, and finding one from its ``module:function`` reference.

A deterministic check is any function ``f(answer, *, question) -> value``,
where value is a level id, a number on the rubric scale or a bool, or a
``(value, evidence)`` pair. Council's own checks (:mod:`council.rubrics.checks`)
are named ``council.checks:NAME`` in rubric files, a public name that stays
put wherever the module lives; any other ``module:function`` is imported.
Knows nothing of rubrics or scores.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from council.rubrics.checks import BUILT_IN_CHECKS

BUILT_IN_PREFIX = "council.checks:"

CHECKS: dict[str, Callable[..., Any]] = {BUILT_IN_PREFIX + name: check for name, check in BUILT_IN_CHECKS.items()}
"""Every registered check by its ``module:function`` reference, Council's own first."""


def register_check(reference: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a deterministic check under ``reference`` (``module:function``)."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        CHECKS[reference] = function
        return function

    return decorate


def resolve_function(reference: str) -> Callable[..., Any]:
    """The deterministic check ``module:function``: a registered one, or imported. ``ValueError`` if neither."""
    if reference in CHECKS:
        return CHECKS[reference]
    if reference.startswith(BUILT_IN_PREFIX):
        known = ", ".join(sorted(name for name in CHECKS if name.startswith(BUILT_IN_PREFIX)))
        raise ValueError(f"{reference!r} is not one of Council's checks ({known})")
    module_name, _, function_name = reference.partition(":")
    if not module_name or not function_name:
        raise ValueError(f"{reference!r} is not of the form module:function")
    import importlib

    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r}: {exc}") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ValueError(f"{module_name!r} has no function {function_name!r}")
    checked: Callable[..., Any] = function
    return checked
