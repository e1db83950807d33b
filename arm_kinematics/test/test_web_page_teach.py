"""The page's teach box in a real browser (Debian's Chromium, headless, Playwright) against a
running bringup of the desk kit (simulated servos) and its web bridge: named poses saved, listed,
moved to and deleted from the page; a sequence recorded on the page from the live pose, a named
pose and the gripper, saved, loaded, run with its progress shown; a step that cannot be planned
refused in words naming it; the box on a phone.

The params file is copied to the test's own folder, so the named poses' file and the sequences'
directory (kept beside it) are the test's. What the page shows is compared with what the graph
says: joint_states read with rclpy, the files the trajectory node wrote, the program read back
with teach/program.py. Waits are for conditions, never sleeps. The module's page is shared, so
the order of the tests matters.
"""

from __future__ import annotations

import math
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import transforms3d
from rclpy.qos import qos_profile_sensor_data
from ros_helpers import PACKAGE_DIR, RosGraph, ros_graph, wait_for
from sensor_msgs.msg import JointState
from web_stack import Page, Stack, headless_chromium, open_spatial_page, screenshot, type_target

from arm_kinematics.config import ArmConfig
from arm_kinematics.teach.program import MoveStep, read_program

pytestmark = pytest.mark.ros

SHIPPED = PACKAGE_DIR / "config" / "arm_desk_kit.yaml"
EXAMPLE = PACKAGE_DIR / "sequences" / "desk_kit_pick_and_place.yaml"
CONFIG = ArmConfig.from_file(SHIPPED)
NAMES = list(CONFIG.joint_names)
GRIPPER = CONFIG.gripper
RUN_TIMEOUT_MS = 120_000
# Reachable tool points of the desk kit (m), and a pair whose straight line passes through the
# base's column (the yaw axis): each end can be reached, the line between them cannot.
ABOVE_PART = (0.16, 0.06, 0.08)
ABOVE_BOX = (0.13, -0.07, 0.06)
LEFT, RIGHT = (0.02, 0.15, 0.06), (0.02, -0.15, 0.06)


class Observer:
    """rclpy side: every joint_states message."""

    def __init__(self, graph: RosGraph) -> None:
        self.node = graph.node("web_page_teach_observer")
        self.states: list[JointState] = []
        self.node.create_subscription(
            JointState, "joint_states", self.states.append, qos_profile_sensor_data
        )
        wait_for(lambda: self.states, what="joint_states flowing")

    def joints(self, names: list[str] = NAMES) -> np.ndarray:
        state = self.states[-1]
        by_name = dict(zip(state.name, state.position, strict=True))
        return np.array([by_name[name] for name in names])

    def recent(self, count: int) -> list[np.ndarray]:
        """The arm's joints of the latest `count` joint_states, oldest first."""
        return [
            np.array([dict(zip(s.name, s.position, strict=True))[n] for n in NAMES])
            for s in self.states[-count:]
        ]

    def at_rest(self, count: int = 5) -> np.ndarray:
        """The arm's joints once `count` joint_states in a row are equal."""

        def still():
            last = [tuple(s.position) for s in self.states[-count:]]
            return len(last) == count and all(p == last[0] for p in last)

        wait_for(still, what="the arm at rest")
        return self.joints()

    def wait_at(self, joints: np.ndarray, tolerance: float, what: str) -> None:
        wait_for(lambda: np.max(np.abs(self.joints() - joints)) < tolerance, what=what)


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def config_file(tmp_path_factory) -> Path:
    """The desk kit's params file in a folder of the module's own: poses and sequences beside it."""
    folder = tmp_path_factory.mktemp("teach")
    return Path(shutil.copy(SHIPPED, folder / SHIPPED.name))


@pytest.fixture(scope="module")
def stack(config_file: Path) -> Iterator[Stack]:
    stack = Stack(config_file)
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def observer(stack: Stack) -> Iterator[Observer]:
    with ros_graph() as graph:
        yield Observer(graph)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def page(browser, stack: Stack, observer: Observer) -> Iterator[Page]:
    page = open_teach_page(browser, stack.url, 1280, 800)
    yield page
    assert page.errors == []
    page.close()


