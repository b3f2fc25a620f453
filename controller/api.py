"""The controller service's HTTP API and live dashboard (FastAPI, served by uvicorn on a thread).

    server = start_dashboard(service, settings.service.api)    # prints the URL (and a generated token)
    ...
    server.stop()

Endpoints (``make_app``); the read endpoints are open, the control endpoints need the header
``Authorization: Bearer <token>`` and answer 401 without it or with a wrong one:

    GET  /                    the dashboard page (controller/dashboard/), live via /api/events
    GET  /api/status          ServiceControl.status() as JSON
    GET  /api/frame.png       the latest annotated frame, image/png; 404 before the first frame
    GET  /api/plan            the plan and its alternatives as JSON; null before the first plan
    GET  /api/log?since=N     {"since": N, "next": N + len(records), "records": [...]}
    GET  /api/events          text/event-stream: one SSE event per ServiceControl.subscribe()
                              event, named by its "type", its data the event as JSON
    POST /api/pause | /api/resume | /api/estop | /api/shoot-now | /api/opponent-done
                              call the ServiceControl method; {"ok": true, "action": name},
                              or 503 {"detail": "<action> failed: <exception>"} if it raised

JSON bodies are plain JSON: numpy values become numbers or lists, non-finite numbers null.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import queue
import re
import secrets
import socket
import sys
import threading
import time
from dataclasses import dataclass
from importlib import resources

import numpy as np
import uvicorn
from fastapi import Depends, FastAPI, HTTPException, Query
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from config.service import ApiSettings
from controller.service.control import ServiceControl

TOKEN_ENV = "CUEROBOT_API_TOKEN"
# URL action -> ServiceControl method
ACTIONS = {"pause": "pause", "resume": "resume", "estop": "estop", "shoot-now": "shoot_now",
           "opponent-done": "opponent_done"}
EVENT_POLL_S = 0.05     # [s] how often a live stream looks at its queue
KEEPALIVE_S = 15.0      # [s] a comment line this often keeps idle streams open through proxies
RETRY_MS = 2000         # the browser reconnects this long after a dropped stream
ASSETS = {"dashboard.js": "text/javascript", "dashboard.css": "text/css"}
NO_STORE = {"Cache-Control": "no-store"}
log = logging.getLogger(__name__)


class ApiServerError(RuntimeError):
    """The dashboard could not start (e.g. its address is in use)."""


@dataclass(frozen=True)
class ApiToken:
    """The control endpoints' bearer token and where it came from: "config" (service.yaml
    api.token), "environment" (CUEROBOT_API_TOKEN) or "generated" (for this run only)."""
    value: str
    source: str


def resolve_token(configured: str, environ=None) -> ApiToken:
    """service.yaml's ``api.token`` when it is not "", else $CUEROBOT_API_TOKEN when set and not
    "", else a new random token (``secrets.token_urlsafe``, 32 bytes)."""
    environ = os.environ if environ is None else environ
    if configured:
        return ApiToken(configured, "config")
    if environ.get(TOKEN_ENV):
        return ApiToken(environ[TOKEN_ENV], "environment")
    return ApiToken(secrets.token_urlsafe(32), "generated")


def jsonable(obj):
    """``obj`` made of plain JSON types: numpy scalars and arrays to numbers and lists, tuples to
    lists, dict keys to strings, NaN and infinities to None."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return str(obj)


def sse_message(event: dict) -> str:
    """One ServiceControl event as an SSE message: ``event:`` its "type" (letters, digits, - and _
    only; otherwise "message"), ``data:`` the whole event as one line of JSON."""
    kind = str(event.get("type", "message"))
    if not re.fullmatch(r"[A-Za-z0-9_-]+", kind):
        kind = "message"
    return f"event: {kind}\ndata: {json.dumps(jsonable(event), separators=(',', ':'))}\n\n"


def _asset(name: str) -> str:
    return resources.files("controller.dashboard").joinpath(name).read_text(encoding="utf-8")


