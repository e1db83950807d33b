"""The page's jog seen from both sides, for test_web_page_jog*.py: the ROS graph (every
joint_states and every twist the bridge published) and the page (its key pad, its counters in
window.armStats.jog, the live arm it draws), and a gamepad stubbed in the browser."""

from __future__ import annotations

import itertools
import math
import statistics
import threading

from geometry_msgs.msg import TwistStamped
from rclpy.qos import qos_profile_sensor_data
from ros_helpers import RosGraph, wait_for
from sensor_msgs.msg import JointState
from web_stack import Page, Stack

TWIST_TOPIC = "servo_node/delta_twist_cmds"
REST_MESSAGES = 10  # joint_states in a row with the same positions: the arm is at rest

# navigator.getGamepads() answering one standard-mapping pad that the test sets through
# window.testPad (axes, and buttons by index: {pressed, value}); added before the page loads.
GAMEPAD_STUB = """
(() => {
  const buttons = Array.from({ length: 17 }, () => ({ pressed: false, touched: false, value: 0 }));
  window.testPad = { id: "test pad (stub)", index: 0, connected: true, mapping: "standard",
                     timestamp: 0, axes: [0, 0, 0, 0], buttons };
  Object.defineProperty(Navigator.prototype, "getGamepads", {
    configurable: true, value: () => [window.testPad, null, null, null] });
})();
"""


class ArmWatch:
    """rclpy side: joint_states and the twists the page's bridge publishes, as they come."""

    def __init__(self, graph: RosGraph, stack: Stack) -> None:
        self.arm = stack.arm
        self.node = graph.node("web_jog_watch")
        self.lock = threading.Lock()
        self.states: list[JointState] = []
        self.twists: list[TwistStamped] = []
        self.node.create_subscription(
            JointState, "joint_states", self._on_state, qos_profile_sensor_data
        )
        self.twist_subscription = self.node.create_subscription(
            TwistStamped, TWIST_TOPIC, self._on_twist, 1000
        )
        wait_for(lambda: self.states, what="joint_states flowing")

    def _on_state(self, msg: JointState) -> None:
        with self.lock:
            self.states.append(msg)

    def _on_twist(self, msg: TwistStamped) -> None:
        with self.lock:
            self.twists.append(msg)

    def twist_count(self) -> int:
        with self.lock:
            return len(self.twists)

    def wait_bridge_publisher(self) -> None:
        """Until the page's bridge advertises the twist topic and this node has matched it."""
        wait_for(
            lambda: self.twist_subscription.get_publisher_count() > 0,
            what="the bridge's twist publisher",
        )

    def joints(self, index: int = -1) -> list[float]:
        """The arm's joints (rad, in the arm's order) of a joint_states message, the latest."""
        with self.lock:
            state = self.states[index]
        return self._joints_of(state)

    def tool(self, joints: list[float] | None = None) -> tuple[float, ...]:
        """The tool's position (x, y, and z of a spatial arm; m) at `joints`, the latest."""
        pose = self.arm.forward(self.joints() if joints is None else joints)
        return (pose.x, pose.y, pose.z) if hasattr(pose, "z") else (pose[0], pose[1])

    def wait_moved(self, start: tuple[float, ...], distance: float) -> tuple[float, ...]:
        """Until the tool is more than `distance` m from `start`; its position then."""

        def far() -> tuple[float, ...] | None:
            tool = self.tool()
            return tool if math.dist(tool, start) > distance else None

        return wait_for(far, what=f"the tool {distance * 1000:.0f} mm from {start}")

    def state_count(self) -> int:
        with self.lock:
            return len(self.states)

    def tool_step(self, since: int, start: tuple[float, ...], near: float, far: float) -> float:
        """The tool's travel (m) from one joint_states message to the next, the median over
        the messages from index `since` on that lie between `near` and `far` m from `start`
        and moved: how far the jog takes the tool per command period. (Not a speed by the
        clock: when the jog's and the servos' 50 Hz ticks fire depends on the machine's load;
        the step each takes does not.)"""
        with self.lock:
            states = self.states[since:]
        path = [self.tool(self._joints_of(state)) for state in states]
        steps = [
            math.dist(a, b)
            for a, b in itertools.pairwise(path)
            if near < math.dist(a, start) <= far and a != b
        ]
        return statistics.median(steps)

    def _joints_of(self, state: JointState) -> list[float]:
        by_name = dict(zip(state.name, state.position, strict=True))
        return [by_name[name] for name in self.arm.joint_names]

    def wait_at_rest(self) -> list[float]:
        """Until REST_MESSAGES joint_states in a row are the same; their joints."""

        def resting() -> list[float] | None:
            with self.lock:
                if len(self.states) < REST_MESSAGES:
                    return None
                last = [list(s.position) for s in self.states[-REST_MESSAGES:]]
            return self.joints() if all(p == last[0] for p in last) else None

        return wait_for(resting, what="the arm at rest")


# --- the page ---------------------------------------------------------------------------------


def jog_stats(page: Page) -> dict:
    return page.evaluate("window.armStats.jog")


def wait_ticks(page: Page, ticks: int) -> None:
    """Until the page's jog has looked at its keys and gamepad `ticks` more times (50 a second):
    long enough for anything it would send to have been sent."""
    start = jog_stats(page)["ticks"]
    page.wait_for_function(f"window.armStats.jog.ticks >= {start + ticks}")


def drawn_tip_near(page: Page, pixel: tuple[float, float], tolerance_px: float = 2.0) -> None:
    """Until the live arm's tip (#live-tip) is drawn within `tolerance_px` of `pixel`."""
    page.wait_for_function(
        """([x, y, d]) => { const t = document.getElementById('live-tip').getBoundingClientRect();
             return Math.hypot(t.x + t.width / 2 - x, t.y + t.height / 2 - y) <= d; }""",
        arg=[*pixel, tolerance_px],
    )


def focus_jog_keys(page: Page) -> None:
    """Give the jog box's key pad the focus (as a click in the box does): the keys jog."""
    page.focus("#jog-pad")
    page.wait_for_selector(".tool-jog.keys-active")
