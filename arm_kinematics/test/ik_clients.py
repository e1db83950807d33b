"""Clients of the IK node's services for the tests that start it in their own graph
(test_ik_node*.py): `make_ik_node` with the issue's reference arm, `Clients` that call and wait,
and `target`, a SolveIK request built from plain numbers."""

from __future__ import annotations

import math

from rclpy.parameter import Parameter
from ros_helpers import RosGraph, wait_for

from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK, SolveIKBatch

LENGTHS = (1.0, 0.8)  # m: the reference arm, with the packaged joint limits (+-90 deg)


def make_ik_node(
    graph: RosGraph, lengths=LENGTHS, namespace: str = "", *overrides: Parameter
) -> IkNode:
    """An IK node with links `lengths` (m) in `graph`, in `namespace`, with `overrides`."""
    return graph.add(
        IkNode(
            context=graph.context,
            namespace=namespace,
            parameter_overrides=[Parameter("link_lengths_m", value=list(lengths)), *overrides],
        )
    )


class Clients:
    """Clients of one ik_node; `solve`, `batch` and `fk` call and wait for the answer."""

    def __init__(self, graph: RosGraph, namespace: str = "") -> None:
        prefix = f"{namespace}/" if namespace else ""
        self.graph = graph
        self.node = graph.node(f"test_client{namespace.replace('/', '_')}")
        self.solve_client = self.node.create_client(SolveIK, prefix + "solve_ik")
        self.batch_client = self.node.create_client(SolveIKBatch, prefix + "solve_ik_batch")
        self.fk_client = self.node.create_client(ComputeFK, prefix + "compute_fk")
        for client in (self.solve_client, self.batch_client, self.fk_client):
            wait_for(lambda c=client: c.wait_for_service(timeout_sec=0.5), what=client.srv_name)

    def solve(self, request: SolveIK.Request) -> SolveIK.Response:
        return self.graph.call(self.solve_client, request)

    def batch(self, request: SolveIKBatch.Request) -> SolveIKBatch.Response:
        return self.graph.call(self.batch_client, request)

    def fk(self, names, positions) -> ComputeFK.Response:
        request = ComputeFK.Request()
        request.joints.name = list(names)
        request.joints.position = [float(p) for p in positions]
        return self.graph.call(self.fk_client, request)


def target(
    x: float,
    y: float,
    *,
    z: float = 0.0,
    frame: str = "base_link",
    heading: float | None = None,
    quaternion: tuple[float, float, float, float] | None = None,
    branch: int = 0,
    seed: dict[str, float] | None = None,
) -> SolveIK.Request:
    request = SolveIK.Request()
    request.target.header.frame_id = frame
    position = request.target.pose.position
    position.x, position.y, position.z = float(x), float(y), float(z)
    if heading is not None:
        quaternion = (0.0, 0.0, math.sin(heading / 2), math.cos(heading / 2))
    if quaternion is not None:
        request.orientation_mode = SolveIK.Request.FULL_ORIENTATION
        o = request.target.pose.orientation
        o.x, o.y, o.z, o.w = quaternion
    request.branch = branch
    if seed is not None:
        request.seed.name = list(seed)
        request.seed.position = list(seed.values())
    return request