def open_teach_page(browser, url: str, width: int, height: int) -> Page:
    page = open_spatial_page(browser, url, width, height)
    page.wait_for_selector('#pose-list li[data-pose="home"]')  # named_poses/list answered
    page.wait_for_selector("#gripper-steps:not([hidden])")  # the gripper's parameters came
    # Every text the sequence's status box shows, in order (a run's progress is brief).
    page.evaluate(
        """() => { window.sequenceSeen = [];
             const box = document.getElementById('sequence-message');
             new MutationObserver(() => window.sequenceSeen.push(
               document.getElementById('sequence-status').dataset.status + ': ' + box.textContent))
               .observe(box, { childList: true, characterData: true, subtree: true }); }"""
    )
    return page


# --- the page's actions -------------------------------------------------------------------------


def move_to_point(page: Page, observer: Observer, point: tuple[float, float, float]) -> np.ndarray:
    """Type the target (cm), "Joints here", wait for the move's success; the joints at rest."""
    x, y, z = (f"{v * 100:g}" for v in point)
    type_target(page, x=x, y=y, z=z)
    page.click("#move-joints")
    page.wait_for_selector('#move-status[data-status="SUCCEEDED"]', timeout=RUN_TIMEOUT_MS)
    return observer.at_rest()


def pose_status(page: Page, *statuses: str) -> str:
    """Wait for the named poses' status box to show one of `statuses`; its message."""
    selector = ", ".join(f'#pose-status[data-status="{s}"]' for s in statuses)
    page.wait_for_selector(selector, timeout=RUN_TIMEOUT_MS)
    return page.locator("#pose-message").inner_text()


def move_to_named(page: Page, name: str) -> None:
    page.locator(f'#pose-list li[data-pose="{name}"] .pose-move').click()
    pose_status(page, "PLANNING", "MOVING")
    assert name in pose_status(page, "SUCCEEDED")


def add_live_move(page: Page, mode: str, speed: str) -> None:
    count = page.locator("#steps li").count()
    page.select_option("#step-source", "")
    page.select_option("#step-mode", mode)
    page.fill("#step-speed", speed)
    page.click("#add-move")
    page.wait_for_selector(f"#steps li:nth-child({count + 1})")


def sequence_ends(page: Page, status: str) -> str:
    """Wait for the run's end (its status box neither PLANNING nor MOVING); assert it ended
    with `status`; its message."""
    page.wait_for_function(
        """() => !['PLANNING', 'MOVING'].includes(
             document.getElementById('sequence-status').dataset.status)""",
        timeout=RUN_TIMEOUT_MS,
    )
    message = page.locator("#sequence-message").inner_text()
    assert page.locator("#sequence-status").get_attribute("data-status") == status, message
    return message


# --- the tests ----------------------------------------------------------------------------------


def test_a_pose_saved_on_the_page_is_listed_and_move_to_brings_the_live_arm_back(
    page: Page, observer: Observer, config_file: Path
) -> None:
    saved = move_to_point(page, observer, ABOVE_PART)
    page.fill("#pose-name", "above_part")
    page.click("#pose-save")
    assert "above_part" in pose_status(page, "OK")
    row = page.locator('#pose-list li[data-pose="above_part"]')
    row.wait_for()
    # Listed with where it puts the tool (cm), and offered to the recorder.
    assert row.inner_text().startswith("above_part")
    assert "(16.0, 6.0, 8.0) cm" in row.inner_text()
    assert page.locator('#step-source option[value="above_part"]').count() == 1
    # The trajectory node wrote it beside the params file, with these joints.
    poses_file = config_file.with_name("arm_desk_kit.poses.yaml")
    assert "above_part" in poses_file.read_text()
    # A name that is taken is refused in words (nothing replaced), unless "replace" is ticked.
    move_to_named(page, "home")
    home = observer.at_rest()
    assert np.max(np.abs(home - saved)) > 0.2  # it did move away
    page.fill("#pose-name", "above_part")
    page.click("#pose-save")
    assert "above_part" in pose_status(page, "REFUSED")
    # "Move to" brings the live arm to the saved joints.
    move_to_named(page, "above_part")
    observer.wait_at(saved, 1e-3, "joint_states at the saved pose")
    # Delete: gone from the list and the file; home has no delete button.
    page.fill("#pose-name", "spare")
    page.click("#pose-save")
    page.locator('#pose-list li[data-pose="spare"]').wait_for()
    page.locator('#pose-list li[data-pose="spare"] .pose-delete').click()
    page.locator('#pose-list li[data-pose="spare"]').wait_for(state="detached")
    assert "spare" not in poses_file.read_text()
    assert page.locator('#pose-list li[data-pose="home"] .pose-delete').count() == 0


