"""Reading the page's JSON request bodies: each problem is a 400 naming the field."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from council.errors import InvalidRequestError
from council.server.schema import ApiError
from council.types import ImageRef

CONVERSATION_FIELDS = ("title", "members", "chairman", "rubric", "preset")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _bad(field: str, message: str) -> ApiError:
    return ApiError(400, f"{field}: {message}", param=field, code="invalid_value")


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise _bad(field, f"must be a string, got {type(value).__name__}")
    if "\x00" in value or _SURROGATE.search(value):
        raise _bad(field, "contains a NUL character or an unpaired surrogate")
    return value


def conversation_fields(body: dict[str, Any], members: Sequence[str], rubrics: Sequence[str],
                        creating: bool, presets: Sequence[str] = ()) -> dict[str, Any]:
    """The fields of a create or update request, checked against the configured council.

    Only the fields present are returned; ``chairman: null`` is kept, since it
    means "no chairman: the top-ranked answer is final".
    """
    unknown = sorted(set(body) - set(CONVERSATION_FIELDS))
    if unknown:
        raise _bad(unknown[0], f"unknown field; fields are: {', '.join(CONVERSATION_FIELDS)}")
    if not creating and not body:
        raise ApiError(400, f"nothing to change; send one of: {', '.join(CONVERSATION_FIELDS)}", code="invalid_value")
    fields: dict[str, Any] = {}
    if "title" in body:
        title = _text(body["title"], "title")
        if not title.strip():
            raise _bad("title", "must not be empty")
        fields["title"] = title
    if "members" in body:
        chosen = body["members"]
        if not isinstance(chosen, list) or not all(isinstance(m, str) for m in chosen):
            raise _bad("members", "must be a list of member names")
        if not chosen:
            raise _bad("members", "choose at least one member")
        unknown_members = [m for m in chosen if m not in members]
        if unknown_members:
            raise _bad("members", f"unknown members: {', '.join(unknown_members)}; members are: {', '.join(members)}")
        if len(set(chosen)) != len(chosen):
            raise _bad("members", "a member is listed twice")
        fields["members"] = chosen
    if "chairman" in body:
        chairman = body["chairman"]
        if chairman is not None and (not isinstance(chairman, str) or chairman not in members):
            raise _bad("chairman", f"must be null or one of: {', '.join(members)}")
        fields["chairman"] = chairman
    if "rubric" in body:
        rubric = body["rubric"]
        if not isinstance(rubric, str) or rubric not in rubrics:
            raise _bad("rubric", f"must be one of: {', '.join(rubrics)}")
        fields["rubric"] = rubric
    if "preset" in body:
        preset = body["preset"]
        if preset is not None and (not isinstance(preset, str) or preset not in presets):
            raise _bad("preset", f"must be null or one of: {', '.join(presets) or '(none configured)'}")
        fields["preset"] = preset
    return fields


MAX_PAGE_IMAGES = 4


def question_of(body: dict[str, Any]) -> tuple[str, tuple[ImageRef, ...]]:
    """The question of a ``POST .../messages`` body: ``{"content": "...", "images": ["data:image/..."]}``.

    The text may be blank when images are attached. Images come as ``data:``
    URLs (the page reads the files the user picked); each bad one is a 400
    naming it (``images[1]``): its form here, its bytes when the run is
    planned (:func:`page_request_error`).
    """
    unknown = sorted(set(body) - {"content", "images"})
    if unknown:
        raise _bad(unknown[0], "unknown field; send {\"content\": \"your question\", \"images\": [...]}")
    if "content" not in body:
        raise _bad("content", "required field is missing")
    content = _text(body["content"], "content")
    images = _images(body.get("images", []))
    if not content.strip() and not images:
        raise _bad("content", "the question is empty")
    return content, images


def _images(value: Any) -> tuple[ImageRef, ...]:
    if not isinstance(value, list):
        raise _bad("images", f"must be a list of data: URLs, got {type(value).__name__}")
    if len(value) > MAX_PAGE_IMAGES:
        raise _bad("images", f"at most {MAX_PAGE_IMAGES} images a question, got {len(value)}")
    images = []
    for index, url in enumerate(value):
        field = f"images[{index}]"
        if not isinstance(url, str) or not url.startswith("data:"):
            raise _bad(field, "must be a data: URL (data:image/png;base64,...)")
        try:
            image = ImageRef(url=url)
        except ValidationError as exc:
            raise _bad(field, exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")) from None
        images.append(image)
    return tuple(images)


def page_request_error(error: InvalidRequestError) -> ApiError:
    """A question the run plan refused, as the page's 400: an image by its place in ``images``.

    The page sends one question (its images on the last message) to a
    conversation whose council was checked when it was chosen, so a refusal
    names the question's field; a council the config no longer has is told
    apart earlier (409 ``council_changed``).
    """
    message = str(error).removeprefix("invalid question: ")
    if error.option == "messages" and error.image_index is not None:
        return _bad(f"images[{error.image_index}]", message.split(": ", 1)[-1])
    field = "content" if error.option == "messages" else error.option or "content"
    return ApiError(400, f"{field}: {message}", param=field, code=error.code or "invalid_value")
