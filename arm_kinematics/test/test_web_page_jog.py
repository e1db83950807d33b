"""The page jogs the arm: keys, the jog box's buttons, a gamepad, and the one STOP, in Chromium
against a running bringup (the default 2R arm, simulated servos) and its web bridge.

What moved is read from the ROS graph (joint_states, and every twist the bridge published, by an
rclpy node in this process) and from the page (window.armStats.jog, the live arm it draws). The
gamepad is navigator.getGamepads() stubbed before the page loads. Waits are for conditions (a
distance travelled, the arm at rest, the page's own ticks), never sleeps. The module's page is
shared; each test starts with nothing held and the arm at rest in the middle of its band.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import pytest
from ros_helpers import PACKAGE_DIR, ros_graph, wait_for
from web_jog import (
    GAMEPAD_STUB,
    ArmWatch,
    drawn_tip_near,
    focus_jog_keys,
    jog_stats,
    wait_ticks,
)
from web_stack import (
    Page,
    Stack,
    answers_drawn,
    headless_chromium,
    open_page,
    pixel_of,
    screenshot,
    type_target,
    wait_for_answer_at,
)

pytestmark = pytest.mark.ros

SPEED_M_S = 0.03  # the speed slider's default: 30 % of moveit_servo.scale.linear (0.1 m/s)
# After the page lets go at 3 cm/s, the tool may still go: the zero twist's way through the
# bridge (or, were it lost, the jog's 0.1 s command timeout) and the braking at 0.3 m/s^2
# (1.5 mm). 15 mm is half a second at full speed: a bound, not a measure.
LET_GO_TRAVEL_M = 0.015
COMMAND_PERIOD_S = 0.02  # the arm's trajectory.command_rate_hz: 50 Hz


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with headless_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    stack = Stack(PACKAGE_DIR / "config" / "arm.yaml")
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def watch(stack: Stack) -> Iterator[ArmWatch]:
    with ros_graph() as graph:
        yield ArmWatch(graph, stack)


@pytest.fixture(scope="module")
def page(browser, stack: Stack, watch: ArmWatch) -> Iterator[Page]:
    page = open_page(browser, stack.url, init_script=GAMEPAD_STUB)
    page.wait_for_selector("#jog-x-plus")
    watch.wait_bridge_publisher()  # advertised as the page connected
    yield page
    assert page.errors == []
    page.close()


@pytest.fixture(autouse=True)
def from_the_middle_of_the_band(page: Page, watch: ArmWatch) -> None:
    """Each test starts from a state of its own making: no key, button or pad held, the default
    speed, the arm at rest in the middle of its reachable band (home is near full stretch),
    where the keys have room to move it a few centimetres either way."""
    for key in ("ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "q", "e"):
        page.keyboard.up(key)
    page.mouse.up()
    set_pad(page, a0=0.0, a1=0.0, b4=0.0)
    set_speed(page, 30)
    move_to(page, ("15", "0"))
    page.wait_for_selector('#move-status[data-status="SUCCEEDED"]')
    watch.wait_at_rest()


def direction_degrees(start, end, expected: tuple[float, float]) -> float:
    """The angle (degrees) between the motion start -> end (x, y) and `expected`."""
    motion = (end[0] - start[0], end[1] - start[1])
    cos = (motion[0] * expected[0] + motion[1] * expected[1]) / math.hypot(*motion)
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


def test_keys_in_a_field_type_and_jog_nothing(page: Page, watch: ArmWatch) -> None:
    start = watch.wait_at_rest()
    page.focus("#target-x")
    assert "keys-active" not in page.locator(".tool-jog").get_attribute("class")
    assert "Keys off" in page.locator("#jog-keys-state").inner_text()
    sent = jog_stats(page)["sent"]
    page.keyboard.down("ArrowDown")
    wait_ticks(page, 10)
    page.keyboard.up("ArrowDown")
    assert jog_stats(page)["sent"] == sent
    assert watch.wait_at_rest() == start


def test_a_held_arrow_key_moves_the_live_arm_and_key_up_stops_it(
    page: Page, watch: ArmWatch
) -> None:
    start = watch.tool(watch.wait_at_rest())
    start_pixel = pixel_of(page, *start)
    drawn_tip_near(page, start_pixel)
    focus_jog_keys(page)
    assert "Keys on" in page.locator("#jog-keys-state").inner_text()
    sent, received = jog_stats(page)["sent"], watch.twist_count()
    page.keyboard.down("ArrowDown")
    assert "held" in page.locator("#jog-y-minus").get_attribute("class").split()
    moved = watch.wait_moved(start, 0.01)
    assert direction_degrees(start, moved, (0.0, -1.0)) < 5.0  # along -y, in the base frame
    # The drawn live arm follows joint_states.
    page.wait_for_function(
        """([x, y]) => { const t = document.getElementById('live-tip').getBoundingClientRect();
             return Math.hypot(t.x + t.width / 2 - x, t.y + t.height / 2 - y) > 10; }""",
        arg=list(start_pixel),
    )
    at_key_up = watch.tool()
    page.keyboard.up("ArrowDown")
    rest = watch.tool(watch.wait_at_rest())
    assert math.dist(rest, at_key_up) < LET_GO_TRAVEL_M
    drawn_tip_near(page, pixel_of(page, *rest))
    # Every twist went through the bridge (none dropped by its rate limit), at the slider's
    # speed in the base frame, and the last one is the zero sent on key-up.
    stats = jog_stats(page)
    wait_for(
        lambda: watch.twist_count() - received == stats["sent"] - sent,
        what="every twist the page sent",
    )
    twists = watch.twists[received:]
    moving = [t for t in twists if t.twist.linear.y != 0.0]
    assert len(moving) >= 10
    for twist in moving:
        assert twist.header.frame_id == "base_link"
        assert twist.twist.linear.y == pytest.approx(-SPEED_M_S)
        assert (twist.twist.linear.x, twist.twist.linear.z) == (0.0, 0.0)
    last = twists[-1].twist
    assert (last.linear.x, last.linear.y, last.angular.z) == (0.0, 0.0, 0.0)
    assert "held" not in page.locator("#jog-y-minus").get_attribute("class").split()


def test_the_keys_are_shown_on_the_page(page: Page) -> None:
    # A planar arm's keys, each a button with its key's cap and what it does.
    caps = page.locator("#jog-pad .jog-key kbd").all_inner_texts()
    words = page.locator("#jog-pad .jog-key small").all_inner_texts()
    assert list(zip(caps, words, strict=True)) == [
        ("↑", "+y"),
        ("←", "−x"),
        ("→", "+x"),
        ("↓", "−y"),
        ("Q", "ccw"),
        ("E", "cw"),
    ]
    assert page.locator("#jog-x-plus").get_attribute("title") == "ArrowRight: x +x"
    assert "Esc" in page.locator("#stop").inner_text()
    page.focus("#target-x")
    assert "click the drawing or this box" in page.locator("#jog-keys-state").inner_text()
    focus_jog_keys(page)
    assert page.locator("#jog-keys-state").inner_text() == (
        "Keys on: arrows move x, y; Q/E heading; Esc stops everything."
    )


def test_a_planar_arm_has_no_z_and_a_2r_arm_says_it_cannot_turn_its_tool(
    page: Page, watch: ArmWatch
) -> None:
    assert page.locator(".jog-group-z").count() == 0
    assert page.locator(".jog-group-pitch").count() == 0
    assert page.locator(".jog-group-turn .jog-group-label").inner_text() == "heading"
    start = watch.wait_at_rest()
    focus_jog_keys(page)
    page.keyboard.down("q")
    page.wait_for_function(
        "document.getElementById('jog-message').textContent.includes('dropped: the turn about z')"
    )
    page.keyboard.up("q")
    rest = watch.wait_at_rest()
    assert max(abs(a - b) for a, b in zip(rest, start, strict=True)) < 1e-6


LET_GO = {
    "the focus moves to a field": lambda page: page.focus("#target-y"),
    "the window loses focus": lambda page: page.evaluate("window.dispatchEvent(new Event('blur'))"),
    "the tab is hidden": lambda page: page.evaluate(
        """() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
                   document.dispatchEvent(new Event('visibilitychange'));
                   delete document.hidden; }"""
    ),
}


@pytest.mark.parametrize("cause", list(LET_GO))
def test_losing_the_focus_stops_the_jog_until_the_key_is_pressed_again(
    page: Page, watch: ArmWatch, cause: str
) -> None:
    let_go: Callable[[Page], object] = LET_GO[cause]
    start = watch.tool(watch.wait_at_rest())
    focus_jog_keys(page)
    page.keyboard.down("ArrowUp")
    watch.wait_moved(start, 0.005)
    at_let_go = watch.tool()
    let_go(page)
    rest = watch.tool(watch.wait_at_rest())
    assert math.dist(rest, at_let_go) < LET_GO_TRAVEL_M
    assert jog_stats(page)["letGo"][-1] in (
        "the focus left the drawing and the jog box",
        "the window lost focus",
        "the page was hidden",
    )
    # The key is still down: its repeats move nothing until it is pressed again.
    focus_jog_keys(page)
    sent = jog_stats(page)["sent"]
    page.keyboard.down("ArrowUp")  # a repeat (KeyboardEvent.repeat)
    wait_ticks(page, 10)
    assert jog_stats(page)["sent"] == sent
    page.keyboard.up("ArrowUp")


def set_pad(page: Page, **values: float) -> None:
    """The stubbed gamepad: axes by index (`a1=-1.0`), buttons by index (`b4=1.0`)."""
    for key, value in values.items():
        index = int(key[1:])
        if key[0] == "a":
            page.evaluate(f"window.testPad.axes[{index}] = {value}")
        else:
            page.evaluate(
                f"window.testPad.buttons[{index}] = "
                f"{{pressed: {str(value > 0.5).lower()}, touched: {str(value > 0).lower()}, "
                f"value: {value}}}"
            )


def test_a_gamepad_jogs_only_with_its_dead_man_button_held(page: Page, watch: ArmWatch) -> None:
    start_joints = watch.wait_at_rest()
    start = watch.tool(start_joints)
    sent = jog_stats(page)["sent"]
    # The left stick pushed down, the dead-man (left shoulder, button 4) not held: nothing.
    set_pad(page, a1=1.0)
    wait_ticks(page, 25)
    assert jog_stats(page)["pad"] == "released"
    assert "hold LB" in page.locator("#jog-gamepad").inner_text()
    assert jog_stats(page)["sent"] == sent
    # Held, the stick inside its dead zone: nothing.
    set_pad(page, a1=0.1, b4=1.0)
    wait_ticks(page, 25)
    assert jog_stats(page)["pad"] == "held"
    assert jog_stats(page)["sent"] == sent
    assert watch.wait_at_rest() == start_joints
    # Pushed down with the dead-man held: the tool moves along -y at the slider's speed.
    received = watch.twist_count()
    set_pad(page, a1=1.0)
    moved = watch.wait_moved(start, 0.01)
    assert direction_degrees(start, moved, (0.0, -1.0)) < 5.0
    assert watch.twists[received].twist.linear.y == pytest.approx(-SPEED_M_S)
    # The dead-man let go: it stops, the stick still pushed.
    at_release = watch.tool()
    set_pad(page, b4=0.0)
    rest = watch.tool(watch.wait_at_rest())
    assert math.dist(rest, at_release) < LET_GO_TRAVEL_M
    wait_ticks(page, 10)
    assert jog_stats(page)["last"]["linear"] == {"x": 0, "y": 0, "z": 0}
    set_pad(page, a1=0.0)


def set_speed(page: Page, percent: int) -> None:
    page.locator("#jog-speed").fill(str(percent))
    assert page.locator("#jog-speed-value").inner_text() == f"{percent} %"


def jog_speed(page: Page, watch: ArmWatch, hold, release) -> tuple[float, float]:
    """Hold a key or button (`hold(page)`) until the tool has gone 30 mm, then let go; the
    twists' linear speed and the tool's speed past its first 10 mm (the jog's acceleration to
    6 cm/s takes 6 mm), each step of joint_states over one command period (m/s)."""
    start = watch.tool(watch.wait_at_rest())
    received, states = watch.twist_count(), watch.state_count()
    hold(page)
    watch.wait_moved(start, 0.03)
    release(page)
    watch.wait_at_rest()
    commanded = {
        round(math.hypot(t.twist.linear.x, t.twist.linear.y), 9)
        for t in watch.twists[received:]
        if t.twist.linear.x or t.twist.linear.y
    }
    assert len(commanded) == 1, commanded
    return commanded.pop(), watch.tool_step(states, start, 0.01, 0.025) / COMMAND_PERIOD_S


def test_the_speed_slider_scales_the_jog(page: Page, watch: ArmWatch) -> None:
    set_speed(page, 60)
    assert page.locator("#jog-speed").get_attribute("title") == "6.0 cm/s, 34°/s at most"
    focus_jog_keys(page)
    commanded, measured = jog_speed(
        page,
        watch,
        lambda p: p.keyboard.down("ArrowDown"),
        lambda p: p.keyboard.up("ArrowDown"),
    )
    assert commanded == pytest.approx(0.06)
    assert measured == pytest.approx(0.06, rel=0.1)
    # The default 30 %, and the pad's button held with the mouse: half as fast, back up.
    set_speed(page, 30)
    button = page.locator("#jog-y-plus").bounding_box()
    page.mouse.move(button["x"] + button["width"] / 2, button["y"] + button["height"] / 2)
    slow_commanded, slow_measured = jog_speed(
        page, watch, lambda p: p.mouse.down(), lambda p: p.mouse.up()
    )
    assert slow_commanded == pytest.approx(SPEED_M_S)
    assert slow_measured == pytest.approx(SPEED_M_S, rel=0.1)


def move_to(page: Page, target_cm: tuple[str, str]) -> tuple[float, float]:
    """Type the target (cm), wait for its answer, send a joint move ("Joints here"); the target
    in metres."""
    before = answers_drawn(page)
    type_target(page, x=target_cm[0], y=target_cm[1])
    target = (float(target_cm[0]) / 100, float(target_cm[1]) / 100)
    wait_for_answer_at(page, *target, after=before)
    page.click("#move-joints")
    return target


def goal_stopped_by(page: Page, watch: ArmWatch, target_cm: tuple[str, str], stop) -> None:
    """A joint move to `target_cm` started from the page, then `stop(page)`: the goal ends
    PREEMPTED by the stop service, the arm at rest short of the target."""
    answers = jog_stats(page)["stopAnswers"]
    target = move_to(page, target_cm)
    page.wait_for_selector('#move-status[data-status="MOVING"]')
    stop(page)
    page.wait_for_selector('#move-status[data-status="PREEMPTED"]')
    assert "stopped by the stop service" in page.locator("#move-message").inner_text()
    page.wait_for_function(f"window.armStats.jog.stopAnswers > {answers}")
    assert math.dist(watch.tool(watch.wait_at_rest()), target) > 0.01


def test_the_stop_button_and_escape_end_a_jog_and_a_goal(page: Page, watch: ArmWatch) -> None:
    stops, answers = jog_stats(page)["stops"], jog_stats(page)["stopAnswers"]
    # A jog: Escape while the key is held; the key moves nothing until pressed again.
    start = watch.tool(watch.wait_at_rest())
    focus_jog_keys(page)
    page.keyboard.down("ArrowRight")
    watch.wait_moved(start, 0.005)
    at_stop = watch.tool()
    page.keyboard.press("Escape")
    rest = watch.tool(watch.wait_at_rest())
    assert math.dist(rest, at_stop) < LET_GO_TRAVEL_M
    assert jog_stats(page)["stops"] == stops + 1
    sent = jog_stats(page)["sent"]
    page.keyboard.down("ArrowRight")  # a repeat
    wait_ticks(page, 10)
    assert jog_stats(page)["sent"] == sent
    page.keyboard.up("ArrowRight")
    # After STOP the page let its stream go (a zero twist): a new press jogs at once.
    page.keyboard.down("ArrowLeft")
    watch.wait_moved(rest, 0.005)
    page.keyboard.up("ArrowLeft")
    # The STOP button during the gamepad's jog: the stop service stops the jog, and the pad,
    # its dead-man and stick still held, moves nothing until the dead-man is pressed again.
    start = watch.tool(watch.wait_at_rest())
    set_pad(page, a0=-1.0, b4=1.0)
    watch.wait_moved(start, 0.005)
    at_stop = watch.tool()
    page.click("#stop")
    page.wait_for_function(f"window.armStats.jog.stopAnswers >= {answers + 2}")
    assert jog_stats(page)["stopMessage"] == "stopped: jog"
    rest = watch.tool(watch.wait_at_rest())
    assert math.dist(rest, at_stop) < LET_GO_TRAVEL_M
    sent = jog_stats(page)["sent"]
    wait_ticks(page, 10)
    assert jog_stats(page)["pad"] == "waiting"
    assert jog_stats(page)["sent"] == sent
    set_pad(page, b4=0.0)
    wait_ticks(page, 2)
    set_pad(page, b4=1.0)
    watch.wait_moved(rest, 0.005)
    set_pad(page, a0=0.0, b4=0.0)
    watch.wait_at_rest()
    screenshot(page, "page-jog-2r.png")
    # Goals: the button, and Escape from anywhere on the page (a number field too).
    goal_stopped_by(page, watch, ("-2", "-14"), lambda p: p.click("#stop"))
    goal_stopped_by(page, watch, ("14", "8"), lambda p: p.press("#target-x", "Escape"))
    assert jog_stats(page)["stops"] == stops + 4