def test_a_sequence_recorded_on_the_page_is_saved_run_with_progress_and_ends_at_its_last_pose(
    page: Page, observer: Observer, stack: Stack, config_file: Path
) -> None:
    # Step 1: the named pose (JOINT, 60 %); step 2: the live pose, typed (LINEAR, 4 cm/s);
    # step 3: close the gripper; step 4: a wait.
    page.select_option("#step-source", "above_part")
    page.select_option("#step-mode", "joint")
    page.fill("#step-speed", "60")
    page.click("#add-move")
    last = move_to_point(page, observer, ABOVE_BOX)
    add_live_move(page, "linear", "4")
    page.fill("#step-name", "grip")
    page.click("#add-close")
    page.fill("#wait-seconds", "0.2")
    page.click("#add-wait")
    steps = page.locator("#steps li")
    assert steps.count() == 4
    assert steps.nth(0).inner_text().startswith("joint to above_part at 60 %")
    assert steps.nth(1).inner_text().startswith("linear to (13.0, -7.0, 6.0) cm, pitch")
    assert steps.nth(2).inner_text().startswith('"grip": close the gripper')
    # Reorder: the wait up above the gripper step and back, a step deleted and added again.
    steps.nth(3).get_by_role("button", name="move up step 4").click()
    assert steps.nth(2).inner_text().startswith("wait 0.2 s")
    steps.nth(2).get_by_role("button", name="move down step 3").click()
    assert steps.nth(3).inner_text().startswith("wait 0.2 s")
    steps.nth(3).get_by_role("button", name="delete step 4").click()
    assert steps.count() == 3
    page.click("#add-wait")
    assert steps.count() == 4
    # Save under a name: the file is the program the server reads, the live pose typed in it.
    page.fill("#repeat", "1")
    page.fill("#sequence-name", "pick")
    page.click("#sequence-save")
    page.wait_for_selector('#sequence-status[data-status="OK"]')
    saved = config_file.with_name("arm_desk_kit.sequences") / "pick.yaml"
    program = read_program(saved.read_text(), CONFIG)
    assert [s.kind for s in program.steps] == ["move", "move", "gripper", "wait"]
    typed = program.steps[1]
    assert isinstance(typed, MoveStep)
    assert (typed.mode, typed.speed) == ("linear", 0.04)
    # The live tool point (to 0.1 mm) of a joint_states message the page had: the page's view
    # may lag the graph's by a message or two, so any of the latest.
    points = [stack.arm.forward(joints).position for joints in observer.recent(200)]
    assert min(math.dist(typed.pose[:3], point) for point in points) < 1e-4
    assert (program.steps[2].closing, program.steps[2].name) == (True, "grip")
    assert page.locator('#saved-sequences option[value="pick"]').count() == 1
    # From home, run it: planned, then step after step with its name, to the end.
    move_to_named(page, "home")
    observer.at_rest()
    page.click("#sequence-run")
    assert "ran its 4 steps" in sequence_ends(page, "SUCCEEDED")
    seen = page.evaluate("window.sequenceSeen")
    assert any(text.startswith("PLANNING") for text in seen)
    for number in (1, 2, 3, 4):
        assert any(text.startswith(f"MOVING: step {number} of 4") for text in seen), seen
    assert any("step 1 of 4: joint to above_part" in text for text in seen)
    assert any("step 3 of 4: grip" in text for text in seen)
    assert page.locator("#sequence-progress").evaluate("e => e.value") == 1
    page.locator("#recorder").evaluate("e => e.scrollIntoView()")  # below the sticky STOP
    screenshot(page, "page-teach.png")
    # joint_states reach the last pose (the typed one: 0.1 mm and 0.01 degree in the file),
    # and the gripper closed.
    observer.wait_at(last, 5e-3, "joint_states at the sequence's last pose")
    wait_for(
        lambda: abs(observer.joints([GRIPPER.name])[0] - GRIPPER.closed_angle) < 1e-3,
        what="the gripper closed",
    )
    assert math.dist(stack.arm.forward(observer.at_rest()).position, typed.pose[:3]) < 1e-3
    # Load it back into a cleared recorder: the same steps.
    for _ in range(4):
        page.locator("#steps li").first.get_by_role("button", name="delete step 1").click()
    assert steps.count() == 0
    assert page.locator("#sequence-run").is_disabled()
    page.select_option("#saved-sequences", "pick")
    page.click("#sequence-load")
    assert steps.count() == 4
    assert steps.nth(1).inner_text().startswith("linear to (13.0, -7.0, 6.0) cm")


