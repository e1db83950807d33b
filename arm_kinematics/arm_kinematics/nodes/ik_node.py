"""The IK service node: inverse and forward kinematics of the arm over ROS 2 services.

Services (relative names, so a launch namespace moves them and two arms can share a graph):
- `solve_ik` (arm_kinematics_interfaces/srv/SolveIK): one target pose -> joints and status.
- `solve_ik_batch` (SolveIKBatch): many targets in one call, each seeded by the previous one.
- `compute_fk` (ComputeFK): joints -> tip pose and every frame's pose.
Subscribes `joint_states` (the latest positions are the "current" pose of BRANCH_CLOSEST when
a request brings no seed; before any arrives, CLOSEST picks the branch farthest from the
limits). Publishes `ik_markers` (visualization_msgs/MarkerArray, transient local) for RViz.

This module is the ROS wiring only; the parts are plain and live in `nodes/ik/`: `requests`
(the setup, the branch and seed, the layout that turns a checked target into a core call),
`solve`, `batch`, `fk` and `markers`; targets are checked by `nodes/targets.py`. Every request
gets an answer with a status and a message a person can act on: a check's Refusal becomes the
answer's status here, in `_refuse`, and nothing raises out of a callback. The geometry
parameters are read-only: a run-time change is refused, a new geometry needs a restart (see
nodes/params.py).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.logging import LoggingSeverity
from rclpy.node import Node
from rclpy.qos import (
    DurabilityPolicy,
    QoSProfile,
    ReliabilityPolicy,
    qos_profile_sensor_data,
)
from sensor_msgs.msg import JointState
from visualization_msgs.msg import MarkerArray

from arm_kinematics.kinematics import IkResult, PlanarArm, SpatialArm
from arm_kinematics.nodes.ik.batch import solve_ik_batch
from arm_kinematics.nodes.ik.fk import compute_fk, fk_status
from arm_kinematics.nodes.ik.markers import (
    MarkerRequest,
    request_markers,
)
from arm_kinematics.nodes.ik.requests import IkSetup
from arm_kinematics.nodes.ik.solve import solve_ik
from arm_kinematics.nodes.messages import (
    JointStateError,
    joint_positions,
    position_values,
    solve_ik_status_name,
)
from arm_kinematics.nodes.params import declare_arm_parameters
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.runner import run_node
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK, SolveIKBatch

_IK = SolveIK.Response
# One WARN per this many seconds for malformed requests, so a fuzzing client cannot flood the log.
_WARN_THROTTLE_S = 2.0
_MARKER_PERIOD_S = 0.05


def _ik_status(refusal: Refusal) -> int:
    return refusal.status


class IkNode(Node):
    """Serves solve_ik, solve_ik_batch and compute_fk for the arm in the node's parameters."""

    def __init__(self, **kwargs) -> None:
        # What it was given is read from rclpy's declaration of it (nodes/params.py).
        super().__init__("ik_node", automatically_declare_parameters_from_overrides=True, **kwargs)
        self.config = declare_arm_parameters(self)
        self.ik = IkSetup.from_config(self.config)
        # Written by the joint_states callback, read by service threads: a tuple swapped in
        # whole is atomic, so no lock is needed.
        self._latest_joints: tuple[float, ...] | None = None
        self._marker_request: MarkerRequest | None = None
        self._drawn_request: MarkerRequest | None = None

        # Reentrant: the runner's multi-threaded executor serves requests concurrently, so a
        # large batch or a slow client never holds up the others.
        services = ReentrantCallbackGroup()
        self.create_service(SolveIK, "solve_ik", self._on_solve_ik, callback_group=services)
        self.create_service(
            SolveIKBatch, "solve_ik_batch", self._on_solve_ik_batch, callback_group=services
        )
        self.create_service(ComputeFK, "compute_fk", self._on_compute_fk, callback_group=services)
        # Best effort matches both reliable and best-effort joint_states publishers; only the
        # latest message matters.
        self.create_subscription(
            JointState, "joint_states", self._on_joint_states, qos_profile_sensor_data
        )
        self._create_marker_publishers()
        self.get_logger().info(self._ready_words())

    @property
    def arm(self) -> PlanarArm | SpatialArm:
        """The core's model of the configured arm."""
        return self.ik.arm

    def _create_marker_publishers(self) -> None:
        """The latched ik_markers: the ring at once, the region once computed, the requests.

        Two publishers on one topic, both transient local with depth 1: RViz started later
        still gets the last sample of each, i.e. the ring and region (published once) and the
        last request's markers. Request markers are drawn by a timer, off the service path, at
        most 1 / _MARKER_PERIOD_S times a second however fast requests come.
        """
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self._workspace_publisher = self.create_publisher(MarkerArray, "ik_markers", latched)
        self._request_publisher = self.create_publisher(MarkerArray, "ik_markers", latched)
        self._workspace_publisher.publish(self.ik.layout.workspace(self.ik.base_frame, self._now()))
        # The region is one array solve of its grid (well under a second): computed once the
        # node spins, in the timer's own callback group, so that the services (reentrant)
        # answer meanwhile; then the ring and the region are latched.
        self._closed = False
        self._publish_lock = threading.Lock()  # no region published once close() has run
        self._region_timer = self.create_timer(
            0.0, self._publish_region, callback_group=MutuallyExclusiveCallbackGroup()
        )
        self.create_timer(
            _MARKER_PERIOD_S,
            self._publish_request_markers,
            callback_group=MutuallyExclusiveCallbackGroup(),
        )

    def _ready_words(self) -> str:
        lengths = ", ".join(f"{length:.3f}" for length in self.config.link_lengths)
        mount = self.ik.targets.frames.mount
        mounted = f" (mounted in '{mount.parent_frame}', targets in either frame)" if mount else ""
        names = self.ik.joint_names
        return (
            f"ready: {len(names)} joints ({', '.join(names)}), links {lengths} m, "
            f"{self.ik.layout.reach_words()} in '{self.ik.base_frame}'{mounted}"
            f", default branch {self.config.default_branch}; serving solve_ik, solve_ik_batch, "
            "compute_fk"
        )

    def _publish_region(self) -> None:
        """Latch the workspace and the reachable region of the configured arm on ik_markers."""
        self._region_timer.cancel()
        started = time.monotonic()
        solve, arm = self.ik.layout.region_job()
        try:
            region = solve(arm)
        except Exception as error:  # a drawing aid: never a reason to stop serving IK
            self.get_logger().error(f"cannot compute the reachable region: {error!r}")
            return
        workspace = self.ik.layout.workspace(self.ik.base_frame, self._now(), region)
        with self._publish_lock:
            if self._closed:
                return
            self._workspace_publisher.publish(workspace)
        self.get_logger().info(
            f"reachable region within the joint limits on ik_markers: "
            f"{int(region.reachable.sum())} cells of {region.cell_size * 1000:.1f} mm "
            f"({time.monotonic() - started:.2f} s)"
        )

    def close(self) -> None:
        """Publish nothing more."""
        with self._publish_lock:
            self._closed = True

    def destroy_node(self) -> None:
        self.close()
        super().destroy_node()

    # --- the services: each part answers, a Refusal becomes the status here ------------------

    def _on_solve_ik(self, request: SolveIK.Request, response: SolveIK.Response):
        result: list[IkResult] = []

        def answer() -> None:
            result.append(solve_ik(self.ik, request, response, self._latest_joints, self._now()))

        response = self._serve("solve_ik", response, answer, _ik_status)
        self._marker_request = MarkerRequest.of(
            request, response, result[0] if result else None, self.ik.base_frame
        )
        if self.get_logger().is_enabled_for(LoggingSeverity.DEBUG):
            x, y, z = position_values(request.target.pose)
            self.get_logger().debug(
                f"solve_ik ({x:.4f}, {y:.4f}, {z:.4f}) in '{request.target.header.frame_id}' "
                f"-> {solve_ik_status_name(response.status)}: {response.message}"
            )
        return response

    def _on_solve_ik_batch(self, request: SolveIKBatch.Request, response: SolveIKBatch.Response):
        response = self._serve(
            "solve_ik_batch",
            response,
            lambda: solve_ik_batch(self.ik, request, response, self._latest_joints),
            _ik_status,
        )
        # Refused too: the joint names of the rows, and no failing target.
        response.joint_names = list(self.ik.joint_names)
        if len(response.statuses) == 0:
            response.first_failure = -1
        if self.get_logger().is_enabled_for(LoggingSeverity.DEBUG):
            self.get_logger().debug(
                f"solve_ik_batch of {len(request.x)} targets -> "
                f"{solve_ik_status_name(response.status)}: {response.message}"
            )
        return response

    def _on_compute_fk(self, request: ComputeFK.Request, response: ComputeFK.Response):
        return self._serve(
            "compute_fk",
            response,
            lambda: compute_fk(self.ik, request, response, self._now()),
            fk_status,
            internal_status=ComputeFK.Response.INVALID_INPUT,
        )

    def _serve(
        self,
        service: str,
        response: Any,
        answer: Callable[[], None],
        status_of: Callable[[Refusal], int],
        internal_status: int = _IK.INVALID_INPUT,
    ) -> Any:
        """Run `answer` (which fills `response`); a Refusal is answered with `status_of` it
        and its message, any other error with `internal_status` in a fresh response."""
        try:
            answer()
        except Refusal as refusal:
            self._refuse(response, status_of(refusal), refusal, service)
        except Exception:
            return self._internal_error(response, service, internal_status)
        return response

    def _refuse(self, response: Any, status: int, refusal: Refusal, service: str) -> None:
        """The one place a Refusal becomes an answer: its status and words, and a WARN."""
        response.status = status
        response.message = refusal.message
        self.get_logger().warn(
            f"malformed {service} request: {refusal.message} (similar warnings are throttled "
            f"to one per {_WARN_THROTTLE_S:g} s)",
            throttle_duration_sec=_WARN_THROTTLE_S,
        )

    def _internal_error(self, response: Any, service: str, status: int) -> Any:
        """A fresh response (nothing half-filled) with `status` and the error; logged."""
        error = sys.exc_info()[1]
        response = type(response)()
        response.status = status
        response.message = f"the request could not be processed: {error!r}"
        self.get_logger().error(
            f"{service} failed unexpectedly:\n{traceback.format_exc()}",
            throttle_duration_sec=_WARN_THROTTLE_S,
        )
        return response

    # --- joint_states, markers -----------------------------------------------------------------

    def _on_joint_states(self, msg: JointState) -> None:
        try:
            self._latest_joints = joint_positions(msg, self.ik.joint_names, allow_unknown=True)
        except JointStateError as error:
            self.get_logger().warn(
                f"ignoring joint_states message: {error}", throttle_duration_sec=_WARN_THROTTLE_S
            )

    def _publish_request_markers(self) -> None:
        request = self._marker_request
        if request is None or request is self._drawn_request:
            return
        self._drawn_request = request
        layout = self.ik.layout
        try:
            markers = request_markers(
                request.target,
                request.target_frame_id,
                request.status_name,
                layout.link_points(request.solution) if request.solution else None,
                layout.link_points(request.alternative) if request.alternative else None,
                frame_id=self.ik.base_frame,
                stamp=self._now(),
            )
            self._request_publisher.publish(markers)
        except Exception as error:
            self.get_logger().error(
                f"cannot publish ik_markers: {error!r}", throttle_duration_sec=_WARN_THROTTLE_S
            )

    def _now(self):
        return self.get_clock().now().to_msg()


def main() -> None:
    sys.exit(run_node(IkNode))


if __name__ == "__main__":
    main()
