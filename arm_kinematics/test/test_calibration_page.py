"""The calibration page in real Chromium: a whole guided calibration of a planar arm with a
gripper on `bringup` (sim servos), then `bringup` started on the saved file; and the main
page's joint sliders, home button, calibration link and simulated fault.

What the page does is read back from the graph (rclpy subscriptions in this process: the
bringup's joint_states and calibration/state) and from the files it saved.
"""

from __future__ import annotations

import math
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from calibration_helpers import LATCHED, write_planar_gripper
from ros_helpers import ros_graph, wait_for
from sensor_msgs.msg import JointState
from web_stack import ARTIFACTS, Page, Stack, headless_chromium, screenshot

from arm_kinematics.config import flatten_parameters
from arm_kinematics_interfaces.msg import CalibrationState

pytestmark = pytest.mark.ros

COMMENT = re.compile(r"#.*$")
SHOTS = Path("/tmp/calib-shots")


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


class Listener:
    """The arm's joint_states and calibration/state, as any ROS client sees them."""

    def __init__(self, graph) -> None:
        self.lock = threading.Lock()
        self.joints: dict[str, float] = {}
        self.state: CalibrationState | None = None
        node = graph.node("calibration_page_listener")
        node.create_subscription(JointState, "joint_states", self._on_joints, 10)
        node.create_subscription(CalibrationState, "calibration/state", self._on_state, LATCHED)

    def _on_joints(self, msg: JointState) -> None:
        with self.lock:
            self.joints = dict(zip(msg.name, msg.position, strict=True))

    def _on_state(self, msg: CalibrationState) -> None:
        with self.lock:
            self.state = msg

    def degrees(self) -> dict[str, float]:
        with self.lock:
            return {name: math.degrees(v) for name, v in self.joints.items()}

    def servo_deg(self, joint: str) -> float | None:
        with self.lock:
            if self.state is None:
                return None
            return next(s.servo_deg for s in self.state.servos if s.joint == joint)


def shot(page: Page, name: str) -> None:
    path = screenshot(page, name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)


def servo_at(page: Page, degrees: float) -> None:
    page.wait_for_function(
        "d => Math.abs(Number(document.getElementById('servo-deg').dataset.value) - d) < 1e-6",
        arg=degrees,
    )


def jog_to(page: Page, degrees: float) -> None:
    """Type a servo angle and Go (servo degrees), as a user with the keyboard."""
    page.fill("#jog-value", str(degrees))
    page.press("#jog-value", "Enter")
    servo_at(page, degrees)


def choose(page: Page, joint: str) -> None:
    page.click(f'#servo-list button[data-joint="{joint}"]')
    page.wait_for_selector(f'#servo-list button[data-joint="{joint}"][aria-pressed="true"]')


def comments(text: str) -> list[str]:
    return [m.group(0) for line in text.splitlines() if (m := COMMENT.search(line))]