def test_a_step_that_cannot_be_planned_is_refused_in_words_and_nothing_moves(
    page: Page, observer: Observer
) -> None:
    for _ in range(page.locator("#steps li").count()):
        page.locator("#steps li").first.get_by_role("button", name="delete step 1").click()
    move_to_point(page, observer, RIGHT)
    add_live_move(page, "joint", "")
    add_live_move(page, "linear", "")
    move_to_point(page, observer, LEFT)
    add_live_move(page, "joint", "")
    # Joint to RIGHT, joint to LEFT, then a line back to RIGHT: through the base's column.
    page.locator("#steps li").nth(2).get_by_role("button", name="move up step 3").click()
    page.click("#add-open")
    before = observer.at_rest()
    page.fill("#sequence-name", "")
    page.click("#sequence-run")
    message = sequence_ends(page, "PLAN_FAILED")
    assert message.startswith("step 3 of 4 (linear to (0.02, -0.15, 0.06) m"), message
    assert "cannot be planned from the end of step 2" in message
    # The refused step is marked in the list; nothing moved.
    assert page.locator("#sequence-status").get_attribute("data-step") == "3"
    assert page.locator("#steps li.failed").count() == 1
    assert page.locator("#steps li.failed").get_attribute("data-step") == "3"
    assert np.array_equal(observer.at_rest(), before)
    screenshot(page, "page-teach-refused.png")


def test_a_sequence_written_in_yaml_is_loaded_to_run_by_name_and_cancel_stops_it(
    page: Page, observer: Observer, config_file: Path
) -> None:
    # The shipped example, put in the sequences' directory by hand (YAML with comments: the
    # page shows its text and runs it by its name, it does not edit it).
    directory = config_file.with_name("arm_desk_kit.sequences")
    shutil.copy(EXAMPLE, directory / "example.yaml")
    page.click("#sequence-refresh")
    page.wait_for_selector('#saved-sequences option[value="example"]', state="attached")
    page.select_option("#saved-sequences", "example")
    page.click("#sequence-load")
    page.wait_for_selector('#sequence-status[data-status="LOADED"]')
    assert "run it by its name" in page.locator("#sequence-message").inner_text()
    assert page.locator("#steps li").count() == 0
    assert page.locator("#sequence-text").inner_text() == EXAMPLE.read_text()
    # Run it, and cancel it once it moves: it stops short, in the step it was in.
    page.click("#sequence-run")
    page.wait_for_selector('#sequence-status[data-status="MOVING"]', timeout=RUN_TIMEOUT_MS)
    assert page.locator("#sequence-cancel").is_enabled()
    page.click("#sequence-cancel")
    message = sequence_ends(page, "CANCELED")
    assert re.match(r"step \d+ of 10 \(", message), message
    assert "canceled" in message
    assert page.locator("#sequence-cancel").is_disabled()
    assert page.locator("#sequence-run").is_enabled()
    observer.at_rest()
    # Delete it: gone from the list and the directory.
    page.select_option("#saved-sequences", "example")
    page.click("#sequence-delete")
    page.wait_for_selector('#saved-sequences option[value="example"]', state="detached")
    assert not (directory / "example.yaml").exists()
    assert (directory / "pick.yaml").exists()


