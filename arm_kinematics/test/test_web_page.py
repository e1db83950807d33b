"""The page in a real browser: Debian's Chromium, headless, driven by Playwright with real
pointer events, against a running bringup (simulated servos) and its web bridge.

Every check compares what the page shows with what the ROS graph says: solve_ik called
with rclpy for the same target, joint_commands counted by an rclpy subscription, the arm's end
pose from joint_states. Waits are for conditions (an element, a text, a count), never sleeps.
Screenshots go to tmp/test-artifacts/ (the path is printed).
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from geometry_msgs.msg import PoseStamped
from playwright.sync_api import Page, sync_playwright
from rclpy.qos import qos_profile_sensor_data
from ros_helpers import DEFAULT_TIMEOUT_S, PACKAGE_DIR, RosGraph, ros_graph, wait_for
from sensor_msgs.msg import JointState
from web_stack import Stack

from arm_kinematics.kinematics.workspace import reachable_region
from arm_kinematics_interfaces.srv import SolveIK

pytestmark = pytest.mark.ros

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = PACKAGE_DIR.parent / "tmp" / "test-artifacts"
TIMEOUT_MS = DEFAULT_TIMEOUT_S * 1000


class Observer:
    """rclpy side of the tests: solve_ik, and every joint_commands and joint_states message."""

    def __init__(self, graph: RosGraph) -> None:
        self.graph = graph
        self.node = graph.node("web_page_observer")
        self.solve_ik = self.node.create_client(SolveIK, "solve_ik")
        self.commands: list[JointState] = []
        self.states: list[JointState] = []
        self.node.create_subscription(JointState, "joint_commands", self.commands.append, 100)
        self.node.create_subscription(
            JointState, "joint_states", self.states.append, qos_profile_sensor_data
        )
        wait_for(
            lambda: self.node.count_publishers("joint_commands") > 0 and self.states,
            what="joint_commands publisher matched and joint_states flowing",
        )

    def solve(
        self, x: float, y: float, branch: int, heading: float | None = None
    ) -> SolveIK.Response:
        request = SolveIK.Request(branch=branch)
        request.target = PoseStamped()
        request.target.header.frame_id = "base_link"
        request.target.pose.position.x, request.target.pose.position.y = x, y
        if heading is not None:
            request.use_heading = True
            request.target.pose.orientation.z = math.sin(heading / 2)
            request.target.pose.orientation.w = math.cos(heading / 2)
        return self.graph.call(self.solve_ik, request)


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


def open_page(browser, url: str) -> Page:
    page = browser.new_page(viewport={"width": 1200, "height": 760})
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("#live-tip")  # the URDF and joint_states arrived and were drawn
    page.wait_for_selector("#region-reachable_region", state="attached")
    return page


@pytest.fixture(scope="module")
def stack_2r() -> Iterator[Stack]:
    stack = Stack(PACKAGE_DIR / "config" / "arm.yaml")
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def observer() -> Iterator[Observer]:
    with ros_graph() as graph:
        yield Observer(graph)


@pytest.fixture(scope="module")
def page_2r(browser, stack_2r: Stack, observer: Observer) -> Iterator[Page]:
    page = open_page(browser, stack_2r.url)
    yield page
    assert page.errors == []
    page.close()


# --- geometry between the page's pixels and metres -----------------------------------------------


def pixel_of(page: Page, x: float, y: float) -> tuple[float, float]:
    """Viewport pixel of the base-frame point (x, y) m, from the view the page reports."""
    view = page.evaluate("window.armStats.view")
    box = page.locator("#arm-view").bounding_box()
    return box["x"] + view["cx"] + view["k"] * x, box["y"] + view["cy"] - view["k"] * y


def centre_of(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def metres_of(page: Page, selector: str) -> tuple[float, float]:
    element = page.locator(selector)
    return float(element.get_attribute("data-x-m")), float(element.get_attribute("data-y-m"))


def drag_to(page: Page, x: float, y: float) -> tuple[float, float]:
    """Press near the base, drag with real pointer events to (x, y) m; wait for its answer."""
    start = pixel_of(page, x * 0.9, y * 0.9)
    end = pixel_of(page, x, y)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    page.mouse.up()
    wait_for_answer_at(page, *metres_of(page, "#target-mark"))
    return end


def answers_drawn(page: Page) -> int:
    return page.evaluate("window.armStats.ik.responses")


def wait_for_answer_at(page: Page, x: float, y: float, after: int = 0) -> None:
    """Until the answer drawn last is for (x, y) m, nothing is in flight, and more than `after`
    answers have come."""
    page.wait_for_function(
        """([x, y, after]) => { const s = window.armStats.ik, d = s.lastDrawn;
             return d && d.x === x && d.y === y && s.inFlight === 0 && s.responses > after; }""",
        arg=[x, y, after],
    )


def shown_status(page: Page) -> str:
    return page.locator("#status").get_attribute("data-status")


def shown_joint_rad(page: Page, name: str) -> float:
    return float(page.locator(f'tr[data-joint="{name}"] td.solution').get_attribute("data-rad"))


def shown_joint_text(page: Page, name: str) -> str:
    return page.locator(f'tr[data-joint="{name}"] td.solution').inner_text().strip()


def ghost_points(page: Page) -> list[tuple[float, float]]:
    circles = page.locator("#layer-ghost circle")
    return [
        (float(c.get_attribute("data-x-m")), float(c.get_attribute("data-y-m")))
        for c in circles.all()
    ]


def choose_branch(page: Page, value: int) -> None:
    before = answers_drawn(page)
    page.select_option("#branch", str(value))
    wait_for_answer_at(page, *metres_of(page, "#target-mark"), after=before)


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


# --- the tests (2R default arm; the module's page is shared, so the order matters) --------------


def test_a_reachable_drag_shows_ok_and_the_ghost_on_the_pointer(
    page_2r: Page, observer: Observer
) -> None:
    pointer = drag_to(page_2r, 0.12, 0.08)
    assert shown_status(page_2r) == "OK"
    assert page_2r.locator("#status").is_visible()
    ghost_tip = centre_of(page_2r, "#ghost-tip")
    assert math.dist(ghost_tip, pointer) <= 2.0
    # The angles shown are solve_ik's answer for the very target the page sent.
    x, y = metres_of(page_2r, "#target-mark")
    answer = observer.solve(x, y, SolveIK.Request.BRANCH_CLOSEST)
    assert answer.status == SolveIK.Response.OK
    for name, rad in zip(answer.solution.name, answer.solution.position, strict=True):
        assert shown_joint_rad(page_2r, name) == pytest.approx(rad, abs=1e-9)
        assert shown_joint_text(page_2r, name) == f"{math.degrees(rad):.2f}°"
    assert page_2r.locator("#layer-alt #alt-tip").count() == 1  # the other elbow, faded
    shown = page_2r.locator("#manipulability")
    assert float(shown.get_attribute("data-value")) == pytest.approx(answer.manipulability)
    assert shown.inner_text() == f"{answer.manipulability * 1e4:.2f} cm²"
    screenshot(page_2r, "page-2r-ok.png")


@pytest.mark.parametrize(
    ("x", "y", "status"), [(0.25, 0.02, "TOO_FAR"), (0.05, 0.01, "JOINT_LIMIT")]
)
def test_a_refused_target_shows_its_status_draws_no_ghost_and_moves_nothing(
    page_2r: Page, observer: Observer, x: float, y: float, status: str
) -> None:
    commands_before = len(observer.commands)
    drag_to(page_2r, x, y)
    assert shown_status(page_2r) == status
    assert page_2r.locator("#status").evaluate("e => getComputedStyle(e).backgroundColor") == (
        "rgb(208, 49, 45)"
    )
    assert status in page_2r.locator("#status-message").inner_text()
    assert page_2r.locator("#ghost-tip").count() == 0
    assert page_2r.locator("#alt-tip").count() == 0
    assert shown_joint_text(page_2r, "shoulder") == "–"
    assert len(observer.commands) == commands_before


def test_switching_the_branch_puts_the_ghost_elbow_on_the_other_side(page_2r: Page) -> None:
    drag_to(page_2r, 0.13, 0.07)
    sides = {}
    for branch, name in ((1, "elbow up"), (2, "elbow down")):
        choose_branch(page_2r, branch)
        assert shown_status(page_2r) == "OK", name
        base, elbow, tip = ghost_points(page_2r)
        # z of (tip - base) x (elbow - base): > 0 when the elbow is counter-clockwise of the line.
        sides[name] = (tip[0] - base[0]) * (elbow[1] - base[1]) - (tip[1] - base[1]) * (
            elbow[0] - base[0]
        )
    assert sides["elbow up"] > 0 > sides["elbow down"]
    choose_branch(page_2r, 0)


def start_point(observer: Observer, stack: Stack) -> tuple[float, float]:
    state = observer.states[-1]
    joints = dict(zip(state.name, state.position, strict=True))
    x, y, _ = stack.arm.forward([joints[name] for name in stack.arm.joint_names])
    return x, y


def test_a_straight_line_through_the_hole_aborts_at_its_failing_step_and_moves_nothing(
    page_2r: Page, observer: Observer, stack_2r: Stack
) -> None:
    sx, sy = start_point(observer, stack_2r)
    # A reachable goal across the base: the line passes through the hole the elbow limits leave.
    gx, gy = -sx * 0.05, -0.15
    assert reachable_region(stack_2r.arm).contains(gx, gy)
    commands_before = len(observer.commands)
    drag_to(page_2r, gx, gy)
    assert shown_status(page_2r) in ("OK", "SINGULAR")
    page_2r.click("#move-line")
    page_2r.wait_for_selector('#move-status[data-status="IK_FAILED"]')
    failed = page_2r.locator("#failed-step")
    step = int(failed.get_attribute("data-step"))
    fx, fy = metres_of(page_2r, "#failed-step")
    # The failing point is on the line, inside the hole (closer than sqrt(L1^2 + L2^2)).
    assert math.hypot(fx, fy) < math.hypot(*stack_2r.arm.link_lengths[:2])
    cross = (gx - sx) * (fy - sy) - (gy - sy) * (fx - sx)
    assert abs(cross) / math.dist((sx, sy), (gx, gy)) < 1e-3
    message = page_2r.locator("#move-message").inner_text()
    assert f"failed at step {step} of " in message
    assert "feasible" in message
    assert page_2r.locator("#plan-feasible_path").count() == 1  # from trajectory_markers
    screenshot(page_2r, "page-2r-abort.png")
    assert len(observer.commands) == commands_before


def test_a_reachable_straight_line_ends_with_the_live_arm_on_the_target(
    page_2r: Page, observer: Observer, stack_2r: Stack
) -> None:
    sx, sy = start_point(observer, stack_2r)
    gx, gy = 0.14, 0.0
    drag_to(page_2r, gx, gy)
    page_2r.click("#move-line")
    page_2r.wait_for_selector('#move-status[data-status="SUCCEEDED"]')
    assert len(observer.commands) > 0

    def at_target() -> bool:
        x, y = start_point(observer, stack_2r)
        return math.dist((x, y), (gx, gy)) < 2e-4

    wait_for(at_target, what="joint_states at the target")
    target_px = centre_of(page_2r, "#target-mark circle")
    page_2r.wait_for_function(
        """([x, y]) => { const t = document.getElementById('live-tip').getBoundingClientRect();
             return Math.hypot(t.x + t.width / 2 - x, t.y + t.height / 2 - y) <= 2; }""",
        arg=list(target_px),
    )
    assert math.dist((sx, sy), (gx, gy)) > 0.01  # the arm did move
    screenshot(page_2r, "page-2r-moved.png")


# --- 3R ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
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
