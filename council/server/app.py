"""The aiohttp application behind ``council serve``: an OpenAI-compatible API.

Endpoints: ``GET /v1/models``, ``GET /v1/models/{id}``,
``POST /v1/chat/completions``, ``GET /v1/council/runs/{id}`` and
``GET /healthz``. Every error is answered in OpenAI's shape with the right
status; nothing ever answers with a traceback.
"""

from __future__ import annotations

import asyncio
import hmac
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Middleware
from pydantic import SecretStr

from council.config import CouncilConfig, server_api_keys
from council.errors import (
    ConfigError,
    CouncilError,
    InvalidRequestError,
    ProviderError,
    StorageError,
    UnsafeBindingError,
    storage_cause,
)
from council.logs import get_logger
from council.pipeline import Council, RunArchive
from council.result import masked
from council.rubrics import shipped_rubrics
from council.server.chat import COUNCIL_MODEL, MEMBER_PREFIX, PRESET_PREFIX, ChatHandler, upstream_error
from council.server.conversation import MessageOrigin, invalid_request
from council.server.guards import ORIGINS_KEY, Cors, access_log_middleware, read_body
from council.server.listen import CappedSite, serve
from council.server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from council.server.page_api import page_access_middleware, register_web
from council.server.patience import PATIENCE_KEY, Patience, patiently
from council.server.request_guard import is_loopback, request_guard
from council.server.responses import ResponsesApi, register_responses
from council.server.schema import ApiError, ChatCompletionRequest, decode_body, is_side_task, parse_request
from council.server.task_routing import TASK_MODEL_HEADER, side_task_member

_log = get_logger("server")
COUNCIL_KEY = web.AppKey("council", Council)
CHAT_KEY = web.AppKey("chat", ChatHandler)
LIMIT_KEY = web.AppKey("max_body_bytes", int)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
PRUNE_EVERY_S = 24 * 3600
_OPEN_PATHS = frozenset({"/healthz"})


