"""The error names: the old ones (before each ended in ``Error``) still import, with a DeprecationWarning."""

from __future__ import annotations

import pytest

import council
import council.errors
from council.errors import RENAMED


@pytest.mark.parametrize(("old", "new"), [*((old, new) for old, new in RENAMED.items() if new in council.__all__),
                                          ("UnknownRubric", "UnknownRubricError")])
def test_an_old_error_name_from_council_is_the_new_class_with_a_warning(old, new):
    with pytest.warns(DeprecationWarning, match=rf"^council\.{old} is now council\.{new};"):
        assert getattr(council, old) is getattr(council, new)


@pytest.mark.parametrize(("old", "new"), RENAMED.items())
def test_an_old_error_name_from_council_errors_is_the_new_class_with_a_warning(old, new):
    with pytest.warns(DeprecationWarning, match=rf"^council\.errors\.{old} is now council\.errors\.{new};"):
        assert getattr(council.errors, old) is getattr(council.errors, new)


def test_old_code_that_catches_the_old_name_still_catches_the_error():
    with pytest.warns(DeprecationWarning):
        from council import InvalidRequest  # type: ignore[attr-defined]
    with pytest.raises(InvalidRequest):
        raise council.InvalidRequestError("empty question")


def test_other_missing_names_are_still_missing():
    with pytest.raises(ImportError, match="cannot import name 'NoSuchThing'"):
        from council import NoSuchThing  # type: ignore[attr-defined]  # noqa: F401
    with pytest.raises(AttributeError, match="has no attribute 'MissingApiKeyErrorr'"):
        _ = council.errors.MissingApiKeyErrorr  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="has no attribute 'BudgetExhausted'"):  # never exported from council
        _ = council.BudgetExhausted  # type: ignore[attr-defined]
