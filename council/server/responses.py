"""The Responses API: ``POST /v1/responses``, ``GET`` and ``DELETE /v1/responses/{id}``, for every model.

A response is a chat request in other words (:mod:`.responses_input`),
answered by the same route as ``/v1/chat/completions``: the council, a
preset or a member. A streamed one is told as the Responses API's typed
events while it runs (:class:`~.responses_output.ResponseEventWriter`
stands in for the chunk writer), the council's progress as a ``reasoning``
item; a whole one is the chat completion's answer as a response object.
With ``store`` (the default) the response and the conversation it ends are
kept in the run database, owned by the caller's API key, before its last
byte is sent: a follow-up names it in ``previous_response_id`` or its
items in ``item_reference`` input items, and ``GET``/``DELETE`` reach it,
for that key only.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from council.errors import StorageError
from council.logs import get_logger
from council.pipeline import Council
from council.server.chat import MEMBER_PREFIX, STREAM_WRITER_KEY
from council.server.guards import caller_of
from council.server.patience import patiently
from council.server.relay import uses_tools
from council.server.responses_input import ResponsesRequest, chat_body, is_reference, read_request
from council.server.responses_output import ResponseDraft, ResponseEventWriter, replay, response_of_item
from council.server.schema import ApiError, ChatCompletionRequest, decode_body, parse_request

ChatRoute = Callable[[web.Request, ChatCompletionRequest, dict[str, Any]], Awaitable[web.StreamResponse]]
"""How ``/v1/chat/completions`` answers a parsed request (and its decoded body): the route both APIs share."""

_log = get_logger("council.server")
_PASSED_HEADERS = ("x-council-run-id", "x-council-cost-usd", "x-council-cache", "x-council-tools-ignored",
                   "x-council-task-model")


class ResponsesApi:
    """The three routes over one council and the chat route they share."""

    def __init__(self, council: Council, route: ChatRoute, read: Callable[[web.Request], Awaitable[bytes]],
                 allow_private_images: bool) -> None:
        self.council = council
        self.route = route
        self.read = read
        self.allow_private_images = allow_private_images

    async def create(self, request: web.Request) -> web.StreamResponse:
        """``POST /v1/responses``."""
        wanted = read_request(decode_body(await self.read(request)))
        owner = caller_of(request)
        earlier = await self._earlier(owner, wanted.previous_response_id)
        if isinstance(wanted.input, list) and any(is_reference(item) for item in wanted.input):
            wanted = wanted.model_copy(update={"input": await self._dereferenced(owner, wanted.input)})
        raw = chat_body(wanted, earlier)
        body = parse_request(raw, allow_private_images=self.allow_private_images)
        draft = ResponseDraft(f"resp_{uuid.uuid4().hex}", wanted)
        # A tool call relayed to a member comes back in the member's own chunks: it is asked whole, then told.
        whole = not wanted.stream or (body.model.startswith(MEMBER_PREFIX) and uses_tools(body))
        if not whole:
            async def keep() -> None:
                await self._keep(owner, wanted, draft, raw)

            def writer(response: web.StreamResponse) -> ResponseEventWriter:
                return ResponseEventWriter(response, draft, before_end=keep)

            request[STREAM_WRITER_KEY] = writer
            return await self.route(request, body, raw)
        if not wanted.stream:
            # A whole answer that takes long starts early and keeps talking, as chat completions do.
            return await patiently(request, self._whole(request, body, raw, owner, wanted, draft))
        answered = await self._whole(request, body, raw, owner, wanted, draft)
        headers = {name: value for name, value in answered.headers.items() if name.lower() in _PASSED_HEADERS}
        stream = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                             **headers})
        await stream.prepare(request)
        await replay(ResponseEventWriter(stream, draft), draft)
        await stream.write_eof()
        return stream

    async def _whole(self, request: web.Request, body: ChatCompletionRequest, raw: dict[str, Any], owner: str,
                     wanted: ResponsesRequest, draft: ResponseDraft) -> web.Response:
        """The answer asked for whole, as a response object (kept when ``store``)."""
        inner = body.model_copy(update={"stream": False, "stream_options": None})
        answered = await self.route(request, inner, {**raw, "stream": False})
        if not isinstance(answered, web.Response) or answered.body is None:
            raise ApiError(500, "the answer could not be read back as a response", type="server_error")
        draft.read_chat(json.loads(bytes(answered.body)))  # type: ignore[arg-type]
        await self._keep(owner, wanted, draft, raw)
        headers = {name: value for name, value in answered.headers.items() if name.lower() in _PASSED_HEADERS}
        return web.json_response(draft.body(), headers=headers)

    async def get(self, request: web.Request) -> web.Response:
        """``GET /v1/responses/{response_id}``: a stored response, to the key that made it."""
        found = await self._stored(caller_of(request), request.match_info["response_id"])
        return web.json_response(found)

    async def delete(self, request: web.Request) -> web.Response:
        """``DELETE /v1/responses/{response_id}``."""
        response_id = request.match_info["response_id"]
        runs = self.council.runs
        deleted = runs is not None and await runs.call(runs.delete_response, caller_of(request), response_id)
        if not deleted:
            raise _not_found(response_id, "response_id")
        return web.json_response({"id": response_id, "object": "response.deleted", "deleted": True})

    async def _stored(self, owner: str, response_id: str, param: str = "response_id") -> dict[str, Any]:
        runs = self.council.runs
        stored = await runs.call(runs.stored_response, owner, response_id) if runs is not None else None
        if stored is None:
            raise _not_found(response_id, param)
        return stored.body

    async def _earlier(self, owner: str, response_id: str | None) -> list[dict[str, Any]]:
        if response_id is None:
            return []
        runs = self.council.runs
        stored = await runs.call(runs.stored_response, owner, response_id) if runs is not None else None
        if stored is None:
            raise _not_found(response_id, "previous_response_id")
        return stored.conversation

    async def _dereferenced(self, owner: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``items`` with each ``item_reference`` replaced by the stored output item it names.

        Clients that keep responses on the server (the Vercel AI SDK's
        default) send earlier output back by reference: the council's
        progress (a reasoning item), its answer, its tool calls. Such an
        item is found in the response that gave it, for the key that made
        it; an id that names none is a 400.
        """
        found: dict[str, dict[str, Any] | None] = {}
        resolved: list[dict[str, Any]] = []
        for index, item in enumerate(items):
            if not is_reference(item):
                resolved.append(item)
                continue
            item_id = item.get("id")
            response_id = response_of_item(item_id) if isinstance(item_id, str) else None
            if response_id is not None and response_id not in found:
                runs = self.council.runs
                stored = await runs.call(runs.stored_response, owner, response_id) if runs is not None else None
                found[response_id] = stored.body if stored is not None else None
            body = found.get(response_id) if response_id is not None else None
            match = [out for out in (body or {}).get("output", []) if out.get("id") == item_id]
            if not match:
                shown = repr(item_id) if len(repr(item_id)) <= 80 else repr(item_id)[:77] + "..."
                raise ApiError(400, f"input[{index}].id: no stored item {shown} (the items of responses kept "
                                    "with store true can be referenced, by the API key that made them)",
                               param=f"input[{index}].id", code="item_not_found")
            resolved.append(match[0])
        return resolved

    async def _keep(self, owner: str, wanted: ResponsesRequest, draft: ResponseDraft, raw: dict[str, Any]) -> None:
        """Store the response before it is answered: a follow-up sent the moment it arrives must find it."""
        runs = self.council.runs
        if not wanted.store or runs is None or draft.status == "in_progress":
            return
        # The conversation to continue from: this request's turns (no instructions: they are not carried
        # over, as OpenAI's are not) and the answer.
        turns = [m for m in raw["messages"] if not (wanted.instructions and m is raw["messages"][0])]
        try:
            await runs.keep_response(owner, draft.body(), turns + draft.as_turns())
        except StorageError as exc:
            # The answer is worth more than its copy: the client gets it; a follow-up naming it gets a 404.
            _log.warning("response_not_kept", response_id=draft.id, cause=str(exc))


def _not_found(response_id: str, param: str) -> ApiError:
    return ApiError(404, f"no stored response {response_id!r} (responses are kept when store is true, for the API "
                         "key that made them)", param=param, code="response_not_found")


def register_responses(app: web.Application, api: ResponsesApi) -> None:
    """Add the Responses API's routes to ``app``."""
    app.router.add_post("/v1/responses", api.create)
    app.router.add_get("/v1/responses/{response_id}", api.get)
    app.router.add_delete("/v1/responses/{response_id}", api.delete)
