"""The IK service node: inverse and forward kinematics of the arm over ROS 2 services.

Services (relative names, so a launch namespace moves them and two arms can share a graph):
- `solve_ik` (arm_kinematics_interfaces/srv/SolveIK): one target pose -> joints and status.
- `solve_ik_batch` (SolveIKBatch): many targets in one call, each seeded by the previous one.
- `compute_fk` (ComputeFK): joints -> tip pose and every frame's pose.
Subscribes `joint_states` (the latest positions are the "current" pose of BRANCH_CLOSEST when
a request brings no seed; before any arrives, CLOSEST picks the branch farthest from the
limits). Publishes `ik_markers` (visualization_msgs/MarkerArray, transient local) for RViz.

The node is a thin adapter: it checks and converts messages and calls the kinematics core
(`PlanarArm.solve`, `solve_chain`, `frames`, ...); no kinematics is computed here. Every
request gets an answer with a status and a message a person can act on; nothing raises out of
a callback. The geometry parameters are read-only: a run-time change is refused, a new
geometry needs a restart (see nodes/params.py).
"""

from __future__ import annotations

import array
import itertools
import math
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
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

from arm_kinematics.frames import TargetFrames
from arm_kinematics.kinematics import Branch, IkResult, IkStatus, PlanarArm
from arm_kinematics.kinematics.workspace import reachable_region
from arm_kinematics.nodes.ik_markers import region_markers, request_markers, workspace_markers
from arm_kinematics.nodes.messages import (
    BRANCH_NAMES,
    JointStateError,
    JointStateProblem,
    OrientationError,
    check_unit_quaternion,
    fill_joint_state,
    fill_pose_stamped,
    frames_to_poses,
    heading_of_values,
    is_empty,
    joint_positions,
    position_values,
    quaternion_values,
    solve_ik_status_name,
)
from arm_kinematics.nodes.params import declare_arm_parameters
from arm_kinematics.nodes.runner import run_node
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK, SolveIKBatch

_IK = SolveIK.Response
_MODE = SolveIK.Request
_MODE_NAMES = {
    _MODE.POSITION_ONLY: "POSITION_ONLY",
    _MODE.TOOL_ANGLE: "TOOL_ANGLE",
    _MODE.FULL_ORIENTATION: "FULL_ORIENTATION",
}
_FK = ComputeFK.Response
# One WARN per this many seconds for malformed requests, so a fuzzing client cannot flood the log.
_WARN_THROTTLE_S = 2.0
_MARKER_PERIOD_S = 0.05

_FK_STATUS_OF_PROBLEM = {
    JointStateProblem.LENGTH_MISMATCH: _FK.INVALID_INPUT,
    JointStateProblem.UNKNOWN_JOINT: _FK.UNKNOWN_JOINT,
    JointStateProblem.DUPLICATE_JOINT: _FK.UNKNOWN_JOINT,
    JointStateProblem.MISSING_JOINT: _FK.MISSING_JOINT,
    JointStateProblem.NON_FINITE: _FK.INVALID_INPUT,
}


