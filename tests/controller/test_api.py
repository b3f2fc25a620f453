"""The HTTP API (controller.api) against a ServiceControl double: authorisation, JSON shapes, the
PNG frame, the page and its assets, and the live event stream on a real uvicorn server."""
from __future__ import annotations

import io
import json
import re
import socket

import cv2
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient
from service_double import PLAN, TOKEN, ServiceDouble, wait_until

from config.service import ApiSettings
from controller.api import (
    ACTIONS,
    TOKEN_ENV,
    ApiServer,
    ApiServerError,
    jsonable,
    make_app,
    resolve_token,
    sse_message,
    start_dashboard,
)
from controller.service.control import ServiceControl

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def service():
    return ServiceDouble()


@pytest.fixture
def client(service):
    with TestClient(make_app(service, TOKEN)) as c:
        yield c


# ---- read endpoints -------------------------------------------------------------------------
def test_status_plan_and_log_are_served_as_json_without_a_token(client, service):
    r = client.get("/api/status")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert r.json() == json.loads(json.dumps(service.status()))       # ball ids become string keys
    assert r.json()["game"]["balls"]["9"] == [0.3, 0.5]

    r = client.get("/api/plan")
    assert r.status_code == 200
    plan = r.json()
    assert plan["call"] == PLAN["call"] and plan["shot"] == PLAN["shot"]
    assert [a["kind"] for a in plan["alternatives"]] == ["pot", "safety"]
    assert plan["paths"]["0"] == PLAN["paths"][0]

    assert client.get("/api/log").json() == {"since": 0, "next": 2, "records": service.game_log()}
    assert client.get("/api/log", params={"since": 1}).json() == {"since": 1, "next": 2,
                                                                   "records": service.game_log(1)}
    assert client.get("/api/log", params={"since": 5}).json() == {"since": 5, "next": 5, "records": []}
    assert client.get("/api/log", params={"since": -1}).status_code == 422


def test_frame_is_the_services_png(client, service):
    r = client.get("/api/frame.png")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.headers["cache-control"] == "no-store"
    assert r.content == service.frame_png()
    img = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (180, 320, 3)


def test_before_the_first_frame_and_plan():
    service = ServiceDouble(plan=None)
    service._frame = None
    with TestClient(make_app(service, TOKEN)) as c:
        r = c.get("/api/frame.png")
        assert r.status_code == 404 and r.json() == {"detail": "no frame yet"}
        r = c.get("/api/plan")
        assert r.status_code == 200 and r.json() is None


def test_numpy_values_and_non_finite_numbers_become_plain_json():
    assert jsonable({1: np.float64(0.5), "a": np.array([[1, 2]]), "n": float("nan"), "t": (np.int64(3), None),
                     "inf": np.float32("inf"), "b": np.bool_(True)}) == \
        {"1": 0.5, "a": [[1, 2]], "n": None, "t": [3, None], "inf": None, "b": True}
    service = ServiceDouble(plan={**PLAN, "estimate": float("nan"), "cue_pos": np.array([0.5, 0.6])})
    with TestClient(make_app(service, TOKEN)) as c:
        plan = c.get("/api/plan").json()
    assert plan["estimate"] is None and plan["cue_pos"] == [0.5, 0.6]


# ---- control endpoints ----------------------------------------------------------------------
@pytest.mark.parametrize("action", list(ACTIONS))
def test_control_needs_the_token(client, service, action):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"},
                    {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": f"Bearer {TOKEN[:-1]}"},
                    {"Authorization": b"Bearer \xc3\xa9t\xc3\xa9"}):
        r = client.post(f"/api/{action}", headers=headers)
        assert r.status_code == 401, headers
        assert r.headers["www-authenticate"] == "Bearer"
    assert service.calls == []

    r = client.post(f"/api/{action}", headers=AUTH)
    assert r.status_code == 200 and r.json() == {"ok": True, "action": action}
    assert service.calls == [ACTIONS[action]]


def test_every_control_method_of_the_contract_has_an_endpoint():
    methods = {m for m in vars(ServiceControl) if not m.startswith("_")}
    assert set(ACTIONS.values()) == methods - {"status", "frame_png", "plan", "game_log", "subscribe",
                                               "unsubscribe"}


def test_a_control_that_fails_says_so(service):
    def refuse():
        raise RuntimeError("no plan yet")
    service.shoot_now = refuse
    with TestClient(make_app(service, TOKEN)) as c:
        r = c.post("/api/shoot-now", headers=AUTH)
    assert r.status_code == 503 and r.json() == {"detail": "shoot-now failed: RuntimeError: no plan yet"}


def test_control_is_post_only(client, service):
    assert client.get("/api/estop", headers=AUTH).status_code == 405
    assert service.calls == []


def test_an_empty_token_is_refused():
    with pytest.raises(ValueError, match="non-empty token"):
        make_app(ServiceDouble(), "")


