"""The page of a spatial arm (config/arm_desk_kit.yaml: base yaw, shoulder, elbow, wrist pitch,
wrist roll, gripper) in a real browser: Debian's Chromium, headless, driven by Playwright with
real pointer events, against a running bringup (simulated servos) and its web bridge.

Every check compares what the page shows with what the ROS graph says: solve_ik and compute_fk
called with rclpy for the same target and joints, the gripper's joint and the arm's end pose
from joint_states, the tool point from the URDF's joint chain (urdf_chain.UrdfChain, parsed
independently of the page). Waits are for conditions, never sleeps. Screenshots go to
tmp/test-artifacts/. The module's page is shared, so the order of the tests matters.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator

import numpy as np
import pytest
import transforms3d
from rclpy.qos import qos_profile_sensor_data
from ros_helpers import PACKAGE_DIR, RosGraph, ros_graph, wait_for
from sensor_msgs.msg import JointState
from urdf_chain import UrdfChain
from web_stack import (
    Page,
    Stack,
    answers_drawn,
    centre_of,
    drag_in_view,
    headless_chromium,
    metres_3d,
    open_spatial_page,
    plane_pixel,
    screenshot,
    shown_joint_rad,
    shown_status,
    type_target,
    view_pixel,
    wait_for_answer_3d,
)

from arm_kinematics.config import ArmConfig
from arm_kinematics.description import robot_description
from arm_kinematics.kinematics.workspace import vertical_region
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK

pytestmark = pytest.mark.ros

CONFIG_FILE = PACKAGE_DIR / "config" / "arm_desk_kit.yaml"
CONFIG = ArmConfig.from_file(CONFIG_FILE)
NAMES = list(CONFIG.joint_names)
GRIPPER = CONFIG.gripper
CHAIN = UrdfChain(robot_description(CONFIG_FILE), CONFIG.base_frame, CONFIG.tip_frame)
VIEWS = ("top", "side", "orbit")
REGION_TIMEOUT_MS = 180_000  # the region's solves take ~15 s in the IK node's child process


def outward_quaternion(x: float, y: float, pitch: float, roll: float) -> tuple[float, ...]:
    """(x, y, z, w) of Rz(psi) Ry(-pitch) Rx(roll), psi = atan2(y, x): docs/spatial_arms.md."""
    w, qx, qy, qz = transforms3d.euler.euler2quat(roll, -pitch, math.atan2(y, x), axes="sxyz")
    return qx, qy, qz, w


class Observer:
    """rclpy side of the tests: solve_ik, compute_fk, and every joint_states message."""

    def __init__(self, graph: RosGraph) -> None:
        self.graph = graph
        self.node = graph.node("web_page_spatial_observer")
        self.solve_ik = self.node.create_client(SolveIK, "solve_ik")
        self.compute_fk = self.node.create_client(ComputeFK, "compute_fk")
        self.states: list[JointState] = []
        self.node.create_subscription(
            JointState, "joint_states", self.states.append, qos_profile_sensor_data
        )
        wait_for(lambda: self.states, what="joint_states flowing")

    def solve(self, x, y, z, mode=SolveIK.Request.POSITION_ONLY, tool_angle=0.0, quaternion=None):
        request = SolveIK.Request(branch=SolveIK.Request.BRANCH_CLOSEST)
        request.target.header.frame_id = CONFIG.base_frame
        p = request.target.pose.position
        p.x, p.y, p.z = x, y, z
        request.orientation_mode = mode
        request.tool_angle = tool_angle
        o = request.target.pose.orientation
        o.x, o.y, o.z, o.w = quaternion or (0.0, 0.0, 0.0, 1.0)
        return self.graph.call(self.solve_ik, request)

    def tool_rotation(self, joints: dict[str, float]) -> np.ndarray:
        """The tool's rotation (3x3, base frame) at `joints` (rad), from compute_fk."""
        request = ComputeFK.Request()
        request.joints.name = NAMES
        request.joints.position = [joints[name] for name in NAMES]
        answer = self.graph.call(self.compute_fk, request)
        assert answer.status == ComputeFK.Response.OK, answer.message
        o = answer.tip.pose.orientation
        return transforms3d.quaternions.quat2mat((o.w, o.x, o.y, o.z))

    def joint(self, name: str) -> float:
        state = self.states[-1]
        return dict(zip(state.name, state.position, strict=True))[name]

    def tip(self) -> np.ndarray:
        """The live tool point (x, y, z, m) from joint_states through the URDF's chain."""
        return CHAIN.tip_transform([self.joint(name) for name in NAMES])[:3, 3]