def make_app(service: ServiceControl, token: str) -> FastAPI:
    """The API and dashboard of ``service`` (endpoints in the module docstring); the control
    endpoints accept ``Authorization: Bearer <token>``. ``app.state.stopping`` is a
    threading.Event: setting it ends the live event streams (``ApiServer.stop`` does)."""
    if not token:
        raise ValueError("the dashboard's control endpoints need a non-empty token (resolve_token makes one)")
    expected = token.encode("utf-8")
    app = FastAPI(title="cuerobot", summary="The controller service's status, plan, frame and controls.",
                  docs_url=None, redoc_url=None)       # their pages load assets from a CDN; /openapi.json stays
    app.state.stopping = threading.Event()
    page = _asset("index.html")
    bearer = HTTPBearer(auto_error=False)

    def authorised(cred: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
        if cred is None or not secrets.compare_digest(cred.credentials.encode("utf-8"), expected):
            raise HTTPException(401, "a valid 'Authorization: Bearer <token>' header is required "
                                     "(service.yaml api.token, $CUEROBOT_API_TOKEN, or the token printed at start)",
                                headers={"WWW-Authenticate": "Bearer"})

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index():
        return HTMLResponse(page, headers=NO_STORE)

    def serve_asset(name: str, media_type: str):
        body = _asset(name)
        app.get(f"/{name}", include_in_schema=False)(lambda: Response(body, media_type=media_type, headers=NO_STORE))

    for name, media_type in ASSETS.items():
        serve_asset(name, media_type)

    @app.get("/api/status")
    def status():
        return JSONResponse(jsonable(service.status()))

    @app.get("/api/frame.png", response_class=Response, responses={200: {"content": {"image/png": {}}}})
    def frame():
        png = service.frame_png()
        if png is None:
            raise HTTPException(404, "no frame yet")
        return Response(png, media_type="image/png", headers=NO_STORE)

    @app.get("/api/plan")
    def plan():
        return JSONResponse(jsonable(service.plan()))

    @app.get("/api/log")
    def game_log(since: int = Query(0, ge=0, description="the first record's number (0-based)")):
        records = service.game_log(since)
        return JSONResponse({"since": since, "next": since + len(records), "records": jsonable(records)})

    @app.get("/api/events", response_class=StreamingResponse)
    async def events():
        return StreamingResponse(_event_stream(service, app.state.stopping), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    def control(action: str, method: str):
        def endpoint(_: None = Depends(authorised)):
            try:
                getattr(service, method)()
            except Exception as e:          # the operator must see that it did not happen, and why
                log.exception("dashboard: %s failed", action)
                raise HTTPException(503, f"{action} failed: {type(e).__name__}: {e}") from e
            return {"ok": True, "action": action}
        endpoint.__name__ = method
        endpoint.__doc__ = f"ServiceControl.{method}(): {getattr(ServiceControl, method).__doc__ or ''}"
        app.post(f"/api/{action}")(endpoint)

    for action, method in ACTIONS.items():
        control(action, method)
    return app


async def _event_stream(service: ServiceControl, stopping: threading.Event):
    """SSE messages of one subscription until the client leaves (the server cancels this) or
    ``stopping`` is set. The subscription lives exactly as long as this generator."""
    q = service.subscribe()
    try:
        yield f"retry: {RETRY_MS}\n\n"
        idle = 0.0
        while not stopping.is_set():
            sent = False
            while True:
                try:
                    event = q.get_nowait()
                except queue.Empty:
                    break
                yield sse_message(event)
                sent = True
            if sent:
                idle = 0.0
            elif idle >= KEEPALIVE_S:
                yield ": keepalive\n\n"
                idle = 0.0
            await asyncio.sleep(EVENT_POLL_S)
            idle += EVENT_POLL_S
    finally:
        service.unsubscribe(q)


class ApiServer:
    """An ASGI app served by uvicorn on a background thread.

    host, port: where to listen (port 0 = a free port, for tests). ``start()`` binds at once (so
    an address in use raises ApiServerError here) and returns the URL; ``stop()`` ends the live
    streams, shuts the server down and joins its thread; it is safe to call twice. One start per
    ApiServer (and per app: stopping ends its streams for good).
    """

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"):
        self.app, self.host, self.port, self.log_level = app, host, int(port), log_level
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._url: str | None = None

    @property
    def url(self) -> str:
        """``http://host:port`` of the running server (the bound port when started with port 0)."""
        if self._url is None:
            raise ApiServerError("the dashboard is not running: call start() first")
        return self._url

    def start(self, timeout: float = 10.0) -> str:
        """Bind, serve on a daemon thread, wait until uvicorn is up; returns ``url``."""
        if self._thread is not None:
            raise ApiServerError("the dashboard is already started")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as e:
            sock.close()
            raise ApiServerError(f"dashboard: cannot listen on {self.host}:{self.port}: {e.strerror} "
                                 f"(set api.host / api.port in service.yaml)") from e
        port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level=self.log_level, access_log=False, lifespan="off", http="h11",
                                ws="none", timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True,
                                        name=f"cuerobot-api:{port}")
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ApiServerError(f"dashboard: uvicorn did not start on {self.host}:{port} within {timeout} s")
            time.sleep(0.01)
        host = f"[{self.host}]" if family == socket.AF_INET6 else self.host
        self._url = f"http://{host}:{port}"
        return self._url

    def stop(self, timeout: float = 5.0) -> None:
        """End the live streams and the server; wait up to ``timeout`` [s] for its thread."""
        stopping = getattr(self.app.state, "stopping", None)
        if stopping is not None:
            stopping.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        self._url = None

    def __enter__(self) -> "ApiServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_dashboard(service: ServiceControl, api: ApiSettings, environ=None, out=None) -> ApiServer:
    """Serve ``service``'s dashboard where service.yaml's ``api`` says, with the token from
    ``resolve_token``. Prints the URL to ``out`` (default stdout), and the token too, once, when
    it was generated for this run. Raises ApiServerError if it cannot listen."""
    out = sys.stdout if out is None else out
    token = resolve_token(api.token, environ)
    server = ApiServer(make_app(service, token.value), api.host, api.port)
    url = server.start()
    print(f"dashboard: {url}/", file=out)
    if token.source == "generated":
        print(f"dashboard: control token (generated for this run; set api.token or ${TOKEN_ENV} to fix it): "
              f"{token.value}", file=out, flush=True)
    return server
