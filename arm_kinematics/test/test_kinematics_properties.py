"""Property tests (hypothesis) of the kinematics core: round trips, statuses, no NaN, no crash."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics import Branch, IkResult, IkStatus, PlanarArm, wrap_angle

SETTINGS = settings(max_examples=300, deadline=None)

angles = st.floats(-math.pi, math.pi, allow_nan=False)
lengths = st.floats(0.05, 2.0, allow_nan=False)
branches = st.sampled_from(list(Branch))


def tip_error(arm: PlanarArm, joints, x: float, y: float) -> float:
    tip = arm.forward(joints)
    return math.hypot(tip[0] - x, tip[1] - y)


def check_result(arm: PlanarArm, result: IkResult) -> None:
    """Whatever the input: a well-formed result, never NaN."""
    assert isinstance(result, IkResult)
    assert isinstance(result.status, IkStatus)
    assert isinstance(result.message, str)
    assert result.message
    assert math.isfinite(result.manipulability)
    assert result.manipulability >= 0.0
    if result.ok:
        assert len(result.joints) == arm.n_joints
        assert all(math.isfinite(q) for q in result.joints)
        assert arm.within_limits(result.joints)
        if result.alternative is not None:
            assert all(math.isfinite(q) for q in result.alternative)
    else:
        assert result.joints is None
        assert result.alternative is None
        assert result.manipulability == 0.0


@SETTINGS
@given(l1=lengths, l2=lengths, q1=angles, q2=angles, branch=branches)
def test_round_trip_2r(l1, l2, q1, q2, branch) -> None:
    arm = PlanarArm((l1, l2))
    x, y, _ = arm.forward((q1, q2))
    result = arm.solve(x, y, branch=branch, current=(q1, q2))
    check_result(arm, result)
    assert result.ok, result.message
    assert tip_error(arm, result.joints, x, y) < 1e-9
    if branch is Branch.ELBOW_UP:
        assert result.joints[1] <= 0.0 or result.joints[1] == math.pi
    if branch is Branch.ELBOW_DOWN:
        assert result.joints[1] >= 0.0
    if branch is Branch.CLOSEST and abs(math.sin(q2)) > 1e-3:
        # The pose itself is a candidate: least motion finds it.
        assert abs(wrap_angle(result.joints[0] - q1)) < 1e-6
        assert abs(wrap_angle(result.joints[1] - q2)) < 1e-6


@SETTINGS
@given(
    l1=lengths,
    l2=lengths,
    q1=st.floats(-1.5, 1.5),
    q2=st.floats(-2.5, 2.5),
    data=st.data(),
)
def test_round_trip_2r_with_limits(l1, l2, q1, q2, data) -> None:
    # q is drawn within [-1.5, 1.5] x [-2.5, 2.5]; the arm's limits are 1e-6 rad wider because
    # a target at a limit AND near full stretch is ill-conditioned: rounding of the target
    # (1e-16 m) moves the IK angles by up to ~sqrt(1e-16) = 1e-8 rad there.
    limits = [(-1.5 - 1e-6, 1.5 + 1e-6), (-2.5 - 1e-6, 2.5 + 1e-6)]
    arm = PlanarArm((l1, l2), limits)
    x, y, _ = arm.forward((q1, q2))
    branch = data.draw(st.sampled_from([Branch.CLOSEST, Branch.MAX_LIMIT_MARGIN]))
    current = data.draw(st.one_of(st.none(), st.tuples(angles, angles)))
    result = arm.solve(x, y, branch=branch, current=current)
    check_result(arm, result)
    assert result.ok, result.message  # (q1, q2) itself is within limits
    assert tip_error(arm, result.joints, x, y) < 1e-9


@SETTINGS
@given(
    link=st.tuples(lengths, lengths, lengths),
    q=st.tuples(angles, angles, angles),
    branch=branches,
    limited=st.booleans(),
)
def test_round_trip_3r_with_heading(link, q, branch, limited) -> None:
    limits = [(-math.pi, math.pi)] * 3 if limited else None
    arm = PlanarArm(link, limits)
    x, y, heading = arm.forward(q)
    result = arm.solve(x, y, heading, branch=branch if limited else Branch.CLOSEST, current=q)
    check_result(arm, result)
    assert result.ok, result.message
    assert tip_error(arm, result.joints, x, y) < 1e-9
    assert abs(wrap_angle(arm.forward(result.joints)[2] - heading)) < 1e-9


@SETTINGS
@given(link=st.tuples(lengths, lengths, lengths), q=st.tuples(angles, angles, angles))
# Equal first links folding the wrist onto the base: once snapped to the fold 9.4e-8 m off.
@example(link=(1.0, 1.0, 1.0), q=(math.pi, 3.1415926535897927, 0.0))
def test_round_trip_3r_free_heading(link, q) -> None:
    arm = PlanarArm(link)
    x, y, _ = arm.forward(q)
    for current in (None, q):
        result = arm.solve(x, y, current=current)
        check_result(arm, result)
        assert result.ok, result.message
        assert tip_error(arm, result.joints, x, y) < 1e-9


@SETTINGS
@given(
    link=st.tuples(lengths, lengths, lengths),
    q=st.tuples(st.floats(-1.5, 1.5), st.floats(-2.5, 2.5), st.floats(-1.0, 1.0)),
)
def test_round_trip_3r_free_heading_with_limits_from_current(link, q) -> None:
    arm = PlanarArm(link, [(-1.5, 1.5), (-2.5, 2.5), (-1.0, 1.0)])
    x, y, _ = arm.forward(q)
    result = arm.solve(x, y, current=q)
    check_result(arm, result)
    assert result.ok, result.message  # q itself is feasible and its heading is tried
    assert tip_error(arm, result.joints, x, y) < 1e-9


@SETTINGS
@given(
    l1=lengths,
    l2=lengths,
    angle=angles,
    beyond=st.floats(1e-5, 1e6),
    heading=st.one_of(st.none(), angles),
    branch=branches,
)
def test_unreachable_targets_get_the_right_status_2r(
    l1, l2, angle, beyond, heading, branch
) -> None:
    arm = PlanarArm((l1, l2), [(-1.0, 1.0), (-1.0, 1.0)])  # limits must not mask the ring
    r = l1 + l2 + beyond
    far = arm.solve(r * math.cos(angle), r * math.sin(angle), heading, branch)
    check_result(arm, far)
    assert far.status is IkStatus.TOO_FAR
    inner = abs(l1 - l2)
    assume(inner > 2e-5)
    r = inner * (1.0 - min(beyond, 0.999))
    assume(inner - r > 2e-6)
    close = arm.solve(r * math.cos(angle), r * math.sin(angle), heading, branch)
    check_result(arm, close)
    assert close.status is IkStatus.TOO_CLOSE


@SETTINGS
@given(
    link=st.tuples(lengths, lengths, lengths),
    angle=angles,
    beyond=st.floats(1e-5, 10.0),
    heading=st.one_of(st.none(), angles),
)
def test_unreachable_targets_get_the_right_status_3r(link, angle, beyond, heading) -> None:
    arm = PlanarArm(link)
    inner, outer = arm.ring
    r = outer + beyond
    far = arm.solve(r * math.cos(angle), r * math.sin(angle), heading)
    check_result(arm, far)
    assert far.status is IkStatus.TOO_FAR
    if inner * beyond > 2e-6 and beyond < 1.0:  # beyond the edge tolerance (1e-6 m)
        r = inner * (1.0 - beyond)
        close = arm.solve(r * math.cos(angle), r * math.sin(angle), heading)
        check_result(arm, close)
        assert close.status is IkStatus.TOO_CLOSE


@SETTINGS
@given(l1=lengths, l2=lengths, q1=angles, q2=angles, offset=st.floats(-math.pi, math.pi))
def test_2r_meets_a_heading_exactly_when_the_elbow_fits(l1, l2, q1, q2, offset) -> None:
    arm = PlanarArm((l1, l2))
    x, y, heading = arm.forward((q1, q2))
    wanted = heading + offset
    # Independent criterion: with heading h the elbow must sit at (x, y) - L2 (cos h, sin h),
    # which must be L1 from the base.
    misfit = abs(math.hypot(x - l2 * math.cos(wanted), y - l2 * math.sin(wanted)) - l1)
    assume(misfit < 1e-11 or misfit > 1e-9)
    result = arm.solve(x, y, wanted)
    check_result(arm, result)
    if misfit > 1e-9:
        assert result.status is IkStatus.ORIENTATION_UNREACHABLE
        assert "only with heading" in result.message
    else:
        assert result.ok, result.message
        assert tip_error(arm, result.joints, x, y) < 1e-9
        assert abs(wrap_angle(arm.forward(result.joints)[2] - wanted)) < 1e-12
    # The pose's own heading is always met.
    exact = arm.solve(x, y, heading)
    assert exact.ok
    assert tip_error(arm, exact.joints, x, y) < 1e-9


@SETTINGS
@given(
    link=st.one_of(st.tuples(lengths, lengths), st.tuples(lengths, lengths, lengths)),
    angle=st.one_of(st.sampled_from([0.0, math.pi / 2, math.pi, -math.pi / 2]), angles),
    edge=st.sampled_from(["inner", "outer"]),
    offset=st.sampled_from([0.0, 5e-7, -5e-7, 1e-6, 2e-6]),
    heading=st.one_of(st.none(), angles),
    limits=st.lists(st.tuples(st.floats(-4, 0), st.floats(0, 4)), min_size=3, max_size=3),
    branch=branches,
    current=st.one_of(st.none(), st.tuples(angles, angles, angles)),
)
def test_targets_on_the_ring_edges_never_crash(
    link, angle, edge, offset, heading, limits, branch, current
) -> None:
    n = len(link)
    arm = PlanarArm(link, limits[:n])
    inner, outer = arm.ring
    r = max(0.0, (inner if edge == "inner" else outer) + offset)
    result = arm.solve(
        r * math.cos(angle), r * math.sin(angle), heading, branch, current and current[:n]
    )
    check_result(arm, result)
    if result.ok:
        assert tip_error(arm, result.joints, r * math.cos(angle), r * math.sin(angle)) < 3e-6


anything = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e-300, 1e-300),
    st.integers(-(10**400), 10**400),
    st.text(max_size=5),
    st.none(),
    st.booleans(),
    st.complex_numbers(),
    st.lists(st.floats(), max_size=4),
)


@SETTINGS
@given(
    n=st.sampled_from([2, 3, 4]),
    x=anything,
    y=anything,
    heading=anything,
    branch=st.one_of(st.integers(-5, 300), st.text(max_size=12), anything),
    current=st.one_of(st.none(), anything, st.lists(anything, max_size=4)),
)
def test_no_input_whatsoever_crashes_or_gives_nan(n, x, y, heading, branch, current) -> None:
    arm = PlanarArm((1.0, 0.8, 0.3, 0.2)[:n], [(-2.0, 2.0)] * n)
    result = arm.solve(x, y, heading, branch, current)
    check_result(arm, result)


@SETTINGS
@given(
    x=st.floats(-1e300, 1e300),
    y=st.floats(-1e300, 1e300),
    heading=st.one_of(st.none(), st.floats(-1e300, 1e300)),
    branch=branches,
    current=st.one_of(st.none(), st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))),
)
def test_finite_targets_never_give_nan(x, y, heading, branch, current) -> None:
    for arm in (PlanarArm((1.0, 0.8)), PlanarArm((1.0, 0.8), [(0.0, 2 * math.pi)] * 2)):
        check_result(arm, arm.solve(x, y, heading, branch, current))
    arm3 = PlanarArm((1.0, 0.8, 0.3))
    current3 = None if current is None else (*current, 0.0)
    check_result(arm3, arm3.solve(x, y, heading, branch, current3))


@SETTINGS
@given(
    link_lengths=st.one_of(anything, st.lists(anything, max_size=4)),
    joint_limits=st.one_of(st.none(), anything, st.lists(st.tuples(anything, anything))),
    margin=anything,
    tolerance=anything,
)
def test_constructor_raises_only_value_error(link_lengths, joint_limits, margin, tolerance) -> None:
    try:
        arm = PlanarArm(
            link_lengths, joint_limits, singularity_margin=margin, edge_tolerance=tolerance
        )
    except ValueError as error:
        problem = str(error)
    else:
        problem = None
    if problem is not None:
        assert problem  # the message names the bad value
        return
    assert arm.n_joints >= 2
    assert all(length > 0 and math.isfinite(length) for length in arm.link_lengths)


def test_3r_free_heading_finds_narrow_feasible_heading_windows() -> None:
    # On arm_3r.yaml the joint limits leave some tips only a window of headings about 2 degrees
    # wide, narrower than the 7.5 degrees between the heading search's samples: every tip of a
    # configuration within the limits must still be solved, never refused with JOINT_LIMIT.
    arm = ArmConfig.from_file(default_config_path("arm_3r.yaml")).make_arm()
    narrow = arm.solve(0.0803, -0.0715)  # feasible only for headings in [-155.98, -153.81] deg
    assert narrow.ok, narrow.message
    assert -155.99 <= math.degrees(arm.forward(narrow.joints)[2]) <= -153.80
    rng = np.random.default_rng(11)
    lower, upper = np.array(arm.joint_limits).T
    refused = []
    for joints in rng.uniform(lower, upper, size=(3000, 3)):
        x, y, _ = arm.forward(tuple(joints))
        result = arm.solve(x, y)
        if not result.ok:
            refused.append((x, y, result.status.name))
        elif math.dist(arm.forward(result.joints)[:2], (x, y)) > 1e-9:
            refused.append((x, y, "off target"))
    assert refused == []


@SETTINGS
@given(st.tuples(lengths, lengths, lengths), st.tuples(angles, angles, angles))
def test_a_3r_solve_reports_the_manipulability_of_the_general_definition(link_lengths, joints):
    # The solve's closed-form 3R manipulability (three sines) against sqrt(det(Jp Jp^T)) from
    # the joint positions, on the tip it solves for.
    arm = PlanarArm(link_lengths)
    x, y, heading = arm.forward(joints)
    result = arm.solve(x, y, heading)
    assume(result.ok)
    expected = arm.manipulability(result.joints)
    assert math.isclose(result.manipulability, expected, rel_tol=1e-9, abs_tol=1e-12)