def test_a_guided_calibration_is_saved_and_bringup_runs_it(browser, tmp_path: Path) -> None:
    source = write_planar_gripper(tmp_path)
    original = source.read_text()
    # Jogs at the joints' top speed (120 deg/s) rather than the default 30: the same jogs, and
    # the test waits for each to end.
    stack = Stack(source, ros_args=("-p", "hardware_node:calibration.jog_speed_deg_s:=120.0"))
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(30_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(stack.url + "calibration.html")
        page.wait_for_selector('#servo-list button[data-joint="gripper"]')
        assert page.locator("#jog-go").is_disabled()  # nothing moves before the mode is on
        page.click("#enter")
        page.wait_for_selector('#mode[data-active="true"]')
        shot(page, "calibration-start.png")
        # The shoulder: the zero at servo 100, positive toward smaller servo angles.
        choose(page, "shoulder")
        servo_at(page, 90.0)
        page.click('#jog-steps button[data-step="5"]')
        page.click('#jog-steps button[data-step="5"]')  # steps add up on the target
        servo_at(page, 100.0)
        page.click("#mark-zero")
        page.click('#jog-steps button[data-step="-5"]')
        servo_at(page, 95.0)
        page.click("#mark-sign")
        assert "sign −1" in page.inner_text("#value-sign")
        # The stops at 20 and 175 servo degrees, 3 degrees of margin: travel 23..172.
        jog_to(page, 20.0)
        page.click("#mark-low")
        jog_to(page, 175.0)
        page.click("#mark-high")
        assert "travel 23.0…172.0" in page.inner_text("#value-travel")
        # offset 100, sign -1: the travel allows -72..77 joint degrees; the limits narrow.
        assert page.input_value("#joint-min") == "-72"
        assert page.input_value("#joint-max") == "77"
        # The keyboard: "]" outside a field is a small step (+0.5 deg).
        page.locator("#steps-box h2").click()
        page.keyboard.press("]")
        servo_at(page, 175.5)
        # The gripper: zero at 45, positive opening, open at 100 (55 deg), closed at 45.
        choose(page, "gripper")
        jog_to(page, 45.0)
        page.click("#mark-zero")
        jog_to(page, 55.0)
        page.click("#mark-sign")
        jog_to(page, 100.0)
        page.click("#mark-open")
        jog_to(page, 45.0)
        page.click("#mark-closed")
        assert page.inner_text("#value-gripper") == "open 55.0°, closed 0.0°"
        # Home: the shoulder servo at 110 (joint -10 by the new values), the elbow where it
        # is (45), the gripper closed.
        choose(page, "shoulder")
        jog_to(page, 110.0)
        assert page.inner_text("#joint-deg") == "-10.0"
        page.click("#mark-home")
        assert page.inner_text("#value-home") == "shoulder -10.0°, elbow 45.0°, gripper 0.0°"
        # The drawing follows the trial values: the shoulder's link at -10 degrees.
        tip = [float(v) for v in page.locator("#trial-view").get_attribute("data-tip").split(",")]
        elbow = math.radians(-10 + 45)
        expected = (
            0.1 * math.cos(math.radians(-10)) + 0.08 * math.cos(elbow),
            0.1 * math.sin(math.radians(-10)) + 0.08 * math.sin(elbow),
        )
        assert tip == pytest.approx(expected, abs=1e-4)
        # The diff first, then the save.
        assert page.locator("#save").is_disabled()
        page.click("#preview")
        page.wait_for_selector("#diff .added")
        diff = page.inner_text("#diff")
        assert "+          offset_deg: 100.0        # servo angle when the joint is at 0" in diff
        assert page.locator("#save").is_enabled()
        page.locator("#diff").scroll_into_view_if_needed()
        shot(page, "calibration-diff.png")
        page.click("#save")
        page.wait_for_function("() => document.getElementById('save-message').dataset.path")
        message = page.inner_text("#save-message")
        saved = tmp_path / "arm_gripper.calibrated.yaml"
        assert f"bringup --config {saved}" in message
        assert page.locator("#save-message").get_attribute("data-path") == str(saved)
        shot(page, "calibration-saved.png")
        page.click("#leave")
        page.wait_for_selector('#mode[data-active="false"]')
        assert errors == []
    finally:
        stack.stop()
    # The saved file: every comment of the original, only the calibrated values changed.
    text = saved.read_text()
    assert source.read_text() == original  # a new file: the original untouched
    assert comments(text) == comments(original)
    old = flatten_parameters(yaml.safe_load(original)["/**"]["ros__parameters"])
    new = flatten_parameters(yaml.safe_load(text)["/**"]["ros__parameters"])
    changed = {name: new[name] for name in new if new[name] != old[name]}
    assert changed == {
        "joints.shoulder.servo.offset_deg": 100.0,
        "joints.shoulder.servo.sign": -1,
        "joints.shoulder.servo.min_deg": 23.0,
        "joints.shoulder.servo.max_deg": 172.0,
        "joints.shoulder.min_deg": -72.0,
        "joints.shoulder.max_deg": 77.0,
        "joints.shoulder.home_deg": -10.0,
        "joints.gripper.servo.offset_deg": 45.0,
        "joints.gripper.home_deg": 0.0,
        "gripper.open_deg": 55.0,
    }
    assert len(text.splitlines()) == len(original.splitlines())
    # bringup on the saved file: the joints where the page said, the servos where they stood.
    with ros_graph() as graph:
        listener = Listener(graph)
        stack = Stack(saved)
        try:
            wait_for(
                lambda: (
                    (d := listener.degrees())
                    and d["shoulder"] == pytest.approx(-10.0, abs=1e-6)
                    and d["elbow"] == pytest.approx(45.0, abs=1e-6)
                    and d["gripper"] == pytest.approx(0.0, abs=1e-6)
                ),
                what="the joints at the home the page set",
            )
            wait_for(lambda: listener.servo_deg("shoulder") is not None, what="calibration/state")
            assert listener.servo_deg("shoulder") == pytest.approx(110.0)  # as at "home is here"
            assert listener.servo_deg("gripper") == pytest.approx(45.0)
            main_page_checks(browser, stack)
        finally:
            stack.stop()


def main_page_checks(browser, stack: Stack) -> None:
    """The main page's joint sliders, home, the calibration link and the simulated fault."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.set_default_timeout(30_000)
    page.goto(stack.url)
    page.wait_for_selector('.jog-row[data-joint="shoulder"] input')
    assert page.get_attribute("#calibration-link", "href") == "calibration.html"
    slider = page.locator('.jog-row[data-joint="elbow"] input')
    assert slider.get_attribute("min") == "-90"
    slider.fill("20")  # a joint_trajectory, checked by trajectory_node
    page.wait_for_function(
        "() => document.querySelector('.jog-row[data-joint=\"elbow\"] .jog-value')"
        ".textContent === '20.0°'"
    )
    page.wait_for_selector("#simulate-fault:not([hidden])")
    shot(page, "main-page-joints.png")
    page.click("#home")
    page.wait_for_function(
        "() => document.querySelector('.jog-row[data-joint=\"elbow\"] .jog-value')"
        ".textContent === '45.0°'"
    )
    page.click("#simulate-fault")
    page.wait_for_selector("#fault-banner:not([hidden])")
    assert "simulated bus fault" in page.inner_text("#fault-banner")
    shot(page, "main-page-fault.png")
    page.click("#simulate-fault")
    page.wait_for_selector("#fault-banner", state="hidden")
    assert ARTIFACTS.is_dir()
