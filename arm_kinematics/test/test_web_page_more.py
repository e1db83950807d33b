"""The page in a real browser, continued: a 3R arm's heading, a panel that stays put, and a
stack that restarts under an open page.

One arm per ROS domain and namespace at a time: the 3R tests share a bringup that stops
before the 2R tests start theirs (the 2R module's stack is stopped by then too). See
test_web_page.py for how the tests work.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from ros_helpers import PACKAGE_DIR
from web_stack import (
    Page,
    Stack,
    answers_drawn,
    background_of,
    drag_to,
    ghost_points,
    headless_chromium,
    metres_of,
    open_page,
    screenshot,
    shown_status,
    type_target,
    wait_for_answer_at,
)

pytestmark = pytest.mark.ros


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="class")
def stack_3r() -> Iterator[Stack]:
    stack = Stack(PACKAGE_DIR / "config" / "arm_3r.yaml")
    yield stack
    stack.stop()


def solve_typed(page: Page, **texts: str) -> None:
    """Type the target's fields (cm, degrees), press Enter, wait for the answer to that target."""
    before = answers_drawn(page)
    type_target(page, **texts)
    x, y = metres_of(page, "#target-mark")
    if "x" in texts:
        assert x == float(texts["x"]) / 100
    if "y" in texts:
        assert y == float(texts["y"]) / 100
    wait_for_answer_at(page, x, y, after=before)


def arrow_degrees(page: Page) -> float:
    """The direction of the heading arrow on the drawing, degrees in the base frame (y up)."""
    line = page.locator("#heading-arrow line")
    x1, y1, x2, y2 = (float(line.get_attribute(a)) for a in ("x1", "y1", "x2", "y2"))
    return math.degrees(math.atan2(-(y2 - y1), x2 - x1))


class TestA3rArm:
    """The 3R tests share one bringup (`stack_3r`, stopped when the class is done, before the
    next test starts an arm of its own in the same namespace); each opens a page of its own."""

    def test_a_3r_arm_honours_the_heading(self, browser, stack_3r: Stack) -> None:
        page = open_page(browser, stack_3r.url)
        assert page.locator("#heading-control").is_visible()
        assert page.locator("#joint-readouts tbody tr").count() == 3
        x, y, heading_deg = 0.15, 0.06, -20.0
        assert stack_3r.arm.solve(x, y, math.radians(heading_deg)).ok  # the core can, at least
        page.check("#use-heading")
        page.fill("#heading", str(heading_deg))
        drag_to(page, x, y)
        assert shown_status(page) == "OK"
        points = ghost_points(page)
        assert len(points) == 4  # base, elbow, wrist, tip
        (wx, wy), (tx, ty) = points[-2], points[-1]
        assert math.degrees(math.atan2(ty - wy, tx - wx)) == pytest.approx(heading_deg, abs=1e-6)
        # The same target without the heading gets another tool angle: the heading was honoured.
        before = answers_drawn(page)
        page.uncheck("#use-heading")
        wait_for_answer_at(page, *metres_of(page, "#target-mark"), after=before)
        (wx, wy), (tx, ty) = ghost_points(page)[-2:]
        assert abs(math.degrees(math.atan2(ty - wy, tx - wx)) - heading_deg) > 1.0
        assert page.locator("#heading-arrow").count() == 0  # no heading asked: no arrow
        # A typed heading (degrees, said next to the field) is meant: it is asked for, drawn as an
        # arrow from the target, and the slider follows.
        assert page.locator('#target-fields .field[data-key="heading"] .unit').inner_text() == "°"
        solve_typed(page, heading="-45")
        assert page.locator("#use-heading").is_checked()
        assert page.input_value("#heading") == "-45"
        assert shown_status(page) == "OK"
        (wx, wy), (tx, ty) = ghost_points(page)[-2:]
        assert math.degrees(math.atan2(ty - wy, tx - wx)) == pytest.approx(-45.0, abs=1e-6)
        assert arrow_degrees(page) == pytest.approx(-45.0, abs=0.5)
        # The slider drives the field and the arrow.
        before = answers_drawn(page)
        page.fill("#heading", "30")
        wait_for_answer_at(page, *metres_of(page, "#target-mark"), after=before)
        assert page.input_value("#target-heading") == "30"
        assert arrow_degrees(page) == pytest.approx(30.0, abs=0.5)
        # A heading outside -180..180 is shown invalid and not sent.
        requests = page.evaluate("window.armStats.ik.requests")
        type_target(page, heading="200")
        assert page.locator("#target-heading").get_attribute("aria-invalid") == "true"
        assert "-180" in page.locator("#target-error").inner_text()
        assert page.evaluate("window.armStats.ik.requests") == requests
        screenshot(page, "page-3r.png")
        assert page.errors == []
        page.close()

    def test_the_panel_stays_put_when_a_message_is_longer_or_shorter(
        self, browser, stack_3r: Stack
    ) -> None:
        page = open_page(browser, stack_3r.url)
        slider = page.locator("#heading")
        targets = {  # (x cm, y cm, heading deg): the status and the length of its message
            "short": ("25", "0", "0"),  # TOO_FAR, two lines
            "long": ("15", "6", "160"),  # ORIENTATION_UNREACHABLE with the reachable headings
            "ok": ("15", "6", "-20"),
        }
        boxes, lengths = {}, {}
        for name, (x, y, heading) in targets.items():
            solve_typed(page, heading=heading, x=x, y=y)
            lengths[name] = len(page.locator("#status-message").inner_text())
            boxes[name] = slider.bounding_box()
        assert shown_status(page) == "OK"
        assert lengths["long"] > 2 * lengths["short"]
        assert boxes["short"] == boxes["long"] == boxes["ok"]
        # A move's message (below the slider) appears and goes: the slider stays put too.
        page.click("#move-joints")
        page.wait_for_selector('#move-status[data-status="SUCCEEDED"]')
        assert slider.bounding_box() == boxes["ok"]
        # So a click where the slider was seen lands on it: three quarters along is about +90 deg.
        solve_typed(page, heading="160")  # the long message again
        before = answers_drawn(page)
        box = boxes["ok"]
        page.mouse.click(box["x"] + 0.75 * box["width"], box["y"] + box["height"] / 2)
        wait_for_answer_at(page, 0.15, 0.06, after=before)
        assert abs(float(page.input_value("#heading")) - 90) <= 10
        assert page.input_value("#target-heading") == page.input_value("#heading")
        assert page.errors == []
        page.close()


