"""The dashboard page in a real headless Chromium (Debian's chromium + chromium-driver, driven by
Selenium with both paths given, so Selenium Manager never downloads anything).

``running_service`` yields (service, url, token): the controller service on the sim backend (the
simulated robot on its pty behind the real driver, the rendered camera, vision, the planners)
behind a running dashboard, paused before its first shot so that the frame and the plan hold
still while the page is read. ``running_double`` is the ServiceControl double, for the tests that
push events by hand.
"""
from __future__ import annotations

import os
import time

import cv2
import numpy as np
import pytest
from service_double import PLAN, TOKEN, ServiceDouble, frame_png

from controller.api import ApiServer, make_app

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
_missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
pytestmark = pytest.mark.skipif(
    bool(_missing),
    reason=f"headless Chromium is not installed ({', '.join(_missing)} missing): "
           f"apt-get install -y chromium chromium-driver (.ci/run does it where apt-get exists)")

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WAIT_S = 20.0


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    yield driver
    driver.quit()


def _serve(service):
    server = ApiServer(make_app(service, TOKEN), "127.0.0.1", 0)
    return server, server.start() + "/"


@pytest.fixture
def running_double():
    """(double, url, token): the ServiceControl double behind a running dashboard."""
    double = ServiceDouble()
    server, url = _serve(double)
    yield double, url, TOKEN
    server.stop()


@pytest.fixture
def running_service(tmp_path):
    """(service, url, token): the real service (greedy against greedy, seed 2) with its dashboard
    on 127.0.0.1, port 0; paused once its first plan is published (the pause lands before the
    shot is sent)."""
    from service_harness import Runner, make_game

    from controller.service.states import State

    game = make_game(tmp_path / "run", seed=2)
    server, url = _serve(game.service)
    run = Runner(game.service)
    try:
        deadline = time.monotonic() + 300
        while game.service.plan() is None:
            assert run.thread.is_alive() and time.monotonic() < deadline, "no plan published"
            time.sleep(0.05)
        game.service.pause()
        run.wait(State.PAUSED, timeout=120)
        yield game.service, url, TOKEN, game
    finally:
        server.stop()
        game.service.stop()
        run.thread.join(30)
        game.close()


def wait(driver, predicate, what: str):
    return WebDriverWait(driver, WAIT_S).until(lambda d: predicate(d), message=f"waiting for {what}")


def frame_size(driver):
    """(naturalWidth, naturalHeight) of the shown frame, or None while none is shown."""
    return driver.execute_script(
        "const i = document.getElementById('frame');"
        "return (!i.hidden && i.complete && i.naturalWidth > 0) ? [i.naturalWidth, i.naturalHeight] : null;")


def png_size(png: bytes):
    h, w = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape[:2]
    return [w, h]


def text_of(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def give_token(driver, token: str) -> None:
    """Answer the page's token form (it asks once, on the first visit of the tab)."""
    wait(driver, lambda d: d.find_element(By.ID, "token-form").is_displayed(), "the token form")
    driver.find_element(By.ID, "token-input").send_keys(token)
    driver.find_element(By.ID, "token-submit").click()
    wait(driver, lambda d: not d.find_element(By.ID, "token-form").is_displayed(), "the token form to close")


def test_page_shows_frame_and_plan_and_its_estop_stops_the_robot(running_service, browser):
    service, url, token, game = running_service
    browser.get(url)
    wait(browser, lambda d: text_of(d, "live") == "live", "the event stream to connect")
    assert wait(browser, frame_size, "the frame") == png_size(service.frame_png())
    plan = service.plan()
    wait(browser, lambda d: "estimate" in text_of(d, "plan"), "the plan")
    shown = text_of(browser, "plan")
    assert plan["kind"] in shown and f"φ {plan['shot']['phi']:.2f}°" in shown
    rows = browser.find_elements(By.CSS_SELECTOR, "#alternatives tbody tr")
    assert len(rows) == len(plan["alternatives"])
    assert wait(browser, lambda d: text_of(d, "state"), "the state") == service.status()["state"]

    browser.execute_script("window.notReloaded = true;")
    give_token(browser, token)
    browser.find_element(By.ID, "estop").click()
    # the simulated robot, asked over its serial line (STATUS), reports ESTOP
    wait(browser, lambda d: game.backend.actuator.status().state == "ESTOP", "the simulated robot to report ESTOP")
    # The paused service is now faulted, and the page learns it from the event stream, without a reload.
    wait(browser, lambda d: text_of(d, "state") == "faulted", "the page to show the faulted state")
    assert service.status()["state"] == "faulted"
    wait(browser, lambda d: text_of(d, "fault") == f"Fault: {service.status()['fault']}", "the page to show the fault")
    assert "ESTOP sent to the robot" in service.status()["fault"]
    assert browser.execute_script("return window.notReloaded === true;")
    assert "estop: sent" in text_of(browser, "message")


def test_page_follows_the_event_stream_without_reloading(running_double, browser):
    double, url, token = running_double
    browser.get(url)
    wait(browser, lambda d: text_of(d, "live") == "live", "the event stream to connect")
    wait(browser, frame_size, "the first frame")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#log li")) == 2, "the game log")
    browser.execute_script("window.notReloaded = true;")

    double.set_frame(frame_png(480, 270))
    wait(browser, lambda d: frame_size(d) == [480, 270], "the new frame after a 'frame' event")
    double.set_plan({**PLAN, "kind": "bank", "alternatives": PLAN["alternatives"][:1]})
    wait(browser, lambda d: "bank" in text_of(d, "plan"), "the new plan after a 'plan' event")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#alternatives tbody tr")) == 1
    double.add_log({"t": 9.0, "event": "shot", "shot": 2, "note": "<b>not html</b>"})
    items = wait(browser, lambda d: (lambda li: li if len(li) == 3 else None)(
        d.find_elements(By.CSS_SELECTOR, "#log li")), "the new log record after a 'shot' event")
    assert "note: <b>not html</b>" in items[2].text
    double.set_plan(None)
    wait(browser, lambda d: "No plan yet." in text_of(d, "plan"), "the plan to clear")
    assert browser.execute_script("return window.notReloaded === true;")


def test_a_wrong_token_is_asked_again_and_nothing_is_sent(running_double, browser):
    double, url, token = running_double
    browser.get(url)
    give_token(browser, "not-the-token")
    browser.find_element(By.CSS_SELECTOR, "button[data-action='pause']").click()
    wait(browser, lambda d: d.find_element(By.ID, "token-form").is_displayed(), "the page to ask again")
    assert "refused" in text_of(browser, "message")
    assert double.calls == []
    give_token(browser, token)
    wait(browser, lambda d: double.calls == ["pause"], "the pause to be sent with the right token")
    wait(browser, lambda d: text_of(d, "state") == "paused", "the paused state")
    assert browser.execute_script("return sessionStorage.getItem('cuerobot.apiToken');") == token