def test_the_live_pose_is_written_in_the_programs_angles(page: Page, stack: Stack) -> None:
    """teach_program.js's typedPose (the page's edge conversion of compute_fk's tool pose into
    pitch and roll) gives the core's outward angles (kinematics/spatial/model.py), over the
    back and straight down too; a planar tool rotation gives its heading."""
    rng = np.random.default_rng(24)
    low, high = np.array(CONFIG.joint_limits).T
    samples = [rng.uniform(low, high) for _ in range(20)]
    samples.append(np.radians([30.0, 60.0, -60.0, -90.0, 45.0]))  # straight down, rolled
    samples.append(np.radians([-20.0, 80.0, 10.0, 80.0, -120.0]))  # over the back
    cases = []
    for joints in samples:
        tool = stack.arm.forward(joints)
        w, x, y, z = transforms3d.quaternions.mat2quat(tool.rotation)
        tip = {
            "position": dict(zip("xyz", tool.position, strict=True)),
            "orientation": {"x": x, "y": y, "z": z, "w": w},
        }
        cases.append((tip, math.degrees(tool.pitch), math.degrees(tool.roll)))
    poses = page.evaluate(
        """async (tips) => { const { typedPose } = await import('./teach_program.js');
             const arm = { spatial: true, pitch: true, roll: true };
             return tips.map((tip) => typedPose(tip, arm)); }""",
        [tip for tip, _, _ in cases],
    )
    for (tip, pitch_deg, roll_deg), pose in zip(cases, poses, strict=True):
        assert pose["x_m"] == pytest.approx(tip["position"]["x"], abs=5e-5)
        assert pose["z_m"] == pytest.approx(tip["position"]["z"], abs=5e-5)
        assert pose["pitch_deg"] == pytest.approx(pitch_deg, abs=0.005), pose
        turn = (pose["roll_deg"] - roll_deg + 180.0) % 360.0 - 180.0
        assert turn == pytest.approx(0.0, abs=0.005), pose
    planar = page.evaluate(
        """async () => { const { typedPose } = await import('./teach_program.js');
             const h = -2.5, tip = { position: { x: 0.1, y: -0.05, z: 0 },
               orientation: { x: 0, y: 0, z: Math.sin(h / 2), w: Math.cos(h / 2) } };
             return [typedPose(tip, { spatial: false, heading: true }),
                     typedPose(tip, { spatial: false, heading: false })]; }"""
    )
    assert planar == [
        {"x_m": 0.1, "y_m": -0.05, "heading_deg": round(math.degrees(-2.5), 2)},
        {"x_m": 0.1, "y_m": -0.05},
    ]


def test_the_teach_box_fits_a_phone_and_runs_a_sequence_there(
    browser, stack: Stack, observer: Observer
) -> None:
    width = 390
    page = open_teach_page(browser, stack.url, width, 844)
    page.locator("#teach").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    rightmost = page.evaluate(
        """() => Math.max(...[...document.querySelectorAll('#teach *')]
             .filter((e) => e.getClientRects().length)
             .map((e) => e.getBoundingClientRect().right))"""
    )
    assert rightmost <= width
    page.select_option("#step-source", "home")
    page.click("#add-move")
    page.select_option("#step-source", "above_part")
    page.click("#add-move")
    page.click("#add-grip")  # the gripper box's position: its slider, open until a goal moves it
    assert page.locator("#steps li").nth(2).inner_text().startswith("gripper to 55.0 mm")
    for selector in ("#pose-save", "#add-move", "#add-grip", "#sequence-run", "#steps li button"):
        box = page.locator(selector).first.bounding_box()
        assert box["x"] >= 0, selector
        assert box["x"] + box["width"] <= width, selector
    page.click("#sequence-run")
    assert "ran its 3 steps" in sequence_ends(page, "SUCCEEDED")
    wait_for(
        lambda: abs(observer.joints([GRIPPER.name])[0] - GRIPPER.open_angle) < 1e-3,
        what="the gripper open",
    )
    screenshot(page, "page-teach-390x844.png")
    assert page.errors == []
    page.close()