def ghost_joints(page: Page) -> dict[str, float]:
    return {name: shown_joint_rad(page, name) for name in NAMES}


def assert_page_shows(page: Page, answer: SolveIK.Response) -> None:
    """The page's status and ghost joints are rclpy's answer for the same target."""
    assert answer.status in (SolveIK.Response.OK, SolveIK.Response.SINGULAR), answer.message
    assert shown_status(page) == ("OK" if answer.status == SolveIK.Response.OK else "SINGULAR")
    assert list(answer.solution.name) == NAMES
    for name, rad in zip(answer.solution.name, answer.solution.position, strict=True):
        assert shown_joint_rad(page, name) == pytest.approx(rad, abs=1e-6), name


def assert_ghost_on_target(page: Page, target: tuple[float, float, float]) -> None:
    """In every view the ghost's tip is drawn within 2 px of the target's projection."""
    for view in VIEWS:
        tip = centre_of(page, f"#{view}-ghost-tip")
        assert math.dist(tip, view_pixel(page, view, *target)) <= 2.0, view


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    stack = Stack(CONFIG_FILE)
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def observer(stack: Stack) -> Iterator[Observer]:
    with ros_graph() as graph:
        yield Observer(graph)


@pytest.fixture(scope="module")
def page(browser, stack: Stack, observer: Observer) -> Iterator[Page]:
    page = open_spatial_page(browser, stack.url)
    yield page
    assert page.errors == []
    page.close()


# --- the tests ----------------------------------------------------------------------------------


def test_a_spatial_arm_gets_three_views_and_its_own_fields(page: Page) -> None:
    page.wait_for_selector('#status[data-status="READY"]')
    assert page.locator("#view").is_hidden()  # the planar drawing is not used
    for view in VIEWS:
        assert page.locator(f"#{view}-view").is_visible()
    assert page.locator("#arm-kind").inner_text() == "Spatial"
    keys = page.locator("#target-fields .field:visible").evaluate_all(
        "(fields) => fields.map((f) => f.dataset.key)"
    )
    assert keys == ["x", "y", "z", "pitch", "roll"]  # a wrist roll: the roll field too
    assert page.locator("#heading-control").is_hidden()  # a planar 3R arm's heading
    assert page.locator("#tool-control").is_visible()
    assert page.locator("#joint-readouts tbody tr").count() == len(NAMES)  # not the gripper
    # The live arm is the URDF's chain at joint_states: its tip where the URDF puts the tool.
    live = metres_3d(page, "#top-live-tip")
    for view in VIEWS:
        assert math.dist(centre_of(page, f"#{view}-live-tip"), view_pixel(page, view, *live)) <= 2


def test_a_drag_from_above_draws_solve_ik_s_answer_on_the_target_in_every_view(
    page: Page, observer: Observer
) -> None:
    pointer = drag_in_view(page, "top", 0.17, 0.08)
    target = metres_3d(page, "#top-target-mark")
    assert math.dist(pointer, view_pixel(page, "top", *target)) <= 1.0  # the pointer is the target
    answer = observer.solve(*target)
    assert_page_shows(page, answer)
    assert_ghost_on_target(page, target)
    # The side view turned to the target's plane (the yaw faces it).
    direction = page.evaluate("window.armStats.views.side.direction")
    assert direction == pytest.approx(math.atan2(target[1], target[0]), abs=1e-12)
    screenshot(page, "page-spatial-top-drag.png")


def test_a_drag_from_the_side_sets_reach_and_height_and_keeps_the_direction(
    page: Page, observer: Observer
) -> None:
    direction = page.evaluate("window.armStats.views.side.direction")
    before = metres_3d(page, "#top-target-mark")
    pointer = drag_in_view(page, "side", 0.16, 0.06)
    target = metres_3d(page, "#side-target-mark")
    assert math.dist(pointer, view_pixel(page, "side", *target)) <= 1.0
    assert math.atan2(target[1], target[0]) == pytest.approx(direction, abs=1e-9)
    assert math.hypot(target[0], target[1]) == pytest.approx(0.16, abs=0.002)
    assert target[2] == pytest.approx(0.06, abs=0.002)
    assert target[2] != before[2]
    answer = observer.solve(*target)
    assert_page_shows(page, answer)
    assert_ghost_on_target(page, target)
    assert page.evaluate("window.armStats.views.side.direction") == direction


