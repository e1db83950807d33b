"""MoveArm with a node missing or failing, and on an arm whose joints turn all the way round.

Each test builds its own graph (no other graph of this process is alive meanwhile: two graphs in
one ROS domain would answer each other's goals and services).
"""

from __future__ import annotations

import math
import threading

import pytest
from arm_2r import CONFIG, L1, L2, NAMES, first_index, line_points, tip_of
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.parameter import Parameter
from ros_helpers import ros_graph, wait_for
from sensor_msgs.msg import JointState
from trajectory_harness import Harness, Result, goal, make_nodes

from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik.batch import solve_ik_batch
from arm_kinematics.nodes.ik.requests import IkSetup
from arm_kinematics.nodes.messages import joint_state
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch


def test_ik_node_absent_or_silent_gives_ik_unavailable_within_the_timeout():
    timeout = 1.0
    with ros_graph() as graph:
        make_nodes(graph, ik=False, overrides=[("trajectory.ik_timeout_s", timeout)])
        harness = Harness(graph, None)
        harness.latest_joints()
        outcome = harness.run(goal(0.12, 0.05))
        assert outcome.result.status == Result.IK_UNAVAILABLE
        assert "'/solve_ik_batch' was not found within ik_timeout_s = 1 s" in outcome.result.message
        assert timeout <= outcome.elapsed < timeout + 5.0
        assert outcome.commands == []

        # A server that is there but never answers: a node with the service that nobody spins
        # (its requests arrive and are never taken). The same status, never a hang.
        silent = Node("silent_ik", context=graph.context)
        try:
            silent.create_service(SolveIKBatch, "solve_ik_batch", lambda request, response: None)
            probe = harness.node.create_client(SolveIKBatch, "solve_ik_batch")
            wait_for(probe.service_is_ready, what="the silent service discovered")
            outcome = harness.run(goal(0.12, 0.05))
            assert outcome.result.status == Result.IK_UNAVAILABLE
            assert "did not answer within ik_timeout_s = 1 s" in outcome.result.message
            assert timeout <= outcome.elapsed < timeout + 5.0
            assert outcome.commands == []
        finally:
            silent.destroy_node()


def test_a_dropped_ik_answer_is_asked_for_again_and_the_goal_succeeds():
    # As when Fast DDS drops a response (ros2/rmw_fastrtps#842): the IK service holds back its
    # answer to the goal's first batch until the request comes again. The trajectory node sends
    # it again (call_idempotent) after 1 s, well within ik_timeout_s = 5 s, and the goal
    # succeeds; without the resend it would end IK_UNAVAILABLE after 5 s. The service is the
    # IK node's own plain part (nodes/ik/batch.py) behind a test server.
    release = threading.Event()
    served: list[int] = []
    setup = IkSetup.from_config(CONFIG)

    def serve(request, response):
        served.append(len(served))
        if served[-1] == 0:
            release.wait(30.0)  # the answer nobody waits for any more, once the resend came
        else:
            release.set()
        solve_ik_batch(setup, request, response, None)
        return response

    with ros_graph() as graph:
        make_nodes(graph, ik=False)
        server = graph.node("held_ik")
        server.create_service(
            SolveIKBatch, "solve_ik_batch", serve, callback_group=ReentrantCallbackGroup()
        )
        harness = Harness(graph, None)
        try:
            start = harness.latest_joints()
            outcome = harness.run(goal(0.12, 0.05))
        finally:
            release.set()
        assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
        assert len(served) >= 2  # the held request and the one sent again (and the setpoints')
        assert tip_of(outcome.commands[-1].position) == pytest.approx((0.12, 0.05), abs=1e-9)
        assert tip_of(start) != pytest.approx((0.12, 0.05), abs=1e-3)  # it did move


