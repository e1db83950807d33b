"""The page in a real browser, continued: a 3R arm's heading, and a stack that restarts.

Each test starts its own bringup (one arm per ROS domain at a time: the 2R module's stack is
stopped by then). See test_web_page.py for how the tests work.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from ros_helpers import PACKAGE_DIR
from web_stack import (
    Stack,
    answers_drawn,
    drag_to,
    ghost_points,
    headless_chromium,
    metres_of,
    open_page,
    screenshot,
    shown_status,
    wait_for_answer_at,
)

pytestmark = pytest.mark.ros


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture
def stack_3r() -> Iterator[Stack]:
    stack = Stack(PACKAGE_DIR / "config" / "arm_3r.yaml")
    yield stack
    stack.stop()


def test_a_3r_arm_honours_the_heading(browser, stack_3r: Stack) -> None:
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
    screenshot(page, "page-3r.png")
    assert page.errors == []
    page.close()


def test_the_page_says_when_the_stack_is_gone_and_reconnects_by_itself(browser) -> None:
    stack = Stack(PACKAGE_DIR / "config" / "arm.yaml")
    page = open_page(browser, stack.url)
    banner = page.locator("#connection-banner")
    assert banner.is_hidden()
    port = int(stack.url.rsplit(":", 1)[1].strip("/"))
    stack.stop()
    banner.wait_for(state="visible")
    assert "Not connected" in banner.inner_text()
    stack = Stack(PACKAGE_DIR / "config" / "arm.yaml", port=port)  # the stack restarts
    try:
        banner.wait_for(state="hidden")
        messages = page.evaluate("window.armStats.live.messages")
        page.wait_for_function("(n) => window.armStats.live.messages > n + 10", arg=messages)
        drag_to(page, 0.12, 0.08)
        assert shown_status(page) == "OK"
    finally:
        stack.stop()
    assert page.errors == []
    page.close()


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
