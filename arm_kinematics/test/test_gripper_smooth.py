"""The gripper's motion as `joint_states` shows it (hardware_node on sim, the desk kit's gripper:
120 deg/s, 480 deg/s^2), through the GripperCommand action: a goal, a cancel's brake and a goal
that replaces a running one start and end at rest, with velocity and acceleration (finite
differences at the stamps of joint_states) within the joint's limits.

A tick that came more than MAX_STEP_PERIODS late (a loaded machine) is where the node makes
the motion slower rather than jump: the acceleration is checked over every three samples whose
two intervals are shorter than that (most of them; the test says how many).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import pytest
from action_msgs.msg import GoalStatus
from desk_kit import CONFIG as KIT
from desk_kit import CONFIG_FILE as KIT_PATH
from hardware_probe import GripperProbe, start_node_from_file
from plain_parts import SLACK, differences
from ros_helpers import RosGraph, ros_graph, wait_for

from arm_kinematics.hardware.driver import MAX_STEP_PERIODS

pytestmark = pytest.mark.ros

D = math.radians
JOINT = KIT.gripper.joint
PERIOD_S = 1.0 / KIT.hardware.publish_rate_hz


@pytest.fixture
def graph() -> Iterator[RosGraph]:
    with ros_graph() as graph:
        yield graph


def gripper_samples(probe: GripperProbe, since: int, until: int) -> list[tuple[float, float]]:
    """(stamp in s from the first, gripper joint in rad) of the joint_states messages from
    `since` to `until` (counted in whole nanoseconds: a float of seconds since 1970 keeps only
    ~0.2 us, 1e-5 of a period)."""
    with probe.lock:
        states = probe.states[since:until]
    stamps = [m.header.stamp.sec * 10**9 + m.header.stamp.nanosec for m in states]
    return [
        ((ns - stamps[0]) * 1e-9, m.position[m.name.index("gripper")])
        for ns, m in zip(stamps, states, strict=True)
    ]


def assert_smooth(
    samples: list[tuple[float, float]], max_velocity: float = JOINT.max_velocity
) -> None:
    """Velocity within the limit everywhere, acceleration over every three samples of regular
    ticks, and at rest at both ends (the same position twice at the start and at the end)."""
    velocities, accelerations = differences(samples)
    assert max(abs(v) for v in velocities) <= max_velocity * (1 + SLACK)
    regular = [
        a
        for i, a in enumerate(accelerations)
        if max(samples[i + 2][0] - samples[i + 1][0], samples[i + 1][0] - samples[i][0])
        < 0.95 * MAX_STEP_PERIODS * PERIOD_S
    ]
    assert len(regular) >= 0.8 * len(accelerations), "too many late ticks to judge"
    assert max(abs(a) for a in regular) <= JOINT.max_acceleration * (1 + SLACK)
    assert samples[0][1] == samples[1][1]
    assert samples[-2][1] == samples[-1][1]
    moving = [i for i, v in enumerate(velocities) if v != 0.0]
    for i in (moving[0], moving[-1]):  # from and to rest: no faster than the acceleration allows
        interval = samples[i + 1][0] - samples[i][0]
        assert abs(velocities[i]) <= JOINT.max_acceleration * interval * (1 + SLACK)


def wait_still(probe: GripperProbe, node, count: int = 5) -> int:
    """Until the gripper has stood still for `count` joint_states; their count then."""
    wait_for(lambda: not node.driver.gripper_moving, what="the gripper at rest")
    start = probe.count()
    wait_for(lambda: probe.count() >= start + count, what=f"{count} joint_states at rest")
    return probe.count()


def test_a_goal_starts_and_ends_at_rest_within_the_limits(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH)
    probe = GripperProbe(graph)
    since = max(0, wait_still(probe, node) - 3)
    answer = probe.result(probe.send_gripper(0.0))
    assert answer.status == GoalStatus.STATUS_SUCCEEDED
    samples = gripper_samples(probe, since, wait_still(probe, node))
    assert samples[0][1] == pytest.approx(D(70.0))
    assert samples[-1][1] == 0.0
    assert_smooth(samples)
    # It took at least the profile's time: 70 deg with 0.25 s to and from 120 deg/s.
    started = next(t for (t, p), (_, q) in itertools.pairwise(samples) if q != p)
    ended = next(t for t, p in samples if p == 0.0)
    assert ended - started >= 0.25 + 40 / 120 + 0.25 - 2 * PERIOD_S


def closing(graph: RosGraph):
    """A kit whose gripper (40 deg/s: a cancel's round trip is long gone before it is closed)
    stood still, then began to close: (node, probe, joint_states count before, goal handle)."""
    node = start_node_from_file(graph, KIT_PATH, **{"joints.gripper.max_velocity_deg_s": 40.0})
    probe = GripperProbe(graph)
    since = max(0, wait_still(probe, node) - 3)
    handle = probe.send_gripper(0.0)
    wait_for(lambda: probe.latest()["gripper"] < D(60.0), what="closing at speed")
    return node, probe, since, handle


def test_a_cancel_brakes_within_the_limits_and_ends_where_it_stopped(graph: RosGraph) -> None:
    node, probe, since, handle = closing(graph)
    handle.cancel_goal_async()
    answer = probe.result(handle)
    assert answer.status == GoalStatus.STATUS_CANCELED
    held = node.positions[-1]
    assert node.targets[-1] == held  # at rest where the brake ended
    assert not node.driver.gripper_moving
    assert 0.0 < held < D(60.0)
    assert answer.result.position == pytest.approx(0.055 * held / D(70), abs=1e-9)
    samples = gripper_samples(probe, since, wait_still(probe, node))
    assert samples[-1][1] == held
    assert_smooth(samples, max_velocity=D(40.0))


def test_a_goal_that_replaces_a_running_one_turns_within_the_limits(graph: RosGraph) -> None:
    node, probe, since, first = closing(graph)
    second = probe.send_gripper(0.055)  # open again
    assert probe.result(first).status == GoalStatus.STATUS_ABORTED
    assert probe.result(second).status == GoalStatus.STATUS_SUCCEEDED
    samples = gripper_samples(probe, since, wait_still(probe, node))
    assert samples[-1][1] == D(70.0)
    assert min(p for _, p in samples) < D(60.0)
    assert_smooth(samples, max_velocity=D(40.0))
