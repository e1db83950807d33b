"""The page jogs a spatial arm (the desk kit: a yaw, three pitch joints, a wrist roll) up and
down, tilts and rolls its tool, and its jog box fits a desktop and a phone.

See test_web_page_jog.py for how these tests work (this module has a stack of its own: one arm
per ROS domain at a time).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from ros_helpers import PACKAGE_DIR, ros_graph, wait_for
from web_jog import ArmWatch, focus_jog_keys
from web_stack import Page, Stack, headless_chromium, open_spatial_page, screenshot

pytestmark = pytest.mark.ros

KEYS = ("y-plus", "x-minus", "x-plus", "y-minus", "z-plus", "z-minus")
KEYS += ("pitch-plus", "pitch-minus", "turn-plus", "turn-minus")


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    stack = Stack(PACKAGE_DIR / "config" / "arm_desk_kit.yaml")
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def watch(stack: Stack) -> Iterator[ArmWatch]:
    with ros_graph() as graph:
        yield ArmWatch(graph, stack)


def pose(watch: ArmWatch, joints: list[float]) -> tuple[tuple[float, float, float], float, float]:
    """The tool's point (m), pitch and roll (rad) at `joints`."""
    tool = watch.arm.forward(joints)
    return (tool.x, tool.y, tool.z), tool.pitch, tool.roll


def hold_until(page: Page, key: str, watch: ArmWatch, done) -> list[float]:
    """Hold `key` until `done(joints)`; the joints at rest after its release."""
    page.keyboard.down(key)
    try:
        wait_for(lambda: done(watch.joints()), what=f"{key} held to do its part")
    finally:
        page.keyboard.up(key)
    return watch.wait_at_rest()


def test_a_spatial_arm_jogs_up_and_down_and_tilts_and_rolls_its_tool(
    browser, stack: Stack, watch: ArmWatch
) -> None:
    page = open_spatial_page(browser, stack.url)
    page.wait_for_selector("#jog-z-plus")
    labels = page.locator(".jog-group-label").all_inner_texts()
    assert labels == ["move x, y", "z", "pitch", "roll"]
    watch.wait_bridge_publisher()
    focus_jog_keys(page)
    assert "W/S up, down; R/F pitch; Q/E roll" in page.locator("#jog-keys-state").inner_text()
    start, pitch, roll = pose(watch, watch.wait_at_rest())
    # W: straight up, in the base frame.
    joints = hold_until(page, "w", watch, lambda j: pose(watch, j)[0][2] > start[2] + 0.01)
    point, _, _ = pose(watch, joints)
    rise = point[2] - start[2]
    assert rise > 0.01
    assert math.hypot(point[0] - start[0], point[1] - start[1]) < 0.02 * rise
    # R: the tool tilts up about its point.
    start = point
    joints = hold_until(page, "r", watch, lambda j: pose(watch, j)[1] > pitch + math.radians(5))
    point, tilted, _ = pose(watch, joints)
    assert tilted > pitch + math.radians(5)
    assert math.dist(point, start) < 0.002
    # Q: the tool rolls counter-clockwise about its own axis, its point and pitch kept.
    joints = hold_until(page, "q", watch, lambda j: pose(watch, j)[2] > roll + math.radians(5))
    point, pitch_now, rolled = pose(watch, joints)
    assert rolled > roll + math.radians(5)
    assert math.dist(point, start) < 0.002
    assert pitch_now == pytest.approx(tilted, abs=math.radians(0.5))
    # The jog's status in words.
    assert page.locator("#jog-status").get_attribute("data-status") == "NO_WARNING"
    assert page.locator("#jog-message").inner_text().startswith("at rest")
    page.locator("#tool-jog").scroll_into_view_if_needed()
    screenshot(page, "page-jog-spatial.png")
    assert page.errors == []
    page.close()


def inside(box: dict, width: int, height: int) -> bool:
    """Whether an element's box lies wholly in the viewport (a pixel's rounding aside)."""
    return (
        box["x"] >= -1
        and box["y"] >= -1
        and box["x"] + box["width"] <= width + 1
        and box["y"] + box["height"] <= height + 1
    )


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_jog_box_fits_a_desktop_and_a_phone_and_stop_stays_in_sight(
    browser, stack: Stack, width: int, height: int
) -> None:
    page = open_spatial_page(browser, stack.url, width, height)
    page.wait_for_selector("#jog-z-plus")
    page.locator("#jog-status").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for selector in (".tool-jog", "#jog-speed", "#jog-status", *(f"#jog-{k}" for k in KEYS)):
        assert inside(page.locator(selector).bounding_box(), width, height), selector
    # The jog box in view, STOP is in view too (it sticks to the top of the panel).
    assert inside(page.locator("#stop").bounding_box(), width, height)
    screenshot(page, f"page-jog-{width}x{height}.png")
    assert page.errors == []
    page.close()
