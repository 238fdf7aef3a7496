"""Plain data: what a message's images must be before a run takes them."""

from __future__ import annotations

import base64

import pytest

from council.types import IMAGE_TYPES, ChatMessage, ConversationError, ImageRef, as_messages, image_bytes_problem

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
                       "kgAAAABJRU5ErkJggg==")
HEADS = {"image/png": PNG[:16], "image/jpeg": b"\xff\xd8\xff\xdb" + b"\0" * 12, "image/gif": b"GIF87a" + b"\0" * 10,
         "image/webp": b"RIFF\0\0\0\0WEBPVP8L"}


@pytest.mark.parametrize("declared", IMAGE_TYPES)
def test_each_type_knows_its_own_bytes_and_no_other(declared):
    assert image_bytes_problem(declared, HEADS[declared]) is None
    for other in IMAGE_TYPES:
        if other != declared:
            problem = image_bytes_problem(other, HEADS[declared])
            assert problem is not None and f"declared {other}" in problem


def test_the_python_api_refuses_an_image_whose_bytes_are_not_its_type():
    renamed = ImageRef(url="data:image/gif;base64," + base64.b64encode(PNG).decode())
    with pytest.raises(ConversationError, match=r"not a GIF image \(its bytes are a PNG") as refused:
        as_messages([ChatMessage(role="assistant", content="hi"), ChatMessage(role="user", content="and this?",
                                                                              images=(renamed,))])
    assert (refused.value.message_index, refused.value.image_index) == (1, 0), "where the image is, said apart"


def test_a_stored_image_still_loads_whatever_its_bytes():
    # Checking is for what comes in: a run stored before the check existed must still be readable.
    stored = {"role": "user", "content": "x", "images": [{"url": "data:image/png;base64,AAAA"}]}
    assert ChatMessage.model_validate(stored).images[0].content_problem() is not None
