"""The web page of ``council serve``: the page itself at ``/`` and the JSON API it uses under ``/api``.

Endpoints (errors in the server's OpenAI shape ``{"error": {...}}``):

- ``GET /``, ``GET /static/{file}``: the page, public (it holds no data).
- ``GET /api/options``: the members, chairman and rubrics to choose from.
- ``GET|POST /api/conversations``, ``GET|PATCH|DELETE /api/conversations/{id}``.
- ``POST /api/conversations/{id}/messages``: ask; starts a run and answers
  202 with its id as soon as it has a run slot (waiting for one longer than
  ``server.keepalive_s``, the answer starts early: 200, whitespace, then the
  same body or an ``{"error": ...}`` one; see :mod:`council.server.patience`).
- ``GET /api/runs/{id}``: the run's events so far, as JSON.
- ``GET /api/runs/{id}/events``: the same as SSE, then live until the run
  ends. EventSource cannot send headers, so this one route also takes the
  API key as ``?token=``.

A run belongs to its conversation, not to the page that asked: closing or
reloading the page never cancels it.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler
from multidict import CIMultiDict

from council.errors import CouncilError, InvalidRequestError
from council.logs import get_logger
from council.pipeline import Conversation, Conversations, Council, RunPlan, RunRequest
from council.result import CouncilResult
from council.server.chat import ChatHandler
from council.server.guards import read_body
from council.server.live import LiveRun, LiveRuns, gate_mode, replay_events, stream_events, summary
from council.server.patience import patient
from council.server.schema import ApiError, decode_body
from council.server.web_input import conversation_fields, page_request_error, question_of
from council.types import ChatMessage
from council.web import STATIC_DIR

_CONTENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
# Model output is rendered by the page's own escaping renderer; the policy is a second wall behind it.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
                               "form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_log = get_logger("server.web")


def _dumps(body: Any) -> str:
    # Event data is JSON-ready by contract; anything that slips through is shown as text, not a 500.
    return json.dumps(body, ensure_ascii=False, default=str)


def public(handler: Any) -> Any:
    """Mark a route handler as open to everyone, API keys or not."""
    handler.council_public = True
    return handler


def query_token(handler: Any) -> Any:
    """Mark a route handler as accepting the API key as ``?token=`` (for EventSource)."""
    handler.council_query_token = True
    return handler


@web.middleware
async def page_access_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Let the page load without a key, and let EventSource pass its key in the query.

    It sits between the error and auth middlewares: a public route's
    handler is called directly, past the key check; a ``?token=`` on a route
    that accepts one becomes the Authorization header the key check reads.
    """
    target = request.match_info.handler
    if getattr(target, "council_public", False):
        return await target(request)
    token = request.query.get("token")
    if token and getattr(target, "council_query_token", False) and "Authorization" not in request.headers:
        headers = CIMultiDict(request.headers)
        headers["Authorization"] = f"Bearer {token}"
        request = request.clone(headers=headers)
    return await handler(request)


def rubric_options(council: Council) -> list[dict[str, Any]]:
    """The rubrics a conversation may choose: the configured one first, then shipped and registered ones."""
    return [{"id": choice.name, "name": choice.rubric.name, "version": choice.rubric.version,
             "source": choice.source, "scale": [choice.rubric.scale_min, choice.rubric.scale_max],
             "dimensions": [{"id": d.id, "name": d.title} for d in choice.rubric.dimensions]}
            for choice in council.rubric_catalog.choices()]


