"""Images in members' requests: what each wire format needs, and fetching linked images for those that need bytes.

The OpenAI format takes an image URL as it is (a ``data:`` URL or a web
one). Anthropic and Gemini want the bytes inline, so a linked image is
fetched first, through the one transport with its size cap. Fetching a URL
a client sent is a way into the server's network (SSRF), so an address
that is not public (loopback, private, link-local) is refused unless
``transport.allow_private_image_urls`` says otherwise (a lab, a test).
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
from urllib.parse import urlsplit

from council.errors import BadUpstreamRequest
from council.transport.http import Endpoint, Transport
from council.types import IMAGE_TYPES, MAX_IMAGE_BYTES, ChatMessage, ImageRef


def inline_image(image: ImageRef) -> tuple[str, str]:
    """(media type, base64 data) of an image that has its bytes (see :func:`with_inline_images`)."""
    inline = image.inline
    if inline is None:
        raise ValueError(f"image {image.url[:80]} was not fetched before the request was built")
    return inline


async def with_inline_images(messages: list[ChatMessage], transport: Transport, endpoint: Endpoint,
                             *, allow_private: bool) -> list[ChatMessage]:
    """``messages`` with every linked image fetched and carried as a ``data:`` URL."""
    if not any(image.inline is None for message in messages for image in message.images):
        return messages
    fetched: dict[str, ImageRef] = {}
    out = []
    for message in messages:
        images = []
        for image in message.images:
            if image.inline is None and image.url not in fetched:
                fetched[image.url] = await _fetch(image.url, transport, endpoint, allow_private)
            images.append(fetched.get(image.url, image))
        out.append(message.model_copy(update={"images": tuple(images)}) if message.images else message)
    return out


async def _fetch(url: str, transport: Transport, endpoint: Endpoint, allow_private: bool) -> ImageRef:
    if not allow_private:
        await _refuse_private(url, endpoint)
    content_type, body = await transport.get_bytes(url, endpoint, MAX_IMAGE_BYTES)
    if content_type not in IMAGE_TYPES:
        found = content_type or "no content type"
        raise endpoint.error(BadUpstreamRequest, f"{url} is not an image of a supported type ({found}; expected "
                                                 f"{', '.join(IMAGE_TYPES)})")
    return ImageRef(url=f"data:{content_type};base64,{base64.b64encode(body).decode()}")


async def _refuse_private(url: str, endpoint: Endpoint) -> None:
    host = urlsplit(url).hostname or ""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None)
    except OSError as exc:
        raise endpoint.error(BadUpstreamRequest, f"cannot resolve the image host {host!r}: {exc}") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            raise endpoint.error(BadUpstreamRequest, f"the image URL {url} points to a non-public address "
                                                     f"({address}); refused")
