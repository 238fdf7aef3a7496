"""Every error Council raises on purpose reaches an HTTP client with the status that says whose it is, never a 500."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import council
from council.errors import (
    BudgetExhaustedError,
    ConfigError,
    CouncilError,
    InvalidRequestError,
    MissingApiKeyError,
    ProviderError,
    StorageError,
)
from council.server.app import council_error


def subclasses(base: type) -> set[type]:
    found = set(base.__subclasses__())
    return found | {deeper for cls in found for deeper in subclasses(cls)}


def every_council_error() -> list[type[CouncilError]]:
    for info in pkgutil.walk_packages(council.__path__, "council."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)  # every subclass is defined, wherever it lives
    return sorted(subclasses(CouncilError) | {CouncilError}, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def instance(cls: type[CouncilError]) -> CouncilError:
    if issubclass(cls, MissingApiKeyError):
        return cls("atlas", "ATLAS_KEY")
    if issubclass(cls, ConfigError):
        return cls("council.yaml", "members: required")
    if issubclass(cls, ProviderError):
        return cls("upstream refused", provider="openai", model="m", member="atlas")
    if cls.__init__ is not CouncilError.__init__ and cls.__module__ == "council.rubrics.catalog":
        return cls("nope", ["default"])  # type: ignore[call-arg]
    return cls("something is wrong")


@pytest.mark.parametrize("cls", every_council_error(), ids=lambda cls: cls.__name__)
def test_no_council_error_is_a_500(cls):
    if issubclass(cls, StorageError):
        pytest.skip("a storage failure has its own 503, answered before this mapping (errors_middleware)")
    error = council_error(instance(cls))
    assert error.status != 500 and 400 <= error.status < 600, (cls, error.status)
    if issubclass(cls, InvalidRequestError):
        assert error.status == 400
    elif issubclass(cls, ProviderError) and not issubclass(cls, BudgetExhaustedError):
        assert error.status in (429, 502, 504)


def test_a_refused_option_is_named_as_the_chat_parameter():
    error = council_error(InvalidRequestError("max_usd must be more than 0, got 0", option="max_usd"))
    assert (error.status, error.param, error.code) == (400, "council_max_usd", "invalid_budget")
    assert error.message == "council_max_usd: max_usd must be more than 0, got 0"
