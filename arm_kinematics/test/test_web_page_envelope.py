"""The workspace envelope on the page (issue 23 item 6), in a real browser: Debian's Chromium,
headless, driven by Playwright with real pointer events, against a running bringup of the desk
kit (simulated servos) whose params file adds one keep-out box to its table at z = 0; and the
planar default arm with the box its arm.yaml shows commented out.

The page solves nothing: the table and the box come from the IK node's latched ik_markers, the
cells the envelope removes from its region, a refusal's words from its solve_ik answer. Every
check compares what is drawn with where the numbers put it (the page's own projection, as
window.armStats reports it). Screenshots go to tmp/test-artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from desk_kit import with_keep_out_box
from ros_helpers import PACKAGE_DIR
from web_stack import (
    Page,
    Stack,
    drag_in_view,
    headless_chromium,
    open_page,
    open_spatial_page,
    pixel_of,
    plane_pixel,
    screenshot,
    shown_status,
    view_pixel,
)

from arm_kinematics.kinematics.workspace import reachable_region, vertical_region

pytestmark = pytest.mark.ros

BOX = (0.11, 0.11, 0.15, 0.16, 0.16, 0.20)  # min x, y, z, max x, y, z (m): beside the arm
REGION_TIMEOUT_MS = 180_000  # the region's solves take ~15 s in the IK node's child process


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    stack = Stack(with_keep_out_box(tmp_path_factory.mktemp("envelope_page"), BOX))
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """One Chromium for the module (Playwright's sync API runs one at a time)."""
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def page(browser, stack: Stack) -> Iterator[Page]:
    page = open_spatial_page(browser, stack.url)
    yield page
    assert page.errors == []
    page.close()


def bounds(page: Page, selector: str) -> tuple[float, float, float, float]:
    """left, top, right, bottom (viewport px) of an SVG element's geometry (its getBBox, the
    stroke's width not counted, in its svg's pixels, which start at the svg's corner)."""
    x, y, width, height = page.locator(selector).evaluate(
        "(e) => { const b = e.getBBox(); return [b.x, b.y, b.width, b.height]; }"
    )
    svg = page.locator(selector).evaluate(
        "(e) => { const r = e.ownerSVGElement.getBoundingClientRect(); return [r.x, r.y]; }"
    )
    return svg[0] + x, svg[1] + y, svg[0] + x + width, svg[1] + y + height


def test_the_table_is_a_line_at_its_height_in_the_side_view_and_an_outline_in_3d(
    page: Page, stack: Stack
) -> None:
    page.wait_for_selector("#side-table", state="attached")
    table = page.locator("#side-table")
    assert float(table.get_attribute("data-z-m")) == 0.0
    y1, y2 = (float(table.get_attribute(a)) for a in ("y1", "y2"))
    assert y1 == y2  # level, across the view
    box = page.locator("#side-view .arm-layer").bounding_box()
    assert box["y"] + y1 == pytest.approx(plane_pixel(page, "side", 0.0, 0.0)[1], abs=0.5)
    # In 3D the outline is a square about the base at z = 0, as wide as the horizontal reach
    # (the IK node's): its corners where the page's projection puts them.
    half = abs(stack.arm.shoulder_forward) + stack.arm.reach
    points = page.locator("#orbit-table").get_attribute("points").split()
    origin = page.locator("#orbit-view .arm-layer").bounding_box()
    drawn = np.array([[float(v) for v in p.split(",")] for p in points])
    drawn += [origin["x"], origin["y"]]
    for x, y in ((half, half), (-half, half), (-half, -half), (half, -half)):
        corner = view_pixel(page, "orbit", x, y, 0.0)
        assert np.min(np.hypot(*(drawn - corner).T)) <= 1.0, (x, y)
    assert page.locator("#top-table").count() == 0  # from above the table is everywhere


def test_the_keep_out_box_is_drawn_in_every_view_where_it_is(page: Page) -> None:
    page.wait_for_selector("#top-keep-out-boxes", state="attached")
    x0, y0, z0, x1, y1, z1 = BOX
    # From above its x-y rectangle; from the side (plane at yaw 0: u = x, v = z) its x-z one.
    left, top, right, bottom = bounds(page, "#top-keep-out-boxes")
    assert (left, bottom) == pytest.approx(view_pixel(page, "top", x0, y0, 0.0), abs=0.5)
    assert (right, top) == pytest.approx(view_pixel(page, "top", x1, y1, 0.0), abs=0.5)
    left, top, right, bottom = bounds(page, "#side-keep-out-boxes")
    assert (left, bottom) == pytest.approx(view_pixel(page, "side", x0, 0.0, z0), abs=0.5)
    assert (right, top) == pytest.approx(view_pixel(page, "side", x1, 0.0, z1), abs=0.5)
    # In 3D: the box's 8 corners projected, its bounding box theirs.
    corners = np.array(
        [view_pixel(page, "orbit", x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    )
    left, top, right, bottom = bounds(page, "#orbit-keep-out-boxes")
    assert (left, top) == pytest.approx(tuple(corners.min(axis=0)), abs=0.5)
    assert (right, bottom) == pytest.approx(tuple(corners.max(axis=0)), abs=0.5)


def test_the_side_view_draws_the_cells_the_envelope_removes(page: Page, stack: Stack) -> None:
    page.wait_for_selector(
        "#side-region-envelope_removed", state="attached", timeout=REGION_TIMEOUT_MS
    )
    region = vertical_region(stack.arm)
    rectangles = np.asarray(region.rectangles(region.removed))
    u_min, v_min = rectangles[:, :2].min(axis=0)
    u_max, v_max = rectangles[:, 2:].max(axis=0)
    left, top, right, bottom = bounds(page, "#side-region-envelope_removed path")
    assert (left, top) == pytest.approx(plane_pixel(page, "side", u_min, v_max), abs=2)
    assert (right, bottom) == pytest.approx(plane_pixel(page, "side", u_max, v_min), abs=2)
    assert v_min < 0.0  # below the table, among others


def test_a_target_dragged_below_the_table_is_refused_naming_the_constraint(page: Page) -> None:
    page.wait_for_selector('#status[data-status="READY"]')
    drag_in_view(page, "side", 0.15, -0.03)
    assert shown_status(page) == "OUTSIDE_WORKSPACE"
    words = page.locator("#status-message").inner_text()
    assert "would be" in words
    assert "below the table (workspace.table_z_m = 0 m" in words
    assert page.locator("#side-target-mark.target-refused").count() == 1
    screenshot(page, "page-envelope-refused.png")


# --- a planar arm: one view from above ----------------------------------------------------------

PLANAR_BOX = (0.10, 0.12, -0.05, 0.20, 0.20, 0.05)  # arm.yaml's commented-out camera


def test_a_planar_arm_s_page_draws_its_box_and_the_cells_it_removes(browser, tmp_path) -> None:
    text = (PACKAGE_DIR / "config" / "arm.yaml").read_text()
    assert "      # keep_out_boxes_m: [0.10, 0.12, -0.05, 0.20, 0.20, 0.05]" in text
    path = tmp_path / "arm_with_a_box.yaml"
    path.write_text(text.replace("      # keep_out_boxes_m:", "      keep_out_boxes_m:", 1))
    # In a namespace of its own: the desk kit's stack of this module still runs in this domain.
    stack = Stack(path, namespace="planar")
    try:
        page = open_page(browser, stack.url + "?ns=/planar")
        page.wait_for_selector("#planar-keep-out-boxes", state="attached")
        x0, y0, _, x1, y1, _ = PLANAR_BOX
        left, top, right, bottom = bounds(page, "#planar-keep-out-boxes")
        assert (left, bottom) == pytest.approx(pixel_of(page, x0, y0), abs=0.5)
        assert (right, top) == pytest.approx(pixel_of(page, x1, y1), abs=0.5)
        assert page.locator("#planar-table").count() == 0  # the arm is in its plane
        region = reachable_region(stack.arm)
        rectangles = np.asarray(region.rectangles(region.removed))
        u_min, v_min = rectangles[:, :2].min(axis=0)
        u_max, v_max = rectangles[:, 2:].max(axis=0)
        left, top, right, bottom = bounds(page, "#region-envelope_removed path")
        assert (left, top) == pytest.approx(pixel_of(page, u_min, v_max), abs=2)
        assert (right, bottom) == pytest.approx(pixel_of(page, u_max, v_min), abs=2)
        screenshot(page, "page-envelope-planar.png")
        assert page.errors == []
        page.close()
    finally:
        stack.stop()