def test_a_typed_target_is_solved_and_a_drag_fills_the_fields(
    page: Page, observer: Observer
) -> None:
    x, y, z = metres_3d(page, "#top-target-mark")
    assert [page.input_value(f"#target-{a}") for a in "xyz"] == [
        f"{v * 100:.1f}" for v in (x, y, z)
    ]
    before = answers_drawn(page)
    type_target(page, x="12.5", y="-9", z="4")
    wait_for_answer_3d(page, 0.125, -0.09, 0.04, after=before)
    assert metres_3d(page, "#top-target-mark") == (0.125, -0.09, 0.04)
    assert_page_shows(page, observer.solve(0.125, -0.09, 0.04))
    assert_ghost_on_target(page, (0.125, -0.09, 0.04))
    # The side view looks at the typed target's plane.
    direction = page.evaluate("window.armStats.views.side.direction")
    assert direction == pytest.approx(math.atan2(-0.09, 0.125), abs=1e-12)


def test_the_pitch_asks_for_the_tool_angle_and_the_ghost_s_tool_has_it(
    page: Page, observer: Observer
) -> None:
    target = (0.15, 0.05, 0.06)
    before = answers_drawn(page)
    type_target(page, x="15", y="5", z="6", pitch="-45")  # a typed pitch is meant
    wait_for_answer_3d(page, *target, after=before)
    assert page.input_value("#tool-mode") == "pitch"
    assert page.input_value("#pitch") == "-45"
    answer = observer.solve(*target, SolveIK.Request.TOOL_ANGLE, math.radians(-45))
    assert_page_shows(page, answer)
    assert_ghost_on_target(page, target)
    # compute_fk of the ghost's joints: the tool's x axis 45 degrees below the horizontal.
    axis = observer.tool_rotation(ghost_joints(page))[:, 0]
    assert math.degrees(math.atan2(axis[2], math.hypot(axis[0], axis[1]))) == pytest.approx(
        -45.0, abs=1e-6
    )
    assert page.locator("#side-tool-arrow").count() == 1  # drawn from the target
    # The slider: straight down, another answer for the same point.
    before = answers_drawn(page)
    page.fill("#pitch", "-90")
    wait_for_answer_3d(page, *target, after=before)
    assert page.input_value("#target-pitch") == "-90"
    axis = observer.tool_rotation(ghost_joints(page))[:, 0]
    assert axis == pytest.approx((0.0, 0.0, -1.0), abs=1e-6)
    assert_page_shows(page, observer.solve(*target, SolveIK.Request.TOOL_ANGLE, -math.pi / 2))
    # Position only: the pitch is not asked for.
    before = answers_drawn(page)
    page.select_option("#tool-mode", "position")
    wait_for_answer_3d(page, *target, after=before)
    assert_page_shows(page, observer.solve(*target))
    assert page.locator("#side-tool-arrow").count() == 0


def test_pitch_and_roll_ask_for_the_whole_rotation_of_the_documented_convention(
    page: Page, observer: Observer
) -> None:
    target = (0.15, 0.07, 0.08)
    pitch, roll = math.radians(-60), math.radians(30)
    before = answers_drawn(page)
    type_target(page, x="15", y="7", z="8", pitch="-60", roll="30")
    wait_for_answer_3d(page, *target, after=before)
    assert page.input_value("#tool-mode") == "pitch_roll"
    quaternion = outward_quaternion(target[0], target[1], pitch, roll)
    answer = observer.solve(*target, SolveIK.Request.FULL_ORIENTATION, quaternion=quaternion)
    assert_page_shows(page, answer)
    assert_ghost_on_target(page, target)
    rotation = observer.tool_rotation(ghost_joints(page))
    expected = transforms3d.quaternions.quat2mat((quaternion[3], *quaternion[:3]))
    assert np.abs(rotation - expected).max() < 1e-6
    assert shown_joint_rad(page, "wrist_roll") == pytest.approx(roll, abs=1e-6)
    before = answers_drawn(page)
    page.select_option("#tool-mode", "position")
    wait_for_answer_3d(page, *target, after=before)  # the mode's change solves the target again


def test_the_3d_view_turns_on_a_drag_and_still_draws_the_arm(page: Page) -> None:
    before = page.evaluate("window.armStats.views.orbit")
    answers = answers_drawn(page)
    box = page.locator("#orbit-view .arm-layer").bounding_box()
    start = (box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.5)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 120, start[1] + 30, steps=6)
    page.mouse.up()
    after = page.evaluate("window.armStats.views.orbit")
    assert after["azimuth"] == pytest.approx(before["azimuth"] - 1.2, abs=1e-9)
    assert after["elevation"] == pytest.approx(before["elevation"] + 0.3, abs=1e-9)
    assert after["right"] != before["right"]
    assert answers_drawn(page) == answers  # turning asks nothing
    # Drawn again through the new projection: the live arm's and the ghost's tips.
    for element in ("live-tip", "ghost-tip"):
        point = metres_3d(page, f"#orbit-{element}")
        drawn = centre_of(page, f"#orbit-{element}")
        assert math.dist(drawn, view_pixel(page, "orbit", *point)) <= 2.0, element
    assert page.locator("#orbit-layer-live polyline").count() == 1
    screenshot(page, "page-spatial-turned.png")