def _error_response(error: ApiError) -> web.Response:
    response = web.json_response(error.body(), status=error.status, headers=error.headers)
    if error.status == 408:
        response.force_close()  # the rest of a late body may still arrive: this connection is done
    return response


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure becomes an OpenAI-shaped error; an unexpected one is logged, never shown."""
    try:
        return await handler(request)
    except asyncio.CancelledError:
        raise
    except Exception as error:
        return error_answer(request, error)


def error_answer(request: web.Request, failure: Exception) -> web.Response:
    """The response ``errors_middleware`` answers ``error`` with; aiohttp's own HTTP exceptions it does not map
    are raised again. An answer that started early (:mod:`council.server.patience`) sends this body instead."""
    try:
        raise failure
    except ApiError as error:
        return _error_response(error)
    except web.HTTPRequestEntityTooLarge:
        limit = request.app[LIMIT_KEY]
        return _error_response(
            ApiError(413, f"the request body is larger than {limit} bytes", code="request_too_large")
        )
    except web.HTTPNotFound:
        return _error_response(ApiError(404, f"no route {request.method} {request.path}", code="not_found"))
    except web.HTTPMethodNotAllowed as error:
        return _error_response(
            ApiError(
                405,
                f"{request.method} is not allowed on {request.path}; use {', '.join(sorted(error.allowed_methods))}",
                code="method_not_allowed",
            )
        )
    except web.HTTPException:
        raise
    except ConnectionResetError:
        # A stream written to a client that left (aiohttp's ClientConnectionResetError is one) ends there: not
        # a server error. Raised on, aiohttp would log a traceback and count a 500; this reply is dropped with
        # the connection, and the access log records 499.
        return web.Response(status=499, reason="Client Closed Request")
    except StorageError as error:
        # The operator needs the cause and the path; the client gets the cause alone.
        _log.error("storage_failed", path=request.path, cause=str(error))
        return _error_response(
            ApiError(
                503, f"storage is unavailable: {storage_cause(error)}", type="server_error", code="storage_unavailable"
            )
        )
    except CouncilError as error:
        return _error_response(council_error(error, request.get(ORIGINS_KEY)))
    except Exception as error:
        _log.error("unhandled_error", path=request.path, error=error, exc_info=True)
        return _error_response(ApiError(500, "internal server error", type="server_error", code="internal_error"))


def council_error(error: CouncilError, origins: list[MessageOrigin] | None = None) -> ApiError:
    """Any error Council raises on purpose, as the status that says whose it is; never a 500.

    A refused run request is the client's (400, naming its parameter), a
    member's failure the upstream's (429, 504, 502), a config the server
    cannot serve with is the server's to fix (503, as a database outage is).
    """
    if isinstance(error, InvalidRequestError):
        return invalid_request(error, origins)
    if isinstance(error, ProviderError):
        return upstream_error(error)
    if isinstance(error, ConfigError):
        _log.error("config_unusable", cause=str(error))
        return ApiError(503, f"the server's configuration cannot serve this request: {error}", type="server_error",
                        code="config_error")
    return ApiError(502, str(error), type="server_error", code="council_error")


def auth_middleware(keys: list[SecretStr], open_paths: frozenset[str] = _OPEN_PATHS) -> Middleware:
    """Require ``Authorization: Bearer KEY`` when keys are configured, compared in constant time."""
    encoded = [k.get_secret_value().encode() for k in keys]

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if encoded and request.path not in open_paths:
            header = request.headers.get("Authorization", "")
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise ApiError(401, "missing API key: send Authorization: Bearer <key>", type="authentication_error",
                               code="invalid_api_key")
            given = token.strip().encode()
            matched = False
            for key in encoded:  # no early exit: the time taken does not tell which key came close
                matched |= hmac.compare_digest(given, key)
            if not matched:
                raise ApiError(401, "invalid API key", type="authentication_error", code="invalid_api_key")
        return await handler(request)

    return middleware


def _models(council: Council, created: int) -> list[dict[str, object]]:
    models: list[dict[str, object]] = [{"id": COUNCIL_MODEL, "object": "model", "created": created,
                                        "owned_by": "council", "description": "the council as configured"}]
    for name, preset in council.presets.items():
        models.append({"id": PRESET_PREFIX + name, "object": "model", "created": created, "owned_by": "council",
                       "description": preset.description or f"the council's {name} preset"})
    for member in council.config.members:
        models.append({"id": MEMBER_PREFIX + member.name, "object": "model", "created": created, "owned_by": "council",
                       "description": f"{member.provider}/{member.model}, passed through"})
    return models


def create_app(config: CouncilConfig, *, environ: Mapping[str, str] | None = None,
               council: Council | None = None, bind_host: str | None = None) -> web.Application:
    """The server application for ``config``; the council opens on startup and closes on cleanup.

    ``bind_host`` is the address it will listen on (default ``server.host``): on a loopback one, only
    loopback ``Host`` names and ``server.allowed_hosts`` are answered.
    """
    keys = server_api_keys(config, environ)
    cors = Cors(config.server)
    # Outermost first: the access log sees every answer, CORS answers preflights before routing and auth.
    open_paths = _OPEN_PATHS | ({"/metrics"} if config.server.metrics_public else set())
    middlewares: list[Middleware] = [cors.preflight, errors_middleware,
                                     request_guard(config.server, bind_host or config.server.host),
                                     page_access_middleware, auth_middleware(keys, open_paths)]
    if config.server.access_log:
        middlewares.insert(0, access_log_middleware)
    app = web.Application(client_max_size=config.server.max_body_bytes, middlewares=middlewares)
    app.on_response_prepare.append(cors.add_headers)
    council = council or Council(config, environ=environ)
    created = int(time.time())
    app[COUNCIL_KEY] = council
    app[LIMIT_KEY] = config.server.max_body_bytes
    app[CHAT_KEY] = chat = ChatHandler(council, app)
    # An answer that takes longer than keepalive_s starts early and keeps talking: proxies cut silences.
    app[PATIENCE_KEY] = Patience(config.server.keepalive_s, error_answer)
    web_api = register_web(app, council, chat)

    async def list_models(_request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": _models(council, created)})

    async def get_model(request: web.Request) -> web.Response:
        wanted = request.match_info["model_id"]
        for model in _models(council, created):
            if model["id"] == wanted:
                return web.json_response(model)
        raise ApiError(404, f"The model '{wanted}' does not exist", param="model", code="model_not_found")

    async def read_limited(request: web.Request) -> bytes:
        limit = config.server.max_body_bytes
        if request.content_length is not None and request.content_length > limit:
            raise ApiError(413, f"the request body is larger than {limit} bytes", code="request_too_large")
        return await read_body(request, config.server.body_timeout_s)

    async def chat_completions(request: web.Request) -> web.StreamResponse:
        raw = decode_body(await read_limited(request))
        body = parse_request(raw, allow_private_images=config.transport.allow_private_image_urls)
        if body.stream:
            return await route_chat(request, body, raw)  # streams send keep-alive comments of their own
        return await patiently(request, route_chat(request, body, raw))

    async def route_chat(request: web.Request, body: ChatCompletionRequest, raw: dict[str, Any]) -> web.StreamResponse:
        """Who answers a chat request: a side task's member, the council, a preset, or a member."""
        preset_name = body.model.removeprefix(PRESET_PREFIX) if body.model.startswith(PRESET_PREFIX) else None
        council_model = body.model == COUNCIL_MODEL or preset_name in council.presets
        if council_model and is_side_task(body):
            # A chat app's title, tags or follow-ups: one member's quick answer, not a whole council run.
            member = side_task_member(config, council.presets.get(preset_name or ""))
            if member is not None:
                return await chat.member_completion(request, body, member, kind="side-task",
                                                    headers={TASK_MODEL_HEADER: MEMBER_PREFIX + member})
        if body.model == COUNCIL_MODEL:
            return await chat.council_completion(request, body)
        if body.model.startswith(PRESET_PREFIX) and body.model.removeprefix(PRESET_PREFIX) in council.presets:
            return await chat.council_completion(request, body, body.model.removeprefix(PRESET_PREFIX))
        if body.model.startswith(MEMBER_PREFIX):
            return await chat.member_completion(request, body, body.model.removeprefix(MEMBER_PREFIX), raw=raw)
        raise ApiError(404, f"The model '{body.model}' does not exist; see GET /v1/models", param="model",
                       code="model_not_found")

    async def get_run(request: web.Request) -> web.Response:
        run_id = request.match_info["run_id"]
        runs = council.runs
        stored = await runs.call(runs.get, run_id) if runs is not None else None
        if stored is None:
            raise ApiError(404, f"no council run {run_id!r}", param="run_id", code="run_not_found")
        # What the safety gate blocked is masked here as everywhere; the store keeps it as it was.
        return web.json_response(masked(stored).model_dump(mode="json"))

    async def healthz(_request: web.Request) -> web.Response:
        admission = chat.admission.stats()
        return web.json_response({"status": "stopping" if chat.closing else "ok", "active_runs": admission.running,
                                  "queued": admission.queued, "admission": vars(admission),
                                  "members": [m.name for m in config.members],
                                  "tasks": len(asyncio.all_tasks())})

    async def list_rubrics(_request: web.Request) -> web.Response:
        choices = await asyncio.to_thread(lambda: council.rubric_catalog.choices())
        return web.json_response({"object": "list", "data": [
            {"id": c.name, "rubric_id": c.rubric.id, "version": c.rubric.version, "name": c.rubric.name,
             "source": c.source, "default": c.source == "configured"} for c in choices]})

    app.router.add_get("/v1/models", list_models)
    app.router.add_get("/v1/models/{model_id:.+}", get_model)
    app.router.add_post("/v1/chat/completions", chat_completions)
    register_responses(app, ResponsesApi(council, route_chat, read_limited,
                                         config.transport.allow_private_image_urls))
    app.router.add_get("/v1/council/runs/{run_id}", get_run)
    app.router.add_get("/v1/council/rubrics", list_rubrics)
    app.router.add_get("/healthz", healthz)

    async def metrics(_request: web.Request) -> web.Response:
        return web.Response(body=chat.metrics.exposition(), headers={"Content-Type": METRICS_CONTENT_TYPE})

    app.router.add_get("/metrics", metrics)

    upkeep: list[asyncio.Task[None]] = []

    async def open_council(_app: web.Application) -> None:
        await council.__aenter__()
        runs = council.runs
        if runs is not None:
            # Runs still "running" in the database were cut off by a crash or a kill: say so, once.
            marked = await runs.call(runs.mark_interrupted,
                                     "the server stopped before the run finished (found at start-up)")
            if marked:
                _log.warning("runs_interrupted", count=len(marked), run_ids=marked[:20])
        await asyncio.to_thread(shipped_rubrics)  # read the shipped rubric files once, off the event loop
        if runs is not None and config.storage.keep_runs_days is not None:
            upkeep.append(asyncio.create_task(prune_daily(runs, timedelta(days=config.storage.keep_runs_days))))

    async def drain_runs(_app: web.Application) -> None:
        # Queued requests are answered 503 at once and no run starts from here on; the runs in flight get one
        # grace period, chat and page alike; then the rest are cancelled and their clients told so (an error
        # event and [DONE] on streams, a 503 otherwise).
        chat.closing = True
        chat.admission.close()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + config.server.shutdown_grace_s
        # Looped: a page run admitted just before the close may register its task a moment later.
        while running := set(chat.background) | set(web_api.tasks) | set(chat.passthrough):
            _done, pending = await asyncio.wait(running, timeout=max(deadline - loop.time(), 0))
            if pending:
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)

    async def close_council(_app: web.Application) -> None:
        for task in upkeep:
            task.cancel()
        await asyncio.gather(*upkeep, return_exceptions=True)
        await council.aclose()

    app.on_startup.append(open_council)
    app.on_shutdown.append(drain_runs)
    app.on_cleanup.append(close_council)
    return app


