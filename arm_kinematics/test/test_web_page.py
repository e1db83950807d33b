"""The page in a real browser: Debian's Chromium, headless, driven by Playwright with real
pointer events, against a running bringup (simulated servos) and its web bridge.

Every check compares what the page shows with what the ROS graph says: solve_ik called
with rclpy for the same target, joint_commands counted by an rclpy subscription, the arm's end
pose from joint_states. Waits are for conditions (an element, a text, a count), never sleeps.
Screenshots go to tmp/test-artifacts/ (the path is printed).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from rclpy.qos import qos_profile_sensor_data
from ros_helpers import PACKAGE_DIR, RosGraph, ros_graph, wait_for
from sensor_msgs.msg import JointState
from web_stack import (
    Page,
    Stack,
    answers_drawn,
    background_of,
    centre_of,
    choose_branch,
    drag_to,
    ghost_points,
    headless_chromium,
    metres_of,
    open_page,
    pixel_of,
    screenshot,
    shown_joint_rad,
    shown_joint_text,
    shown_status,
    type_target,
    wait_for_answer_at,
)

from arm_kinematics.kinematics.workspace import reachable_region
from arm_kinematics_interfaces.srv import SolveIK

pytestmark = pytest.mark.ros

REFUSED_RED = "rgb(208, 49, 45)"


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
            request.orientation_mode = SolveIK.Request.TOOL_ANGLE
            request.tool_angle = heading
        return self.graph.call(self.solve_ik, request)


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


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


# --- the tests (2R default arm; the module's page is shared, so the order matters) --------------


def test_a_page_that_asked_nothing_yet_says_ready_in_grey_not_as_a_refusal(page_2r: Page) -> None:
    page_2r.wait_for_selector('#status[data-status="READY"]')  # set when the URDF is drawn
    assert page_2r.locator("#status").evaluate("e => getComputedStyle(e).backgroundColor") == (
        "rgb(136, 136, 136)"
    )
    assert page_2r.locator("#status-message").inner_text() == "drag the target or type it"


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
    drag_to(page_2r, 0.12, 0.08)  # a solution first: its angles and limit-bar ticks are shown
    ticks = page_2r.locator("#joint-readouts td.solution .bar i")
    assert [tick.is_visible() for tick in ticks.all()] == [True, True]
    commands_before = len(observer.commands)
    drag_to(page_2r, x, y)
    assert shown_status(page_2r) == status
    assert background_of(page_2r, "#status") == REFUSED_RED
    # The node's message, without the status word the box already shows.
    x_sent, y_sent = metres_of(page_2r, "#target-mark")
    answer = observer.solve(x_sent, y_sent, SolveIK.Request.BRANCH_CLOSEST)
    assert answer.message.startswith(f"{status}: ")
    shown = page_2r.locator("#status-message").inner_text()
    assert shown == answer.message.removeprefix(f"{status}: ")
    assert status not in shown
    assert page_2r.locator("#ghost-tip").count() == 0
    assert page_2r.locator("#alt-tip").count() == 0
    assert shown_joint_text(page_2r, "shoulder") == "–"
    # No tick of the old solution is left on the limit bars.
    assert [tick.is_visible() for tick in ticks.all()] == [False, False]
    assert len(observer.commands) == commands_before


def test_a_typed_target_is_solved_like_a_drag_and_a_drag_fills_the_fields(
    page_2r: Page, observer: Observer
) -> None:
    # A drag writes its target into the fields, in cm (the page's unit, said next to them).
    drag_to(page_2r, 0.11, -0.09)
    x, y = metres_of(page_2r, "#target-mark")
    assert page_2r.input_value("#target-x") == f"{x * 100:.1f}"
    assert page_2r.input_value("#target-y") == f"{y * 100:.1f}"
    units = page_2r.locator("#target-fields .field:visible .unit").all_inner_texts()
    assert units == ["cm", "cm"]  # a 2R arm: x and y, no heading field
    # Typed and Enter: the same request as a drag, for exactly the typed point.
    before = answers_drawn(page_2r)
    type_target(page_2r, x="13.5", y="-6.2")
    page_2r.wait_for_function(
        "(n) => { const s = window.armStats.ik; return s.lastDrawn && s.lastDrawn.x === 0.135 "
        "&& s.lastDrawn.y === -0.062 && s.inFlight === 0 && s.responses > n; }",
        arg=before,
    )
    assert metres_of(page_2r, "#target-mark") == (0.135, -0.062)
    answer = observer.solve(0.135, -0.062, SolveIK.Request.BRANCH_CLOSEST)
    assert answer.status == SolveIK.Response.OK
    assert shown_status(page_2r) == "OK"
    for name, rad in zip(answer.solution.name, answer.solution.position, strict=True):
        assert shown_joint_rad(page_2r, name) == pytest.approx(rad, abs=1e-9)
    assert math.dist(centre_of(page_2r, "#ghost-tip"), pixel_of(page_2r, 0.135, -0.062)) <= 2.0
    # Leaving a changed field solves too (Tab), with the other field's value.
    before = answers_drawn(page_2r)
    type_target(page_2r, key="Tab", y="7")
    wait_for_answer_at(page_2r, 0.135, 0.07, after=before)
    assert shown_status(page_2r) == "OK"


@pytest.mark.parametrize("text", ["", "abc", "1..2", "12 cm", "1e999"])
def test_a_field_that_is_not_a_number_is_shown_invalid_and_nothing_is_sent(
    page_2r: Page, text: str
) -> None:
    requests = page_2r.evaluate("window.armStats.ik.requests")
    target = metres_of(page_2r, "#target-mark")
    field = page_2r.locator("#target-x")
    type_target(page_2r, x=text)  # Enter
    assert field.get_attribute("aria-invalid") == "true"
    assert "invalid" in field.get_attribute("class").split()
    assert page_2r.locator("#target-error").inner_text().startswith("x: ")
    field.press("Tab")  # leaving it does not send it either
    assert page_2r.evaluate("window.armStats.ik.requests") == requests
    assert metres_of(page_2r, "#target-mark") == target
    # A number again: valid, sent.
    before = answers_drawn(page_2r)
    type_target(page_2r, x="12")
    wait_for_answer_at(page_2r, 0.12, target[1], after=before)
    assert field.get_attribute("aria-invalid") == "false"
    assert page_2r.locator("#target-error").inner_text() == ""


def test_pointer_events_faster_than_answers_cost_two_requests_and_end_on_the_last(
    page_2r: Page,
) -> None:
    # Latest wins: 200 pointermove events in one task (faster than any answer) send the first
    # target, keep only the newest pending one, and the last answer drawn is for the last.
    pixels = [pixel_of(page_2r, 0.15 * math.cos(a), 0.15 * math.sin(a)) for a in range(-50, 51)]
    before = answers_drawn(page_2r)
    page_2r.evaluate(
        """(points) => { const svg = document.getElementById("arm-view");
             for (const [x, y] of points) svg.dispatchEvent(new PointerEvent("pointermove",
               {clientX: x, clientY: y, buttons: 1, bubbles: true})); }""",
        [list(p) for p in pixels],
    )
    stats = page_2r.evaluate("window.armStats.ik.lastPointer")
    wait_for_answer_at(page_2r, stats["x"], stats["y"], after=before)
    assert answers_drawn(page_2r) - before == 2
    assert page_2r.evaluate("window.armStats.ik.maxInFlight") == 1


def test_a_hardware_fault_on_diagnostics_shows_a_banner(page_2r: Page, observer: Observer) -> None:
    banner = page_2r.locator("#fault-banner")
    assert banner.is_hidden()
    publisher = observer.node.create_publisher(DiagnosticArray, "/diagnostics", 10)
    wait_for(lambda: publisher.get_subscription_count() > 0, what="the bridge on /diagnostics")
    # A second hardware node's report, so that the real one's 1 Hz "OK" does not clear it.
    status = DiagnosticStatus(name="/hardware_node_2: servos", hardware_id="pca9685")
    status.level, status.message = DiagnosticStatus.ERROR, "I2C error 121 on /dev/i2c-1"
    status.values = [KeyValue(key="fault", value="true")]
    publisher.publish(DiagnosticArray(status=[status]))
    banner.wait_for(state="visible")
    assert "I2C error 121 on /dev/i2c-1" in banner.inner_text()
    status.level, status.message = DiagnosticStatus.OK, "2 servos driven by servokit"
    status.values = [KeyValue(key="fault", value="false")]
    publisher.publish(DiagnosticArray(status=[status]))
    banner.wait_for(state="hidden")
    observer.node.destroy_publisher(publisher)


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
    assert f"step {step} of " in message
    assert "feasible" in message
    # Each said once: the step, the IK status (JOINT_LIMIT in the hole), the feasible part.
    assert message.count(f"step {step} of ") == 1
    assert message.count("JOINT_LIMIT") == 1
    assert message.count("feasible") == 1
    assert not message.startswith("IK_FAILED")
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


def test_joints_here_moves_with_progress_and_cancel_stops_it(
    page_2r: Page, observer: Observer, stack_2r: Stack
) -> None:
    # From the end of the previous move (0.14, 0), a joint move across to the other side: the
    # shoulder turns about 100 degrees at half its 120 deg/s, so the move lasts well over 1 s.
    gx, gy = -0.02, -0.14
    assert stack_2r.arm.solve(gx, gy).ok
    drag_to(page_2r, gx, gy)
    commands_before = len(observer.commands)
    page_2r.click("#move-joints")
    page_2r.wait_for_selector('#move-status[data-status="MOVING"]')
    assert page_2r.locator("#progress").evaluate("e => e.value") > 0
    page_2r.click("#cancel")
    page_2r.wait_for_selector('#move-status[data-status="CANCELED"]')
    assert len(observer.commands) > commands_before  # it did start moving
    assert page_2r.locator("#cancel").is_disabled()
    # The user's own stop: a neutral tone, not the red of an error.
    assert page_2r.locator("#move-status").get_attribute("class").split() == ["status", "stopped"]
    assert background_of(page_2r, "#move-status") == "rgb(91, 111, 140)"
    x, y = start_point(observer, stack_2r)
    assert math.dist((x, y), (gx, gy)) > 0.01  # and stopped before the goal


def test_a_new_page_draws_no_old_plan_but_the_plans_of_goals_that_run_while_it_is_open(
    browser, page_2r: Page, stack_2r: Stack
) -> None:
    # trajectory_markers is latched: the plan of the module's last goal comes to a new page,
    # which leaves it out (published before it connected).
    assert page_2r.locator("#layer-plan polyline").count() > 0
    fresh = open_page(browser, stack_2r.url)
    fresh.wait_for_function("window.armStats.plans.ignored >= 1")
    assert fresh.locator("#layer-plan > *").count() == 0
    # A goal that runs now (the other page's) is drawn.
    gx, gy = 0.14, 0.02
    drag_to(page_2r, gx, gy)
    page_2r.click("#move-joints")
    fresh.wait_for_selector("#plan-planned_path", state="attached")
    assert fresh.evaluate("window.armStats.plans.drawn") >= 1
    page_2r.wait_for_selector('#move-status[data-status="SUCCEEDED"]')
    assert fresh.errors == []
    fresh.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_layout_side_by_side_on_a_desktop_and_stacked_on_a_phone(
    browser, stack_2r: Stack, width: int, height: int
) -> None:
    page = open_page(browser, stack_2r.url, width, height)
    drag_to(page, 0.12, 0.08)  # the drag works at this size too
    assert shown_status(page) == "OK"
    view = page.locator("#view").bounding_box()
    panel = page.locator("#panel").bounding_box()
    if width >= 1000:
        assert panel["x"] >= view["x"] + view["width"] - 1  # the panel beside the drawing
        assert view["width"] > 2 * panel["width"]
    else:
        assert panel["y"] >= view["y"] + view["height"] - 1  # below it
        assert view["width"] == pytest.approx(width, abs=1)
        assert panel["width"] == pytest.approx(width, abs=1)
        assert view["height"] >= 300  # a drawing one can drag in
    # Nothing wider than the screen: no sideways scrolling, every element inside.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    rightmost = page.evaluate(
        """() => Math.max(...[...document.querySelectorAll('#panel *')]
             .filter((e) => e.getClientRects().length)
             .map((e) => e.getBoundingClientRect().right))"""
    )
    assert rightmost <= width
    for selector in ("#target-x", "#target-y", "#move-line", "#cancel", "#branch"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0, selector
        assert box["x"] + box["width"] <= width, selector
    screenshot(page, f"page-2r-{width}x{height}.png")
    assert page.errors == []
    page.close()