def test_after_a_restart_the_page_shows_the_new_session_and_solves_the_target_again(
    browser,
) -> None:
    stack = Stack(PACKAGE_DIR / "config" / "arm.yaml")
    page = open_page(browser, stack.url)
    idle = open_page(browser, stack.url)  # a page that never asked anything
    banner = page.locator("#connection-banner")
    assert banner.is_hidden()
    # A goal of the first session, stopped with the stack while it moves: plan and progress.
    gx, gy = -0.02, -0.14
    drag_to(page, gx, gy)
    page.click("#move-joints")
    page.wait_for_selector('#move-status[data-status="MOVING"]')
    page.wait_for_selector("#plan-planned_path", state="attached")
    assert page.locator("#progress").evaluate("e => e.value") > 0
    target = metres_of(page, "#target-mark")
    port = int(stack.url.rsplit(":", 1)[1].strip("/"))
    stack.stop()
    banner.wait_for(state="visible")
    assert "Not connected" in banner.inner_text()
    # While it is gone, the panel says so (grey), and a move is not sent.
    page.wait_for_selector('#status[data-status="NOT CONNECTED"]')
    assert background_of(page, "#status") == "rgb(136, 136, 136)"
    assert page.locator("#ghost-tip").count() == 0
    page.click("#move-line")
    assert page.locator("#move-status").get_attribute("data-status") == "NOT CONNECTED"
    answers = answers_drawn(page)
    screenshot(page, "page-2r-stack-gone.png")
    stack = Stack(PACKAGE_DIR / "config" / "arm.yaml", port=port)  # the stack restarts
    try:
        banner.wait_for(state="hidden")
        # The target is solved again by itself, and the panel shows that answer.
        wait_for_answer_at(page, *target, after=answers)
        assert shown_status(page) == "OK"
        assert page.locator("#ghost-tip").count() == 1
        assert page.evaluate("window.armStats.sessions") == 2
        # Nothing of the dead session: no plan, no progress, no move status, no Cancel.
        assert page.locator("#layer-plan > *").count() == 0
        assert page.locator("#progress").evaluate("e => e.value") == 0
        assert page.locator("#move-status").get_attribute("data-status") == ""
        assert page.locator("#move-message").inner_text() == ""
        assert page.locator("#cancel").is_disabled()
        idle.wait_for_selector('#status[data-status="READY"]')
        # The new session works: the live arm moves, a drag is answered.
        messages = page.evaluate("window.armStats.live.messages")
        page.wait_for_function("(n) => window.armStats.live.messages > n + 10", arg=messages)
        screenshot(page, "page-2r-after-restart.png")
        drag_to(page, 0.12, 0.08)
        assert shown_status(page) == "OK"
    finally:
        stack.stop()
    assert page.errors == []
    assert idle.errors == []
    page.close()
    idle.close()


def test_a_namespaced_arm_is_driven_with_ns_in_the_address(browser) -> None:
    stack = Stack(PACKAGE_DIR / "config" / "arm.yaml", namespace="left_arm")
    try:
        page = open_page(browser, stack.url + "?ns=/left_arm")
        assert "/left_arm" in page.locator("#arm-name").inner_text()
        drag_to(page, 0.12, 0.08)
        assert shown_status(page) == "OK"
        assert page.locator("#ghost-tip").count() == 1
        assert page.errors == []
        page.close()
    finally:
        stack.stop()
