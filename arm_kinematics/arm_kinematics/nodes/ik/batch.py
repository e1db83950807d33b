"""`solve_ik_batch` without its node: many targets in one request -> one status per target.

The request's size is bounded (`ik.max_batch_targets`), its targets are checked as a whole
(`targets.TargetCheck.planar_points`: the frame, the counts, the plane, the orientation), then
solved in order, each seeded by the one before (the core's `solve_chain`). A refused request
raises a Refusal, which the node answers; a target that fails is an answer (its status, a NaN
row). No rclpy node here, message types only. Units: metres, radians.
"""

from __future__ import annotations

import array
import itertools
import math
from collections.abc import Sequence

from arm_kinematics.kinematics import IkResult, IkStatus
from arm_kinematics.nodes.ik.requests import IkSetup, branch_of, current_joints
from arm_kinematics.nodes.messages import solve_ik_status_name
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch

_IK = SolveIK.Response


def solve_ik_batch(
    setup: IkSetup,
    request: SolveIKBatch.Request,
    response: SolveIKBatch.Response,
    latest: tuple[float, ...] | None,
) -> None:
    """Answer `request` in `response`; `latest` is the latest joint_states (rad, or None), the
    seed of the first target when the request has none."""
    check_size(request, setup.config.max_batch_targets)
    points = setup.layout.batch_query(request)
    branch = branch_of(request.branch, setup.default_branch)
    current = current_joints(request.seed, setup.joint_names, latest)
    results = setup.layout.solve_batch(points, branch, current, request.stop_on_failure)
    fill_batch(response, results, len(request.x), setup.joint_names)
    if points.given_in != setup.base_frame:
        response.message += (
            f" (targets given in '{points.given_in}', solved in '{setup.base_frame}')"
        )


def check_size(request: SolveIKBatch.Request, limit: int) -> None:
    """Bounded work per request: a Refusal for a batch of more than `limit` targets, before
    anything is read or solved."""
    fields = (request.x, request.y, request.z, request.tool_angle, request.roll)
    largest = max(len(values) for values in fields)
    if largest > limit:
        raise Refusal(
            f"the request holds {largest} targets, more than the limit of {limit} per request "
            "(parameter ik.max_batch_targets): nothing was solved; split it into smaller "
            "batches"
        )


def fill_batch(
    response: SolveIKBatch.Response,
    results: Sequence[IkResult],
    count: int,
    joint_names: Sequence[str],
) -> None:
    """Per-target statuses, NaN rows for failures; targets after a stop: "not attempted"."""
    # A goal's batch holds thousands of targets: one list comprehension per field.
    attempted = len(results)
    not_attempted = count - attempted
    nan_row = (math.nan,) * len(joint_names)
    statuses = [result.status for result in results] + [_IK.INVALID_INPUT] * not_attempted
    rows = [nan_row if result.joints is None else result.joints for result in results]
    positions = itertools.chain.from_iterable(rows + [nan_row] * not_attempted)
    manipulability = [result.manipulability for result in results] + [0.0] * not_attempted
    solved_max = IkStatus.SINGULAR
    first_failure = next(
        (index for index, status in enumerate(statuses) if status > solved_max), -1
    )
    response.joint_names = list(joint_names)
    response.statuses = bytes(statuses)
    response.positions = array.array("d", positions)
    response.manipulability = array.array("d", manipulability)
    response.first_failure = first_failure
    if first_failure < 0:
        response.status = _IK.OK
        singular = statuses.count(solved_max)
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