def test_no_joint_states_gives_no_joint_state_and_a_silent_hardware_gives_hardware_fault():
    with ros_graph() as graph:
        nodes = make_nodes(
            graph, hardware=False, overrides=[("trajectory.joint_state_timeout_s", 0.5)]
        )
        harness = Harness(graph, None)
        outcome = harness.run(goal(0.12, 0.05))
        assert outcome.result.status == Result.NO_JOINT_STATE
        assert "joint_states" in outcome.result.message
        assert outcome.commands == []

        hardware = graph.add(
            HardwareNode(
                context=graph.context,
                parameter_overrides=[Parameter("trajectory.joint_state_timeout_s", value=0.5)],
            )
        )
        harness.latest_joints()
        feedback: list = []
        handle = harness.send(goal(0.12, 0.09, speed=0.02), feedback=lambda m: feedback.append(m))
        wait_for(lambda: len(feedback) >= 5, what="goal streaming")
        graph.remove(hardware)  # joint_states stop
        response = harness.wait_result(handle)
        assert response.result.status == Result.HARDWARE_FAULT, response.result.message
        assert "joint_states stopped" in response.result.message
        last = harness.commands_through(response.result, 0)[-1]
        assert list(response.result.final_joints.position) == list(last.position)
        assert nodes["trajectory"].last_timing.publish_times  # it had been streaming


def test_an_arm_that_never_arrives_gives_hardware_fault_after_the_timeout():
    # Fresh joint_states that stay at the start, as from a hardware node refusing the commands.
    timeout = 0.5
    with ros_graph() as graph:
        make_nodes(graph, hardware=False, overrides=[("trajectory.joint_state_timeout_s", timeout)])
        stuck = graph.node("stuck_hardware")
        states = stuck.create_publisher(JointState, "joint_states", 10)
        stuck.create_timer(0.04, lambda: states.publish(joint_state(NAMES, CONFIG.home)))
        harness = Harness(graph, None)
        harness.latest_joints()
        outcome = harness.run(goal(0.14, 0.07))
        result = outcome.result
        assert result.status == Result.HARDWARE_FAULT, result.message
        held = ", ".join(f"{math.degrees(q):.2f}" for q in CONFIG.home)
        assert "did not reach the last setpoint" in result.message
        assert f"within {timeout:g} s (joint_states: ({held}) deg)" in result.message
        assert outcome.commands  # it streamed the whole line first
        assert list(result.final_joints.position) == list(outcome.commands[-1].position)
        assert outcome.elapsed >= timeout


def test_a_line_through_the_hole_of_the_ring_aborts_at_the_first_step_inside_it():
    # An arm whose joints turn +-180 deg, so the only unreachable place inside the ring is the
    # hole itself (r < L1 - L2 = 0.02 m). Servos of 360 deg centred at 180 deg.
    overrides = []
    for joint in NAMES:
        overrides += [
            (f"joints.{joint}.min_deg", -180.0),
            (f"joints.{joint}.max_deg", 180.0),
            (f"joints.{joint}.servo.offset_deg", 180.0),
            (f"joints.{joint}.servo.max_deg", 360.0),
            (f"joints.{joint}.servo.actuation_range_deg", 360.0),
        ]
    with ros_graph() as graph:
        nodes = make_nodes(graph, overrides=overrides)
        harness = Harness(graph, nodes["hardware"])
        start = harness.move_to(0.1, 0.01)
        target = (-0.1, 0.01)
        points = line_points(tip_of(start), target)
        expected = first_index(points, lambda p: math.hypot(*p) < L1 - L2)
        assert all(abs(math.hypot(*p) - (L1 - L2)) > 5e-5 for p in points)  # no edge cases
        accepted = harness.hardware.counters.commands_accepted
        before = harness.command_count()
        outcome = harness.run(goal(*target))
        result = outcome.result
        assert result.status == Result.IK_FAILED, result.message
        assert result.ik_status == SolveIK.Response.TOO_CLOSE
        # 0.2 m from rest to rest at 0.05 m/s: 209 setpoints, each a planned point; the 87th
        # is the first in the hole, 81.75 mm along.
        assert (result.failed_step, result.total_steps) == (expected, len(points)) == (86, 209)
        assert result.feasible_fraction == pytest.approx(math.dist(tip_of(start), points[85]) / 0.2)
        harness.assert_no_command_after(before)
        assert harness.hardware.counters.commands_accepted == accepted
