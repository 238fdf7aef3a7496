"""Images in members' requests: what each wire format needs, and fetching linked images for those that need bytes.

The OpenAI format takes an image URL as it is (a ``data:`` URL or a web
one). Anthropic and Gemini want the bytes inline, so a linked image is
fetched first, through the one transport with its size cap. Fetching a URL
a client sent is a way into the server's network (SSRF), so an address
that is not public (loopback, private, link-local, a cloud's metadata
host, in any spelling: ``2130706433``, ``0x7f.1``, ``[::ffff:127.0.0.1]``)
is refused unless ``transport.allow_private_image_urls`` says otherwise (a
lab, a test). :func:`image_url_refusal` is that rule: the server applies it
when it reads a request (a 400 before any member is called), and a fetch
applies it again to the URL and to every address its host resolves to.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import re
from urllib.parse import urlsplit

from council.errors import BadUpstreamRequestError
from council.transport.http import Endpoint, HttpTransport
from council.types import IMAGE_TYPES, MAX_IMAGE_BYTES, ChatMessage, ImageRef, image_bytes_problem


def inline_image(image: ImageRef) -> tuple[str, str]:
    """(media type, base64 data) of an image that has its bytes (see :func:`with_inline_images`)."""
    inline = image.inline
    if inline is None:
        raise ValueError(f"image {image.url[:80]} was not fetched before the request was built")
    return inline


async def with_inline_images(messages: list[ChatMessage], transport: HttpTransport, endpoint: Endpoint,
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


async def _fetch(url: str, transport: HttpTransport, endpoint: Endpoint, allow_private: bool) -> ImageRef:
    if not allow_private:
        await _refuse_private(url, endpoint)
    content_type, body = await transport.get_bytes(url, endpoint, MAX_IMAGE_BYTES)
    if content_type not in IMAGE_TYPES:
        found = content_type or "no content type"
        raise endpoint.error(BadUpstreamRequestError, f"{url} is not an image of a supported type ({found}; expected "
                                                 f"{', '.join(IMAGE_TYPES)})")
    problem = image_bytes_problem(content_type, body[:16])
    if problem is not None:
        raise endpoint.error(BadUpstreamRequestError, f"{url}: {problem}")
    return ImageRef(url=f"data:{content_type};base64,{base64.b64encode(body).decode()}")


async def _refuse_private(url: str, endpoint: Endpoint) -> None:
    reason = image_url_refusal(url)
    if reason is not None:
        raise endpoint.error(BadUpstreamRequestError, f"the image URL {url} is refused: {reason}")
    host = urlsplit(url).hostname or ""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None)
    except OSError as exc:
        raise endpoint.error(BadUpstreamRequestError, f"cannot resolve the image host {host!r}: {exc}") from None
    for info in infos:
        # A public name may resolve to a private address (or be rebound to one): each address is checked too.
        reason = host_refusal(str(info[4][0]))
        if reason is not None:
            raise endpoint.error(BadUpstreamRequestError, f"the image URL {url} is refused: {host} resolves to "
                                                     f"{info[4][0]}; {reason}")


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
# The spellings of an IPv4 address that resolvers accept besides a.b.c.d: 2130706433, 0x7f.1, 0177.0.0.1, 127.1.
_LEGACY_IPV4 = re.compile(r"(?:0x[0-9a-f]*|\d+)(?:\.(?:0x[0-9a-f]*|\d+)){0,3}")
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")
_METADATA_NAMES = frozenset({"metadata.goog", "metadata.google.internal", "instance-data"})


def image_url_refusal(url: str) -> str | None:
    """Why an image URL is refused on principle (its host is not public), or None (a public host, a data: URL)."""
    if url.startswith("data:"):
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return "its host cannot be read, and images are fetched from public addresses only"
    if not host:
        return "it names no host, and images are fetched from public addresses only"
    return host_refusal(host)


def host_refusal(host: str) -> str | None:
    """Why a host name or address is not a public one to fetch from, or None when it is."""
    name = host.lower().strip("[]").rstrip(".")
    address = _address(name)
    if address is not None:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if not address.is_global or address.is_multicast:
            return f"{address} is not a public address (loopback, private, link-local or reserved)"
        return None
    if name == "localhost" or name.endswith(_LOCAL_SUFFIXES) or name in _METADATA_NAMES:
        return f"{name} is a local or internal name, not a public host"
    if "." not in name:
        return f"{name!r} is a single-label name, not a public host"
    return None


def _address(name: str) -> Address | None:
    """``name`` as an IP address, in any spelling a resolver would take for one; None for a name."""
    try:
        return ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        pass
    if not _LEGACY_IPV4.fullmatch(name):
        return None
    try:
        parts = [int(p, 16) if p.startswith("0x") else int(p, 8) if len(p) > 1 and p.startswith("0") else int(p)
                 for p in name.split(".")]
    except ValueError:
        return None
    # The last part fills the bytes the others leave: 127.1 is 127.0.0.1, 2130706433 is all four.
    *leading, last = parts
    if any(p > 255 for p in leading) or last >= 256 ** (4 - len(leading)):
        return None
    value = last
    for index, part in enumerate(leading):
        value += part << (8 * (3 - index))
    return ipaddress.IPv4Address(value)
