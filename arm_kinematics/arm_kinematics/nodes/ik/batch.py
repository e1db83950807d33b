"""`solve_ik_batch` without its node: many targets in one request -> one status per target.

The request's size is bounded (`ik.max_batch_targets`), its targets are checked as a whole
(`targets.TargetCheck.planar_points`: the frame, the counts, the plane, the orientation), then
solved as a chain, each seeded by the one before, by the core's array solve (`solve_many` with
`chain`), and the answer's fields are filled from its arrays as a whole (no loop over targets
here; the words of the first failure only). A refused request raises a Refusal, which the node
answers; a target that fails is an answer (its status, a NaN row). No rclpy node here, message
types only. Units: metres, radians.
"""

from __future__ import annotations

import array
from collections.abc import Sequence

import numpy as np

from arm_kinematics.kinematics import IkArrays, IkStatus
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
    answers = setup.layout.solve_batch(points, branch, current)
    fill_batch(response, answers, request.stop_on_failure, setup.joint_names)
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
    answers: IkArrays,
    stop_on_failure: bool,
    joint_names: Sequence[str],
) -> None:
    """Per-target statuses, NaN rows for failures; with `stop_on_failure` the targets after
    the first failure are INVALID_INPUT, "not attempted" (a chain's earlier answers do not
    depend on its later targets, so the whole chain's answers are cut there)."""
    count = len(answers)
    status = answers.status.astype(np.uint8)
    failed = np.flatnonzero(status > IkStatus.SINGULAR)
    first_failure = int(failed[0]) if failed.size else -1
    attempted = first_failure + 1 if stop_on_failure and first_failure >= 0 else count
    status[attempted:] = _IK.INVALID_INPUT
    refused = status > IkStatus.SINGULAR
    positions = np.where(refused[:, None], np.nan, answers.joints)
    manipulability = np.where(refused, 0.0, answers.manipulability)
    response.joint_names = list(joint_names)
    response.statuses = status.tobytes()
    response.positions = _doubles(positions)
    response.manipulability = _doubles(manipulability)
    response.first_failure = first_failure
    if first_failure < 0:
        response.status = _IK.OK
        singular = int(np.count_nonzero(status == IkStatus.SINGULAR))
        response.message = f"all {count} targets solved ({singular} near a singularity)"
        return
    response.status = int(status[first_failure])
    solved = int(np.count_nonzero(~refused))
    response.message = (
        f"{solved} of {count} targets solved; first failure at index {first_failure} "
        f"({solve_ik_status_name(response.status)}): {answers.message(first_failure)}"
    )
    if attempted < count:
        response.message += (
            f"; stopped there, the {count - attempted} later targets were not attempted"
        )


def _doubles(values: np.ndarray) -> array.array:
    """A float64[] field's value from an array, row-major, without a loop per element."""
    doubles = array.array("d")
    doubles.frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return doubles