def test_the_side_view_draws_the_vertical_plane_s_region_and_the_top_view_the_yaw_range(
    page: Page, stack: Stack
) -> None:
    page.wait_for_selector(
        "#side-region-reachable_region", state="attached", timeout=REGION_TIMEOUT_MS
    )
    # The drawn region covers the core's own cells of the vertical plane (u = x, v = z).
    region = vertical_region(stack.arm)
    rectangles = np.asarray(region.rectangles(region.reachable))
    u_min, v_min = rectangles[:, :2].min(axis=0)
    u_max, v_max = rectangles[:, 2:].max(axis=0)
    drawn = page.locator("#side-region-reachable_region path").bounding_box()
    left, top = plane_pixel(page, "side", u_min, v_max)
    right, bottom = plane_pixel(page, "side", u_max, v_min)
    assert drawn["x"] == pytest.approx(left, abs=2)
    assert drawn["y"] == pytest.approx(top, abs=2)
    assert drawn["x"] + drawn["width"] == pytest.approx(right, abs=2)
    assert drawn["y"] + drawn["height"] == pytest.approx(bottom, abs=2)
    # From above, the arc over the directions the yaw can face: -90..90 degrees.
    points = page.locator("#top-yaw_range-0").get_attribute("points").split()
    seen = page.evaluate("window.armStats.views.top")
    angles = [
        math.degrees(math.atan2(seen["cy"] - float(py), float(px) - seen["cx"]))
        for px, py in (p.split(",") for p in points)
    ]
    assert min(angles) == pytest.approx(-90.0, abs=0.5)
    assert max(angles) == pytest.approx(90.0, abs=0.5)
    screenshot(page, "page-spatial-region.png")


def test_the_gripper_opens_and_closes_and_its_joint_follows(page: Page, observer: Observer) -> None:
    assert page.locator("#gripper").is_visible()
    assert page.locator("#gripper-value").inner_text().endswith(" mm")  # opening_m
    tolerance = math.radians(1.0)  # the config's goal tolerance
    for button, angle in (
        ("#gripper-close", GRIPPER.closed_angle),
        ("#gripper-open", GRIPPER.open_angle),
    ):
        page.click(button)
        page.wait_for_selector('#gripper-status[data-status="REACHED"]')
        # The result's opening (mm), within the tolerance of the goal's.
        goal = GRIPPER.position(angle) * 1000
        at, said_goal = re.fullmatch(
            r"at (\S+) mm \(goal (\S+) mm\)", page.locator("#gripper-message").inner_text()
        ).groups()
        assert float(said_goal) == pytest.approx(goal, abs=0.05)
        assert float(at) == pytest.approx(goal, abs=GRIPPER.position(tolerance) * 1000 + 0.05)
        wait_for(
            lambda angle=angle: abs(observer.joint(GRIPPER.name) - angle) <= tolerance,
            what=f"joint_states' {GRIPPER.name} at {math.degrees(angle):.0f} deg",
        )
        page.wait_for_function(
            """([angle, tolerance]) => Math.abs(Number(document.getElementById('gripper-live')
                 .dataset.rad) - angle) <= tolerance""",
            arg=[angle, tolerance],
        )
    # The slider: an opening of 27.5 mm, half of the 55 mm fully open, is half the angle.
    page.locator("#gripper-slider").fill("27.5")
    page.wait_for_selector('#gripper-status[data-status="REACHED"]')
    half = GRIPPER.joint_angle(0.0275)
    assert math.degrees(half) == pytest.approx(35.0)
    wait_for(
        lambda: abs(observer.joint(GRIPPER.name) - half) <= tolerance,
        what="the gripper half open",
    )
    screenshot(page, "page-spatial-gripper.png")