class RefusedRequestError(Exception):
    """A malformed request: answered with `status` and `message`, logged as a (throttled) WARN."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _check_mode(mode: int) -> None:
    if mode not in _MODE_NAMES:
        choices = ", ".join(f"{value} ({name})" for value, name in _MODE_NAMES.items())
        raise RefusedRequestError(
            _IK.INVALID_INPUT, f"unknown orientation_mode {mode}; use one of {choices}"
        )


@dataclass(frozen=True)
class _PlanarTarget:
    """A checked solve_ik target in the base frame: x, y (m), heading (rad) or None, and the
    frame the request stamped it in."""

    x: float
    y: float
    heading: float | None
    given_in: str


@dataclass(frozen=True)
class _MarkerRequest:
    """What the marker timer draws for the last solve_ik request."""

    target: tuple[float, float, float] | None
    target_frame_id: str
    status_name: str
    solution: tuple[float, ...] | None
    alternative: tuple[float, ...] | None


class IkNode(Node):
    """Serves solve_ik, solve_ik_batch and compute_fk for the arm in the node's parameters."""

    def __init__(self, **kwargs) -> None:
        super().__init__("ik_node", **kwargs)
        self.config = declare_arm_parameters(self)
        self.arm = self.config.make_arm()
        self.joint_names = self.config.joint_names
        # The arm's own TF frames carry the prefix; targets may come in them or the mount's parent.
        self.base_frame = self.config.frame(self.config.base_frame)
        self.tip_frame = self.config.frame(self.config.tip_frame)
        self.target_frames = TargetFrames.from_config(self.config)
        self.default_branch = Branch.from_name(self.config.default_branch)
        # Written by the joint_states callback, read by service threads: a tuple swapped in
        # whole is atomic, so no lock is needed.
        self._latest_joints: tuple[float, ...] | None = None
        self._marker_request: _MarkerRequest | None = None
        self._drawn_request: _MarkerRequest | None = None

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

        # Two publishers on one topic, both transient local with depth 1: RViz started later
        # still gets the last sample of each, i.e. the ring (published once) and the last
        # request's markers. Request markers are drawn by a timer, off the service path, at
        # most 1 / _MARKER_PERIOD_S times a second however fast requests come.
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self._workspace_publisher = self.create_publisher(MarkerArray, "ik_markers", latched)
        self._request_publisher = self.create_publisher(MarkerArray, "ik_markers", latched)
        inner, outer = self.arm.ring
        base, z = self.base_frame, self.config.plane_z
        stamp = self.get_clock().now().to_msg()
        self._workspace_publisher.publish(
            workspace_markers(inner, outer, frame_id=base, z=z, stamp=stamp)
        )
        # The region takes 0.3 s (2R) to a few seconds (3R) of solves: computed once the node
        # spins, in a thread of its own so that the services answer meanwhile and a shutdown
        # never waits for it; then ring and region are latched.
        self._closed = False
        self._publish_lock = threading.Lock()  # no region published once close() has run
        self._region_timer = self.create_timer(
            0.0, self._start_region, callback_group=MutuallyExclusiveCallbackGroup()
        )
        self.create_timer(
            _MARKER_PERIOD_S,
            self._publish_request_markers,
            callback_group=MutuallyExclusiveCallbackGroup(),
        )

        lengths = ", ".join(f"{length:.3f}" for length in self.config.link_lengths)
        self.get_logger().info(
            f"ready: {len(self.joint_names)} joints ({', '.join(self.joint_names)}), links "
            f"{lengths} m, ring {inner:.3f}..{outer:.3f} m (joint limits aside) in "
            f"'{self.base_frame}'{self._mount_words()}, "
            f"default branch {self.config.default_branch}; serving solve_ik, solve_ik_batch, "
            "compute_fk"
        )

    def _start_region(self) -> None:
        self._region_timer.cancel()
        threading.Thread(
            target=self._publish_region, args=(self.arm,), name="reachable_region", daemon=True
        ).start()

    def _publish_region(self, arm: PlanarArm) -> None:
        """Latch the ring and the reachable region of `arm` (the configured arm) on ik_markers."""
        inner, outer = arm.ring
        base, z = self.base_frame, self.config.plane_z
        started = time.monotonic()
        try:
            region = reachable_region(arm)
        except Exception as error:  # a drawing aid: never a reason to stop serving IK
            self.get_logger().error(f"cannot compute the reachable region: {error!r}")
            return
        stamp = self.get_clock().now().to_msg()
        workspace = workspace_markers(inner, outer, frame_id=base, z=z, stamp=stamp)
        workspace.markers += region_markers(region, frame_id=base, z=z, stamp=stamp)
        with self._publish_lock:
            if self._closed:
                return
            self._workspace_publisher.publish(workspace)
        self.get_logger().info(
            f"reachable region within the joint limits on ik_markers: "
            f"{int(region.reachable.sum())} cells of {region.cell_size * 1000:.1f} mm "
            f"({time.monotonic() - started:.1f} s)"
        )

    def close(self) -> None:
        """Publish nothing more (the region's thread may still be solving: it is left to end
        with the process)."""
        with self._publish_lock:
            self._closed = True

    def destroy_node(self) -> None:
        self.close()
        super().destroy_node()

    def _mount_words(self) -> str:
        mount = self.target_frames.mount
        if mount is None:
            return ""
        return f" (mounted in '{mount.parent_frame}', targets in either frame)"

    # --- solve_ik ------------------------------------------------------------------------------

    def _on_solve_ik(self, request: SolveIK.Request, response: SolveIK.Response):
        target = request.target
        x, y, z = position_values(target.pose)
        drawable = (x, y, z) if all(math.isfinite(v) for v in (x, y, z)) else None
        result: IkResult | None = None
        try:
            planar = self._check_target(
                target.header.frame_id,
                (x, y, z),
                request.orientation_mode,
                request.tool_angle,
                target.pose.orientation,
            )
            branch = self._branch(request.branch)
            current = self._current(request.seed)
            result = self.arm.solve(
                planar.x, planar.y, planar.heading, branch=branch, current=current
            )
            self._fill_solve_ik(response, result, branch, request.branch)
            if planar.given_in != self.base_frame:
                response.message += (
                    f"; target given in '{planar.given_in}', solved in '{self.base_frame}' at "
                    f"({planar.x:.4f}, {planar.y:.4f}) m"
                )
        except RefusedRequestError as refusal:
            self._refuse(response, refusal, "solve_ik")
        except Exception:
            response = self._internal_error(response, "solve_ik")
            result = None
        self._marker_request = _MarkerRequest(
            target=drawable,
            target_frame_id=target.header.frame_id or self.base_frame,
            status_name=solve_ik_status_name(response.status),
            solution=result.joints if result is not None and result.ok else None,
            alternative=result.alternative if result is not None and result.ok else None,
        )
        if self.get_logger().is_enabled_for(LoggingSeverity.DEBUG):
            self.get_logger().debug(
                f"solve_ik ({x:.4f}, {y:.4f}, {z:.4f}) in '{target.header.frame_id}' -> "
                f"{solve_ik_status_name(response.status)}: {response.message}"
            )
        return response

    def _fill_solve_ik(
        self, response: SolveIK.Response, result: IkResult, branch: Branch, requested_branch: int
    ) -> None:
        response.status = int(result.status)
        if not result.ok or result.joints is None:
            response.message = result.message
            return
        stamp = self.get_clock().now().to_msg()
        fill_joint_state(response.solution, self.joint_names, result.joints, stamp)
        tool_x, tool_y, tool_heading = self.arm.forward(result.joints)
        fill_pose_stamped(
            response.tool,
            tool_x,
            tool_y,
            tool_heading,
            frame_id=self.base_frame,
            z=self.config.plane_z,
            stamp=stamp,
        )
        if result.alternative is not None:
            fill_joint_state(response.alternative, self.joint_names, result.alternative, stamp)
        response.manipulability = float(result.manipulability)
        degrees = ", ".join(
            f"{name} {math.degrees(q):.3f}"
            for name, q in zip(self.joint_names, result.joints, strict=True)
        )
        response.message = f"{result.message}; joints {degrees} deg"
        if branch != requested_branch:
            response.message += f" (branch {branch.name.lower()}: the node's default_branch)"

    def _check_target(
        self,
        frame_id: str,
        position: tuple[float, float, float],
        mode: int,
        tool_angle: float,
        orientation,
    ) -> _PlanarTarget:
        """The target in the base frame; RefusedRequestError for a malformed target.

        Checks in order: frame, finite numbers, plane, orientation; the plane and the heading
        are checked in the base frame, after the mount's transform for a target stamped in the
        mount's parent frame.
        """
        self._check_frame(frame_id)
        if not all(math.isfinite(v) for v in position):
            raise RefusedRequestError(
                _IK.INVALID_INPUT, f"target position {position} must be finite numbers (metres)"
            )
        _check_mode(mode)
        xyzw = quaternion_values(orientation)
        if mode == _MODE.FULL_ORIENTATION and not all(math.isfinite(v) for v in xyzw):
            raise RefusedRequestError(
                _IK.INVALID_INPUT,
                f"target orientation {xyzw} (x, y, z, w) must be finite with FULL_ORIENTATION",
            )
        if mode == _MODE.TOOL_ANGLE and not math.isfinite(tool_angle):
            raise RefusedRequestError(
                _IK.INVALID_INPUT, f"tool_angle = {tool_angle} must be a finite number (rad)"
            )
        in_base = self.target_frames.to_base(frame_id, position)
        bx, by, bz = in_base.position
        self._check_plane(bz, in_base.given_in, position)
        if mode == _MODE.POSITION_ONLY:
            return _PlanarTarget(bx, by, None, in_base.given_in)
        if mode == _MODE.TOOL_ANGLE:
            return _PlanarTarget(bx, by, tool_angle, in_base.given_in)
        try:
            if in_base.given_in != self.base_frame:
                # The mount's rotation would hide a quaternion that is not of unit length.
                check_unit_quaternion(xyzw)
                xyzw = self.target_frames.to_base(frame_id, position, xyzw).orientation
            heading = heading_of_values(xyzw)
        except OrientationError as error:
            words = str(error)
            if in_base.given_in != self.base_frame:
                words = f"in '{self.base_frame}' (turned from '{in_base.given_in}'): {words}"
            raise RefusedRequestError(_IK.INVALID_ORIENTATION, words) from None
        return _PlanarTarget(bx, by, heading, in_base.given_in)

    def _check_frame(self, frame_id: str) -> None:
        if frame_id == "" or frame_id in self.target_frames.accepted:
            return
        base = self.base_frame
        if self.target_frames.mount is None:
            message = (
                f"target frame '{frame_id}' is not the arm's base frame '{base}': "
                f"transform the target into '{base}' (or leave frame_id empty)"
            )
        else:
            message = (
                f"target frame '{frame_id}' is {self.target_frames.expected_words()}: "
                "transform the target into one of them (or leave frame_id empty for "
                f"'{base}')"
            )
        raise RefusedRequestError(_IK.WRONG_FRAME, message)

    def _check_plane(
        self,
        z: float,
        given_in: str | None = None,
        given: Sequence[float] | None = None,
        index: int | None = None,
    ) -> None:
        """OFF_PLANE unless `z` (m, base frame) is on the arm's plane; `given` is the target
        as the request gave it in `given_in`, `index` its place in a batch."""
        off = z - self.config.plane_z
        if abs(off) <= self.config.plane_tolerance:
            return
        tolerance = f"(tolerance {self.config.plane_tolerance:g} m)"
        if self.target_frames.mount is None:
            message = (
                f"target z = {z:.6g} m is {abs(off):.6g} m off the arm's plane "
                f"z = {self.config.plane_z:.6g} m {tolerance}"
            )
        else:
            which = "target" if index is None else f"target {index}"
            where = ", ".join(f"{v:.6g}" for v in given) if given is not None else ""
            message = (
                f"{which} ({where}) m in '{given_in}' lies {abs(off):.6g} m off the arm's "
                f"plane (z = {z:.6g} m in '{self.base_frame}'); the plane is "
                f"{self.target_frames.plane_words(self.config.plane_z)} {tolerance}"
            )
        raise RefusedRequestError(_IK.OFF_PLANE, message)

    def _branch(self, value: int) -> Branch:
        """The Branch of a request's BRANCH_* value; 0 means the node's default_branch."""
        if value not in BRANCH_NAMES:
            choices = ", ".join(f"{v} ({name})" for v, name in BRANCH_NAMES.items())
            raise RefusedRequestError(
                _IK.INVALID_INPUT, f"unknown branch value {value}; use one of {choices}"
            )
        if value == SolveIK.Request.BRANCH_CLOSEST:
            return self.default_branch
        return Branch(value)

    def _current(self, seed: JointState) -> tuple[float, ...] | None:
        """Joints BRANCH_CLOSEST stays close to: the seed, else the latest joint_states.

        None before any joint_states arrived: the core then picks the branch farthest from
        the joint limits (MAX_LIMIT_MARGIN), the safest guess when the arm's pose is unknown.
        """
        if not is_empty(seed):
            try:
                return joint_positions(seed, self.joint_names)
            except JointStateError as error:
                raise RefusedRequestError(_IK.INVALID_INPUT, f"seed: {error}") from None
        return self._latest_joints

    # --- solve_ik_batch ------------------------------------------------------------------------

    def _on_solve_ik_batch(self, request: SolveIKBatch.Request, response: SolveIKBatch.Response):
        response.joint_names = list(self.joint_names)
        response.first_failure = -1
        try:
            self._solve_batch(request, response)
        except RefusedRequestError as refusal:
            self._refuse(response, refusal, "solve_ik_batch")
        except Exception:
            response = self._internal_error(response, "solve_ik_batch")
            response.joint_names = list(self.joint_names)
            response.first_failure = -1
        if self.get_logger().is_enabled_for(LoggingSeverity.DEBUG):
            self.get_logger().debug(
                f"solve_ik_batch of {len(request.x)} targets -> "
                f"{solve_ik_status_name(response.status)}: {response.message}"
            )
        return response

    def _solve_batch(self, request: SolveIKBatch.Request, response: SolveIKBatch.Response):
        count = len(request.x)
        self._check_batch_size(request)
        self._check_frame(request.header.frame_id)
        if len(request.y) != count:
            raise RefusedRequestError(
                _IK.INVALID_INPUT, f"x has {count} values but y has {len(request.y)}"
            )
        if len(request.z) not in (0, count):
            raise RefusedRequestError(
                _IK.INVALID_INPUT,
                f"z has {len(request.z)} values: give one per target ({count}) or none (the "
                "arm's plane)",
            )
        for index, z in enumerate(request.z):
            if not math.isfinite(z):
                raise RefusedRequestError(
                    _IK.INVALID_INPUT, f"z[{index}] = {z} must be a finite number"
                )
        _check_mode(request.orientation_mode)
        if request.orientation_mode != _MODE.POSITION_ONLY and len(request.tool_angle) != count:
            raise RefusedRequestError(
                _IK.INVALID_INPUT,
                f"orientation_mode {_MODE_NAMES[request.orientation_mode]}: tool_angle needs "
                f"{count} values (one per target), it has {len(request.tool_angle)}",
            )
        xs, ys, headings, given_in = self._batch_in_base(request)
        branch = self._branch(request.branch)
        current = self._current(request.seed)
        results = self.arm.solve_chain(
            xs,
            ys,
            headings,
            branch=branch,
            current=current,
            stop_on_failure=request.stop_on_failure,
        )
        self._fill_batch(response, results, count)
        if given_in != self.base_frame:
            response.message += f" (targets given in '{given_in}', solved in '{self.base_frame}')"

    def _check_batch_size(self, request: SolveIKBatch.Request) -> None:
        """Bounded work per request: a batch beyond `ik.max_batch_targets` is not solved."""
        lengths = (request.x, request.y, request.z, request.tool_angle, request.roll)
        largest = max(len(values) for values in lengths)
        limit = self.config.max_batch_targets
        if largest > limit:
            raise RefusedRequestError(
                _IK.INVALID_INPUT,
                f"the request holds {largest} targets, more than the limit of {limit} per "
                "request (parameter ik.max_batch_targets): nothing was solved; split it into "
                "smaller batches",
            )

    def _batch_in_base(self, request: SolveIKBatch.Request):
        """xs, ys, headings (or None) of a batch in the base frame, and the frame it came in.

        A batch in the mount's parent frame is turned point by point (no z: the height of the
        arm's plane there, which must then be level); every point must then lie on the arm's
        plane, and FULL_ORIENTATION headings (about the parent's z) need the arm's plane to be
        level in the parent frame. TOOL_ANGLE headings are the arm's own (about the base's z).
        """
        mode = request.orientation_mode
        headings = None if mode == _MODE.POSITION_ONLY else request.tool_angle
        frame_id = request.header.frame_id
        mount = self.target_frames.mount
        count = len(request.x)
        if mount is None or frame_id in ("", self.base_frame):
            for index, z in enumerate(request.z):
                given = (request.x[index], request.y[index], z)
                self._check_plane(z, self.base_frame, given, index)
            return request.x, request.y, headings, self.base_frame
        if len(request.z):
            zs = np.asarray(request.z)
        else:
            point, normal = mount.plane_in_parent(self.config.plane_z)
            if abs(abs(normal[2]) - 1.0) > 1e-9:
                raise RefusedRequestError(
                    _IK.INVALID_INPUT,
                    f"z is empty, but the arm's plane has no one height in '{frame_id}' (it is "
                    "tilted there): give z, one per target",
                )
            zs = np.full(count, point[2])
        given = np.column_stack((np.asarray(request.x), np.asarray(request.y), zs))
        in_base = mount.points_to_base(given)
        off = np.abs(in_base[:, 2] - self.config.plane_z) > self.config.plane_tolerance
        if off.any():
            index = int(np.flatnonzero(off)[0])
            self._check_plane(float(in_base[index, 2]), frame_id, given[index], index)
        if headings is not None and mode == _MODE.FULL_ORIENTATION:
            try:
                headings = mount.headings_to_base(np.asarray(headings)).tolist()
            except ValueError as error:
                raise RefusedRequestError(_IK.INVALID_ORIENTATION, str(error)) from None
        return in_base[:, 0].tolist(), in_base[:, 1].tolist(), headings, frame_id

    def _fill_batch(
        self, response: SolveIKBatch.Response, results: Sequence[IkResult], count: int
    ) -> None:
        """Per-target statuses, NaN rows for failures; targets after a stop: "not attempted"."""
        # A goal's batch holds thousands of targets: one list comprehension per field.
        attempted = len(results)
        not_attempted = count - attempted
        nan_row = (math.nan,) * len(self.joint_names)
        statuses = [result.status for result in results] + [_IK.INVALID_INPUT] * not_attempted
        rows = [nan_row if result.joints is None else result.joints for result in results]
        positions = itertools.chain.from_iterable(rows + [nan_row] * not_attempted)
        manipulability = [result.manipulability for result in results] + [0.0] * not_attempted
        solved_max = IkStatus.SINGULAR
        singular = statuses.count(solved_max)
        first_failure = next(
            (index for index, status in enumerate(statuses) if status > solved_max), -1
        )
        response.statuses = bytes(statuses)
        response.positions = array.array("d", positions)
        response.manipulability = array.array("d", manipulability)
        response.first_failure = first_failure
        if first_failure < 0:
            response.status = _IK.OK
            response.message = f"all {count} targets solved ({singular} near a singularity)"
            return
        response.status = statuses[first_failure]
        reason = results[first_failure].message if first_failure < attempted else "not attempted"
        solved = sum(1 for r in results if r.ok)
        response.message = (
            f"{solved} of {count} targets solved; first failure at index {first_failure} "
            f"({solve_ik_status_name(response.status)}): {reason}"
        )
        if attempted < count:
            response.message += (
                f"; stopped there, the {count - attempted} later targets were not attempted"
            )

    # --- compute_fk ----------------------------------------------------------------------------

    def _on_compute_fk(self, request: ComputeFK.Request, response: ComputeFK.Response):
        try:
            self._compute_fk(request, response)
        except RefusedRequestError as refusal:
            self._refuse(response, refusal, "compute_fk")
        except Exception:
            response = self._internal_error(response, "compute_fk", status=_FK.INVALID_INPUT)
        return response

    def _compute_fk(self, request: ComputeFK.Request, response: ComputeFK.Response) -> None:
        try:
            joints = joint_positions(request.joints, self.joint_names)
        except JointStateError as error:
            raise RefusedRequestError(_FK_STATUS_OF_PROBLEM[error.problem], str(error)) from None
        frames = self.arm.link_frames(joints)
        stamp = self.get_clock().now().to_msg()
        base, z = self.base_frame, self.config.plane_z
        # As TF has them: the base frame itself at z = 0, the links and the tip on the plane.
        response.frames = frames_to_poses(frames[:1], frame_id=base, stamp=stamp)
        response.frames += frames_to_poses(frames[1:], frame_id=base, z=z, stamp=stamp)
        response.frame_names = self.frame_names()
        tip_x, tip_y, tip_heading = frames[-1]
        fill_pose_stamped(response.tip, tip_x, tip_y, tip_heading, frame_id=base, z=z, stamp=stamp)
        response.within_limits = bool(self.arm.within_limits(joints))
        response.manipulability = float(self.arm.manipulability(joints))
        response.status = _FK.OK
        response.message = (
            f"tip '{self.tip_frame}' at ({tip_x:.4f}, {tip_y:.4f}) m, heading "
            f"{math.degrees(tip_heading):.2f} deg in '{base}'; frames: "
            f"{', '.join(self.frame_names())} (every pose expressed in '{base}')"
        )
        if not response.within_limits:
            outside = [
                f"{name} {math.degrees(q):.2f} deg outside [{math.degrees(lo):.1f}, "
                f"{math.degrees(hi):.1f}]"
                for name, q, (lo, hi) in zip(
                    self.joint_names, joints, self.config.joint_limits, strict=True
                )
                if not lo <= q <= hi
            ]
            response.message += "; joint limits broken: " + ", ".join(outside)

    def frame_names(self) -> list[str]:
        """Names of the poses in ComputeFK.frames (`PlanarChain.link_frames`), base first: the
        URDF's links as TF names them (base, link_1 .. link_n, tip, with the frame prefix)."""
        links = [
            self.config.frame(f"link_{index}") for index in range(1, len(self.joint_names) + 1)
        ]
        return [self.base_frame, *links, self.tip_frame]

    # --- joint_states, markers, errors ---------------------------------------------------------

    def _on_joint_states(self, msg: JointState) -> None:
        try:
            self._latest_joints = joint_positions(msg, self.joint_names, allow_unknown=True)
        except JointStateError as error:
            self.get_logger().warn(
                f"ignoring joint_states message: {error}", throttle_duration_sec=_WARN_THROTTLE_S
            )

    def _publish_request_markers(self) -> None:
        request = self._marker_request
        if request is None or request is self._drawn_request:
            return
        self._drawn_request = request
        try:
            markers = request_markers(
                request.target,
                request.target_frame_id,
                request.status_name,
                self.arm.frames(request.solution) if request.solution else None,
                self.arm.frames(request.alternative) if request.alternative else None,
                frame_id=self.base_frame,
                z=self.config.plane_z,
                stamp=self.get_clock().now().to_msg(),
            )
            self._request_publisher.publish(markers)
        except Exception as error:
            self.get_logger().error(
                f"cannot publish ik_markers: {error!r}", throttle_duration_sec=_WARN_THROTTLE_S
            )

    def _refuse(self, response, refusal: RefusedRequestError, service: str) -> None:
        response.status = refusal.status
        response.message = refusal.message
        self.get_logger().warn(
            f"malformed {service} request: {refusal.message} (similar warnings are throttled "
            f"to one per {_WARN_THROTTLE_S:g} s)",
            throttle_duration_sec=_WARN_THROTTLE_S,
        )

    def _internal_error(self, response, service: str, status: int = _IK.INVALID_INPUT):
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


def main() -> None:
    sys.exit(run_node(IkNode))


if __name__ == "__main__":
    main()
