"""The IK node's RViz markers (`ik_markers`): the reachable ring and the last request."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_helpers import RosGraph, ros_graph, wait_for
from visualization_msgs.msg import Marker, MarkerArray

from arm_kinematics.nodes.ik.markers import (
    GREEN,
    RED,
    YELLOW,
    request_markers,
    status_colour,
    workspace_markers,
)
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics_interfaces.srv import SolveIK

pytestmark = pytest.mark.ros

LATCHED = QoSProfile(
    depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)


def by_key(array: MarkerArray) -> dict[tuple[str, int], Marker]:
    return {(m.ns, m.id): m for m in array.markers}


def rgba(colour) -> tuple[float, float, float, float]:
    return (colour.r, colour.g, colour.b, colour.a)


# --- the builders --------------------------------------------------------------------------------


def test_workspace_markers_are_the_ring_and_a_clickable_disc() -> None:
    markers = by_key(workspace_markers(0.02, 0.18, frame_id="base_link", z=0.0))
    outer, inner, disc = markers["workspace", 0], markers["workspace", 1], markers["workspace", 2]
    assert outer.type == inner.type == Marker.LINE_STRIP
    assert all(math.hypot(p.x, p.y) == pytest.approx(0.18) for p in outer.points)
    assert all(math.hypot(p.x, p.y) == pytest.approx(0.02) for p in inner.points)
    assert outer.points[0].x == pytest.approx(outer.points[-1].x)  # closed
    assert disc.type == Marker.CYLINDER
    assert disc.scale.x == disc.scale.y == pytest.approx(0.36)
    assert 0 < disc.scale.z <= 0.002  # flat
    assert 0 < disc.color.a < 0.5  # translucent
    assert all(m.header.frame_id == "base_link" for m in markers.values())
    # An arm without a hole (equal links) draws no inner circle.
    no_hole = by_key(workspace_markers(0.0, 0.2, frame_id="base_link", z=0.0))
    assert no_hole["workspace", 1].action == Marker.DELETE


def test_status_colours() -> None:
    assert status_colour("OK") is GREEN
    assert status_colour("SINGULAR") is YELLOW
    for refused in ("TOO_FAR", "WRONG_FRAME", "INVALID_INPUT", "JOINT_LIMIT"):
        assert status_colour(refused) is RED


def test_request_markers_without_a_drawable_target_delete_the_old_ones() -> None:
    markers = by_key(request_markers(None, "base_link", "INVALID_INPUT", None, None, frame_id="b"))
    assert {m.action for m in markers.values()} == {Marker.DELETE}


# --- published by the node -----------------------------------------------------------------------


class MarkerLog:
    def __init__(self, graph: RosGraph, topic: str = "/ik_markers") -> None:
        self.arrays: list[MarkerArray] = []
        node = graph.node(f"marker_listener_{id(self)}")
        node.create_subscription(MarkerArray, topic, self.arrays.append, LATCHED)

    def latest(self, ns: str, marker_id: int) -> Marker | None:
        for array in reversed(list(self.arrays)):
            marker = by_key(array).get((ns, marker_id))
            if marker is not None:
                return marker
        return None

    def request_markers_for(self, x: float, y: float) -> dict[tuple[str, int], Marker] | None:
        """The last request MarkerArray whose target sphere sits at (x, y)."""
        for array in reversed(list(self.arrays)):
            markers = by_key(array)
            sphere = markers.get(("target", 0))
            if (
                sphere is not None
                and sphere.action == Marker.ADD
                and (sphere.pose.position.x, sphere.pose.position.y) == (x, y)
            ):
                return markers
        return None


@pytest.fixture(scope="module")
def graph() -> Iterator[RosGraph]:
    with ros_graph() as g:
        g.add(
            IkNode(
                context=g.context,
                parameter_overrides=[Parameter("link_lengths_m", value=[1.0, 0.8])],
            )
        )
        yield g


def solve(graph: RosGraph, x: float, y: float) -> SolveIK.Response:
    client = graph.node(f"marker_client_{x}_{y}".replace(".", "_").replace("-", "m")).create_client(
        SolveIK, "/solve_ik"
    )
    request = SolveIK.Request()
    request.target.pose.position.x, request.target.pose.position.y = x, y
    return graph.call(client, request)


@pytest.mark.parametrize(
    ("x", "y", "status", "colour"),
    [
        (1.0731, 1.2727, "OK", GREEN),
        (1.8, 0.0, "SINGULAR", YELLOW),
        (2.5, 0.5, "TOO_FAR", RED),
    ],
)
def test_markers_show_the_last_target_coloured_by_status(
    graph: RosGraph, x: float, y: float, status: str, colour
) -> None:
    log = MarkerLog(graph)
    response = solve(graph, x, y)
    markers = wait_for(lambda: log.request_markers_for(x, y), what=f"markers of ({x}, {y})")
    sphere, label = markers["target", 0], markers["target", 1]
    assert sphere.type == Marker.SPHERE
    assert rgba(sphere.color) == pytest.approx(rgba(colour))  # float32 in the message
    assert label.type == Marker.TEXT_VIEW_FACING
    assert label.text == status
    assert (label.pose.position.x, label.pose.position.y) == (x, y)
    solution, alternative = markers["solution", 0], markers["alternative", 0]
    if status == "TOO_FAR":
        assert solution.action == alternative.action == Marker.DELETE
        return
    # The solution line runs through the joint frames: base, elbow, tip = target.
    q1 = response.solution.position[0]
    points = [(p.x, p.y) for p in solution.points]
    assert points[0] == (0.0, 0.0)
    assert points[1] == pytest.approx((math.cos(q1), math.sin(q1)), abs=1e-12)
    assert points[2] == pytest.approx((x, y), abs=1e-9)
    if status == "OK":  # the other elbow, faded
        assert alternative.action == Marker.ADD
        assert 0 < alternative.color.a < solution.color.a
        assert [(p.x, p.y) for p in alternative.points][2] == pytest.approx((x, y), abs=1e-9)
    else:  # at full stretch both elbows coincide: nothing else to show
        assert alternative.action == Marker.DELETE


def test_rviz_started_later_sees_the_ring_and_the_last_request(graph: RosGraph) -> None:
    solve(graph, 1.0, 1.0)
    early = MarkerLog(graph)
    wait_for(lambda: early.request_markers_for(1.0, 1.0), what="markers of (1, 1)")
    late = MarkerLog(graph)  # subscribes after the markers were published
    ring = wait_for(lambda: late.latest("workspace", 0), what="the ring for a late subscriber")
    assert math.hypot(ring.points[0].x, ring.points[0].y) == pytest.approx(1.8)
    inner = wait_for(lambda: late.latest("workspace", 1), what="the inner circle")
    assert math.hypot(inner.points[0].x, inner.points[0].y) == pytest.approx(0.2)
    wait_for(lambda: late.request_markers_for(1.0, 1.0), what="last request for a late subscriber")