def test_the_bridge_reads_only_the_gripper_s_parameters_for_the_page(page: Page) -> None:
    answer = page.evaluate(
        """async () => {
          const ws = new WebSocket(`ws://${location.host}/ws`);
          await new Promise((resolve) => (ws.onopen = resolve));
          const replies = [];
          ws.onmessage = (event) => replies.push(JSON.parse(event.data));
          ws.send(JSON.stringify({op: "call_service", id: "p",
            service: "hardware_node/get_parameters", args: {names: ["hardware.backend"]}}));
          while (!replies.some((r) => r.op === "service_response")) await new Promise(
            (resolve) => setTimeout(resolve, 20));
          ws.close();
          return replies;
        }"""
    )
    status = next(r for r in answer if r["op"] == "status")
    assert "may read only gripper.joint" in status["msg"]
    assert next(r for r in answer if r["op"] == "service_response")["result"] is False


def test_a_straight_line_in_3d_ends_with_the_live_arm_on_the_target(
    page: Page, observer: Observer
) -> None:
    start = observer.tip()
    target = (0.14, -0.06, 0.05)
    before = answers_drawn(page)
    type_target(page, x="14", y="-6", z="5", pitch="-90")
    wait_for_answer_3d(page, *target, after=before)
    assert shown_status(page) == "OK"
    page.click("#move-line")
    page.wait_for_selector('#move-status[data-status="SUCCEEDED"]')
    assert page.locator("#progress").evaluate("e => e.value") == 1
    assert page.locator("#side-plan-planned_path").count() == 1  # the plan, in every view
    assert page.locator("#orbit-plan-planned_path").count() == 1
    wait_for(
        lambda: math.dist(observer.tip(), target) < 1e-3,
        what="the URDF's tool point at joint_states on the target",
    )
    page.wait_for_function(
        """([x, y, z]) => { const t = document.getElementById('top-live-tip').dataset;
             return Math.hypot(t.xM - x, t.yM - y, t.zM - z) < 1e-3; }""",
        arg=list(target),
    )
    # The live tip is drawn on the target's mark.
    for view in VIEWS:
        assert (
            math.dist(
                centre_of(page, f"#{view}-live-tip"), centre_of(page, f"#{view}-target-mark circle")
            )
            <= 2.0
        ), view
    assert math.dist(start, target) > 0.05  # the arm did move
    screenshot(page, "page-spatial-moved.png")


def test_joints_here_moves_with_progress_and_cancel_stops_it(
    page: Page, observer: Observer
) -> None:
    # From (0.14, -0.06, 0.05) across to the left: the yaw turns about 100 degrees at half its
    # 90 deg/s, so the move lasts about 2 s.
    target = (0.05, 0.16, 0.12)
    page.select_option("#tool-mode", "position")
    before = answers_drawn(page)
    type_target(page, x="5", y="16", z="12")
    wait_for_answer_3d(page, *target, after=before)
    assert shown_status(page) == "OK"
    page.click("#move-joints")
    page.wait_for_selector('#move-status[data-status="MOVING"]')
    assert page.locator("#progress").evaluate("e => e.value") > 0
    page.click("#cancel")
    page.wait_for_selector('#move-status[data-status="CANCELED"]')
    assert page.locator("#cancel").is_disabled()
    assert math.dist(observer.tip(), target) > 0.01  # stopped before the goal


def test_the_layout_on_a_phone_stacks_the_views_and_nothing_scrolls_sideways(
    browser, stack: Stack
) -> None:
    width, height = 390, 844
    phone = open_spatial_page(browser, stack.url, width, height)
    boxes = [phone.locator(f"#{view}-view").bounding_box() for view in VIEWS]
    for upper, lower in itertools.pairwise(boxes):
        assert lower["y"] >= upper["y"] + upper["height"] - 1  # one under the other
    for box in boxes:
        assert box["width"] == pytest.approx(width, abs=1)
        assert box["height"] >= 300
    panel = phone.locator("#panel").bounding_box()
    assert panel["y"] >= boxes[-1]["y"] + boxes[-1]["height"] - 1
    assert phone.evaluate("document.documentElement.scrollWidth") <= width
    rightmost = phone.evaluate(
        """() => Math.max(...[...document.querySelectorAll('#panel *')]
             .filter((e) => e.getClientRects().length)
             .map((e) => e.getBoundingClientRect().right))"""
    )
    assert rightmost <= width
    # A drag works at this size too.
    drag_in_view(phone, "top", 0.15, -0.05)
    assert shown_status(phone) in ("OK", "SINGULAR")
    target = metres_3d(phone, "#top-target-mark")
    assert math.dist(centre_of(phone, "#top-ghost-tip"), view_pixel(phone, "top", *target)) <= 2
    screenshot(phone, f"page-spatial-{width}x{height}.png")
    assert phone.errors == []
    phone.close()