async def prune_daily(runs: RunArchive, keep: timedelta) -> None:
    """Delete finished runs older than ``keep`` now and once a day (``storage.keep_runs_days``)."""
    while True:
        try:
            pruned = await runs.call(runs.prune, keep)
            _log.info("runs_pruned", count=pruned, older_than_days=keep.days)
        except StorageError as error:
            _log.error("runs_not_pruned", cause=str(error))  # tried again tomorrow; serving goes on
        await asyncio.sleep(PRUNE_EVERY_S)


def check_binding(config: CouncilConfig, host: str, insecure_no_auth: bool,
                  environ: Mapping[str, str] | None = None) -> None:
    """Refuse to expose an unauthenticated council beyond this machine."""
    if not server_api_keys(config, environ) and not is_loopback(host) and not insecure_no_auth:
        raise UnsafeBindingError(
            f"refusing to listen on {host} without API keys: set ${config.server.api_keys_env} (comma-separated "
            "keys), bind 127.0.0.1, or pass --insecure-no-auth"
        )


def run_server(config: CouncilConfig, host: str, port: int, *, insecure_no_auth: bool = False,
               environ: Mapping[str, str] | None = None) -> None:
    """Serve until SIGTERM or SIGINT, then drain within ``server.shutdown_grace_s``."""
    check_binding(config, host, insecure_no_auth, environ)
    app = create_app(config, environ=environ, bind_host=host)

    def announce(site: CappedSite) -> None:
        print(f"council: serving {len(config.members)} members on http://{host}:{site.port}/v1 "
              f"(model 'council', pass-through 'member/NAME')", flush=True)

    asyncio.run(serve(app, config.server, host, port, announce))