def test_token_from_config_then_environment_then_generated():
    t = resolve_token("cfg", {TOKEN_ENV: "env"})
    assert (t.value, t.source) == ("cfg", "config")
    t = resolve_token("", {TOKEN_ENV: "env"})
    assert (t.value, t.source) == ("env", "environment")
    a, b = resolve_token("", {TOKEN_ENV: ""}), resolve_token("", {})
    assert a.source == b.source == "generated"
    assert a.value != b.value and len(a.value) >= 40 and re.fullmatch(r"[A-Za-z0-9_-]+", a.value)


# ---- the page -------------------------------------------------------------------------------
def test_page_and_its_assets_are_served_with_nothing_external(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    js = client.get("/dashboard.js")
    css = client.get("/dashboard.css")
    assert js.status_code == css.status_code == 200
    assert js.headers["content-type"].startswith("text/javascript")
    assert css.headers["content-type"].startswith("text/css")
    assert 'src="dashboard.js"' in page.text and 'href="dashboard.css"' in page.text
    for body in (page.text, js.text, css.text):
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", body), "the machine has no internet"
        assert "@import" not in body
    for action in ACTIONS:
        assert f'data-action="{action}"' in page.text
    assert 'new EventSource("api/events")' in js.text


# ---- the live stream and the server ---------------------------------------------------------
def test_sse_message_framing():
    assert sse_message({"type": "plan", "x": np.float64(1.5)}) == 'event: plan\ndata: {"type":"plan","x":1.5}\n\n'
    assert sse_message({"type": "bad\nname"}).startswith("event: message\n")
    assert sse_message({"note": "a\nb"}).count("\n") == 3          # the data stays one line


def read_event(lines, kind: str) -> dict:
    """The data of the next SSE event named ``kind`` from an iterator of lines."""
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[len("event: "):]
        elif line.startswith("data: ") and event == kind:
            return json.loads(line[len("data: "):])


@pytest.fixture
def server(service):
    srv = ApiServer(make_app(service, TOKEN), "127.0.0.1", 0)
    srv.start()
    yield srv
    srv.stop()


def test_events_stream_live_and_the_subscription_ends_with_the_client(server, service):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server.url) and not server.url.endswith(":0")
    with httpx.Client(base_url=server.url, timeout=10) as http:
        with http.stream("GET", "/api/events") as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            lines = r.iter_lines()
            assert next(lines) == "retry: 2000"
            wait_until(lambda: len(service.subscribers) == 1, what="the stream to subscribe")
            service.set_plan({**PLAN, "call": {"ball": 7, "pocket": "lb"}})
            assert read_event(lines, "plan")["plan"]["call"] == {"ball": 7, "pocket": "lb"}
            r2 = http.post("/api/estop", headers=AUTH)
            assert r2.status_code == 200
            assert read_event(lines, "state")["state"] == "faulted"
            assert read_event(lines, "fault") == {"type": "fault", "fault": "ESTOP sent from the dashboard"}
    wait_until(lambda: service.subscribers == [], what="the stream to unsubscribe after the client left")
    assert service.calls == ["estop"]


def test_stop_ends_open_streams_and_the_server_thread(service):
    srv = ApiServer(make_app(service, TOKEN), "127.0.0.1", 0)
    url = srv.start()
    with httpx.Client(base_url=url, timeout=10) as http:
        with http.stream("GET", "/api/events") as r:
            lines = r.iter_lines()
            assert next(lines) == "retry: 2000"
            srv.stop()
            assert [line for line in lines if line] == []   # the stream ends instead of hanging
    assert not srv._thread.is_alive()
    assert service.subscribers == []
    srv.stop()                                           # safe twice
    with pytest.raises(ApiServerError, match="not running"):
        srv.url
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/api/status", timeout=2)


def test_an_address_in_use_is_reported_with_the_setting_to_change(service):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ApiServerError, match=rf"cannot listen on 127\.0\.0\.1:{port}: .*api\.port"):
            ApiServer(make_app(service, TOKEN), "127.0.0.1", port).start()


def test_start_dashboard_prints_the_url_and_only_a_generated_token(service):
    for configured, environ, shows_token in (("cfg-token", {}, False), ("", {TOKEN_ENV: "env-token"}, False),
                                             ("", {}, True)):
        out = io.StringIO()
        srv = start_dashboard(service, _free_port_settings(configured), environ=environ, out=out)
        try:
            text = out.getvalue()
            assert text.startswith(f"dashboard: {srv.url}/\n")
            generated = re.search(r"control token .*: (\S+)\n", text)
            assert bool(generated) == shows_token
            token = generated.group(1) if generated else configured or environ[TOKEN_ENV]
            assert "cfg-token" not in text and "env-token" not in text
            assert httpx.post(srv.url + "/api/pause", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        finally:
            srv.stop()
    assert service.calls == ["pause"] * 3


def _free_port_settings(token: str) -> ApiSettings:
    """service.yaml's api section on a port that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return ApiSettings("127.0.0.1", port, token)