class WebApi:
    """The page's handlers and the state they share: conversations, live runs, run tasks."""

    def __init__(self, council: Council, chat: ChatHandler) -> None:
        self.council = council
        self.config = council.config
        self.chat = chat
        self.live = LiveRuns()
        self.tasks: set[asyncio.Task[None]] = set()
        self._conversations: Conversations | None = None
        self.rubrics: list[dict[str, Any]] = []

    @property
    def conversations(self) -> Conversations:
        """The conversation tables (open while the app runs)."""
        if self._conversations is None:
            raise ApiError(503, "the server is not running", type="server_error", code="not_ready")
        return self._conversations

    # -- lifecycle ---------------------------------------------------------
    async def open(self, _app: web.Application) -> None:
        """Open the conversation tables in the run database and read the rubrics on offer."""
        self._conversations = await asyncio.to_thread(self.council.open_conversations)
        # Shipped rubric files are read here, once, off the event loop.
        self.rubrics = await asyncio.to_thread(rubric_options, self.council)

    async def close(self, _app: web.Application) -> None:
        """Close the conversation tables."""
        if self._conversations is not None:
            conversations, self._conversations = self._conversations, None
            await asyncio.to_thread(conversations.close)

    # -- the page ------------------------------------------------------------
    @public
    async def index(self, _request: web.Request) -> web.StreamResponse:
        """The page."""
        return web.FileResponse(STATIC_DIR / "index.html", headers={**PAGE_HEADERS, "Content-Type": "text/html"})

    @public
    async def static(self, request: web.Request) -> web.StreamResponse:
        """One of the page's files; only files that are in the folder, by exact name."""
        name = request.match_info["name"]
        path = STATIC_DIR / name
        if "/" in name or name.startswith(".") or not path.is_file() or path.suffix not in _CONTENT_TYPES:
            raise ApiError(404, f"no file {name!r}", code="not_found")
        return web.FileResponse(path, headers={**PAGE_HEADERS, "Content-Type": _CONTENT_TYPES[path.suffix]})

    # -- options and conversations ------------------------------------------
    async def options(self, _request: web.Request) -> web.Response:
        """Who can answer, chair and score."""
        return web.json_response({
            "members": [{"name": m.name, "provider": m.provider, "model": m.model} for m in self.config.members],
            "chairman": self.config.chairman,
            "rubric": self.config.rubric,
            "rubrics": self.rubrics,
            "rubric_selectable": True,
            # A preset fills in the pickers; its way of reviewing (peers or one judge) comes with it.
            "presets": [{"name": name, "description": p.description,
                         "members": p.members or [m.name for m in self.config.members],
                         "chairman": p.chairman_for(self.config.chairman),
                         "rubric": p.rubric if p.rubric in [r["id"] for r in self.rubrics] else self.config.rubric,
                         "review": p.review, "judge": p.judge}
                        for name, p in self.config.councils.items()],
        })

    async def _conversation(self, request: web.Request) -> Conversation:
        conversation_id = request.match_info["conversation_id"]
        conversation = await self.conversations.get(conversation_id)
        if conversation is None:
            raise ApiError(404, f"no conversation {conversation_id!r}", param="conversation_id",
                           code="conversation_not_found")
        return conversation

    def _fields(self, body: dict[str, Any], creating: bool) -> dict[str, Any]:
        return conversation_fields(body, [m.name for m in self.config.members],
                                   [r["id"] for r in self.rubrics], creating, list(self.config.councils))

    async def list_conversations(self, _request: web.Request) -> web.Response:
        """Every conversation, the most recent first."""
        conversations = await self.conversations.recent()
        return web.json_response({"conversations": [c.as_json() for c in conversations]})

    async def create_conversation(self, request: web.Request) -> web.Response:
        """A new conversation; its council defaults to the configured one."""
        fields = self._fields(decode_body(await read_body(request, self.config.server.body_timeout_s)), creating=True)
        conversation = await self.conversations.create(
            fields.get("members", [m.name for m in self.config.members]),
            fields.get("chairman", self.config.chairman), fields.get("rubric", self.config.rubric),
            fields.get("title"), fields.get("preset"))
        return web.json_response(await self._with_runs(conversation), status=201)

    async def get_conversation(self, request: web.Request) -> web.Response:
        """A conversation with its messages, each question with the state of its run."""
        return web.json_response(await self._with_runs(await self._conversation(request)))

    async def update_conversation(self, request: web.Request) -> web.Response:
        """Rename a conversation or change who answers, chairs and scores."""
        conversation = await self._conversation(request)
        fields = self._fields(decode_body(await read_body(request, self.config.server.body_timeout_s)), creating=False)
        updated = await self.conversations.update(conversation.id, **fields)
        if updated is None:  # deleted meanwhile
            raise ApiError(404, f"no conversation {conversation.id!r}", code="conversation_not_found")
        return web.json_response(await self._with_runs(updated))

    async def delete_conversation(self, request: web.Request) -> web.Response:
        """Delete a conversation (its runs stay in the run store)."""
        conversation = await self._conversation(request)
        await self.conversations.delete(conversation.id)
        return web.Response(status=204)

    async def _with_runs(self, conversation: Conversation) -> dict[str, Any]:
        body = conversation.as_json(with_messages=True)
        asked = [m for m in body["messages"] if m["role"] == "user"]
        running_here = {m["run_id"] for m in asked if (live := self.live.get(m["run_id"])) and not live.finished}
        runs = self.council.runs
        ids = [m["run_id"] for m in asked if m["run_id"] and m["run_id"] not in running_here]
        stored = await runs.call(runs.statuses, ids) if runs is not None and ids else {}
        for message in asked:
            # Stored as running and not running here: another replica runs it (runs of a server that stopped
            # were marked interrupted when it started again).
            message["run_status"] = "running" if message["run_id"] in running_here \
                else stored.get(message["run_id"], "unknown")
        return body

    # -- asking ----------------------------------------------------------------
    async def post_message(self, request: web.Request) -> web.Response:
        """Ask the conversation's council a question; the run goes on in the background."""
        conversation = await self._conversation(request)
        content, images = question_of(decode_body(await read_body(request, self.config.server.body_timeout_s)))
        self._check_council(conversation)
        if self.live.running_in(conversation.id) is not None:
            raise ApiError(409, "the council is still answering this conversation's last question",
                           code="run_in_progress")
        # The images go with this question only: the conversation's history keeps the text.
        messages = [*conversation.history(), ChatMessage(role="user", content=content, images=images)]
        # By name only: a conversation's rubric must never be read as a path (nor the database on the loop).
        run_request = RunRequest(messages=messages, members=conversation.members, chairman=conversation.chairman,
                                 rubric=conversation.rubric, rubric_source="named", preset=conversation.preset,
                                 cache_scope=self.chat.cache_scope(request))
        try:
            plan = await asyncio.to_thread(self.council.plan, run_request)
        except InvalidRequestError as error:
            raise page_request_error(error) from None
        # The same run slots and queue as chat completions: page runs and chat runs wait in one line.
        await self.chat.admit()
        if self.live.running_in(conversation.id) is not None:  # another tab asked while this one waited
            self.chat.admission.release()
            raise ApiError(409, "the council is still answering this conversation's last question",
                           code="run_in_progress")
        run_id = uuid.uuid4().hex
        try:
            # A question of images alone is kept as a line that says so: later turns carry the text only.
            kept = content if content.strip() else f"[{len(images)} image(s) attached]"
            message = await self.conversations.add_question(conversation.id, kept, run_id, conversation.members,
                                                            conversation.chairman, conversation.rubric)
        except BaseException:
            self.chat.admission.release()
            raise
        live = self.live.start(run_id, conversation.id, gate_mode(self.config))
        task = self.chat.start_admitted(self._run(live, plan, conversation))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return web.json_response({"run_id": run_id, "conversation_id": conversation.id, "message": message.as_json(),
                                  "events_url": f"/api/runs/{run_id}/events"}, status=202)

    def _check_council(self, conversation: Conversation) -> None:
        # The config may have changed since the conversation chose its council.
        names = [m.name for m in self.config.members]
        gone = [m for m in [*conversation.members, conversation.chairman] if m is not None and m not in names]
        preset_gone = conversation.preset is not None and conversation.preset not in self.config.councils
        if gone or preset_gone or conversation.rubric not in [r["id"] for r in self.rubrics]:
            what = (f"members {', '.join(gone)} are" if gone else f"preset {conversation.preset!r} is" if preset_gone
                    else f"rubric {conversation.rubric!r} is")
            raise ApiError(409, f"{what} no longer configured; choose this conversation's council again",
                           code="council_changed")

    async def _run(self, live: LiveRun, plan: RunPlan, conversation: Conversation) -> None:
        try:
            result: CouncilResult = await self.council.ask(
                plan, on_event=lambda event: live.add(event.kind, dict(event.data)), run_id=live.run_id)
            final = result.final_answer
            # A blocked run's answer is the line saying it was withheld: the conversation keeps it, as chat apps do.
            if result.status in ("complete", "blocked") and final is not None and final.content:
                await self.conversations.add_answer(conversation.id, live.run_id, final.content, final.by)
            live.add("result", summary(result))
        except asyncio.CancelledError:
            live.add("error", {"message": "the run was stopped before it finished: the server is shutting down"})
            raise
        except CouncilError as error:
            live.add("error", {"message": str(error)})
        except Exception as error:
            _log.error("web_run_crashed", run_id=live.run_id, error=error, exc_info=True)
            live.add("error", {"message": "internal error while running the council"})
        finally:
            self.live.finish(live)

    # -- watching a run ----------------------------------------------------------
    async def _stored(self, run_id: str) -> CouncilResult | None:
        runs = self.council.runs
        return await runs.call(runs.get, run_id) if runs is not None else None

    async def _events(self, run_id: str) -> LiveRun | list[dict[str, Any]]:
        live = self.live.get(run_id)
        if live is not None:
            return live
        stored = await self._stored(run_id)
        if stored is None:
            raise ApiError(404, f"no council run {run_id!r}", param="run_id", code="run_not_found")
        final = stored.final_answer
        return replay_events(stored, final.by if final is not None and final.source == "chairman" else None)

    async def run_events(self, request: web.Request) -> web.Response:
        """A run's events so far, as JSON; ``finished`` says whether more can come."""
        run_id = request.match_info["run_id"]
        source = await self._events(run_id)
        finished = source.finished if isinstance(source, LiveRun) else True
        events = list(source.events) if isinstance(source, LiveRun) else source
        return web.json_response({"run_id": run_id, "finished": finished, "events": events}, dumps=_dumps)

    @query_token
    async def run_event_stream(self, request: web.Request) -> web.StreamResponse:
        """A run's events as SSE: everything so far (after ``Last-Event-ID``), then live until it ends."""
        source = await self._events(request.match_info["run_id"])
        last = request.headers.get("Last-Event-ID", "")
        after = int(last) + 1 if last.isdigit() else 0
        return await stream_events(request, source, after, self.config.server.keepalive_s)


def register_web(app: web.Application, council: Council, chat: ChatHandler) -> WebApi:
    """Add the page and its API to the server app (``page_access_middleware`` must be in its middlewares)."""
    api = WebApi(council, chat)
    router = app.router
    router.add_get("/", api.index)
    router.add_get("/static/{name}", api.static)
    router.add_get("/api/options", api.options)
    router.add_get("/api/conversations", api.list_conversations)
    router.add_post("/api/conversations", api.create_conversation)
    router.add_get("/api/conversations/{conversation_id}", api.get_conversation)
    router.add_patch("/api/conversations/{conversation_id}", api.update_conversation)
    router.add_delete("/api/conversations/{conversation_id}", api.delete_conversation)
    # Asking may wait for a run slot behind other runs: an answer started early keeps talking (202 becomes 200).
    router.add_post("/api/conversations/{conversation_id}/messages", patient(api.post_message))
    router.add_get("/api/runs/{run_id}", api.run_events)
    router.add_get("/api/runs/{run_id}/events", api.run_event_stream)
    app.on_startup.append(api.open)
    app.on_cleanup.append(api.close)
    return api
