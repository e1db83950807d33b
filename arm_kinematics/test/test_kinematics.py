"""Kinematics core: reference numbers, FK three ways, Jacobian, every IK status and branch rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import expm

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import (
    Branch,
    IkResult,
    IkStatus,
    PlanarArm,
    PlanStatus,
    wrap_angle,
)

DEG = math.pi / 180.0
ARM_2R = PlanarArm((1.0, 0.8))
ARM_3R = PlanarArm((1.0, 0.8, 0.3))
HALF_TURN_LIMITS = [(-math.pi / 2, math.pi / 2)] * 2


def assert_reaches(arm: PlanarArm, result: IkResult, x: float, y: float, tol: float = 1e-9):
    assert result.ok, result.message
    tip = arm.forward(result.joints)
    assert math.hypot(tip[0] - x, tip[1] - y) < tol


# --- forward kinematics -------------------------------------------------------------------


def test_reference_numbers_2r() -> None:
    base, elbow, tip = ARM_2R.frames((30 * DEG, 45 * DEG))
    assert base == (0.0, 0.0, 0.0)
    assert elbow[:2] == pytest.approx((0.8660, 0.5000), abs=5e-5)
    assert elbow[2] == pytest.approx(30 * DEG, abs=1e-12)
    assert tip[:2] == pytest.approx((1.0731, 1.2727), abs=5e-5)
    assert tip[2] == pytest.approx(75 * DEG, abs=1e-12)
    assert ARM_2R.forward((30 * DEG, 45 * DEG)) == tip


def test_reference_numbers_3r() -> None:
    x, y, heading = ARM_3R.forward((30 * DEG, 45 * DEG, -60 * DEG))
    assert (x, y) == pytest.approx((1.3629, 1.3504), abs=5e-5)
    assert heading == pytest.approx(15 * DEG, abs=1e-12)
    assert len(ARM_3R.frames((0.1, 0.2, 0.3))) == 4


def closed_form_fk(lengths, joints):
    phi = np.cumsum(joints)
    return (
        float(np.sum(np.asarray(lengths) * np.cos(phi))),
        float(np.sum(np.asarray(lengths) * np.sin(phi))),
        float(phi[-1]),
    )


def rot_z(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def trans_x(length):
    return np.array([[1.0, 0.0, length], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def homogeneous_fk(lengths, joints, bug_order=False):
    transform = np.eye(3)
    for theta, length in zip(joints, lengths, strict=True):
        link = trans_x(length) @ rot_z(theta) if bug_order else rot_z(theta) @ trans_x(length)
        transform = transform @ link
    return transform[0, 2], transform[1, 2], math.atan2(transform[1, 0], transform[0, 0])


def poe_tips(lengths, configurations):
    """Product of exponentials for every row of `configurations` (N, n):
    T = exp([S1] q1) ... exp([Sn] qn) M, planar screws about z, scipy's batched expm.

    Joint i sits at (offset_i, 0) in the zero configuration: unit twist omega = 1,
    v = -omega x q = (0, -offset_i); M puts the tip at (sum L, 0). Returns (N, 3).
    """
    count = len(configurations)
    transforms = np.broadcast_to(np.eye(3), (count, 3, 3))
    offsets = np.concatenate(([0.0], np.cumsum(lengths)[:-1]))
    for j, offset in enumerate(offsets):
        twist = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, -offset], [0.0, 0.0, 0.0]])
        transforms = transforms @ expm(twist[None] * configurations[:, j, None, None])
    transforms = transforms @ trans_x(float(np.sum(lengths)))
    return np.column_stack(
        (
            transforms[:, 0, 2],
            transforms[:, 1, 2],
            np.arctan2(transforms[:, 1, 0], transforms[:, 0, 0]),
        )
    )


@pytest.mark.parametrize(
    "lengths", [(1.0, 0.8), (1.0, 0.8, 0.3), (0.1, 0.08), (0.5, 0.4, 0.3, 0.2)]
)
def test_fk_three_ways_agree_on_1000_random_configurations(lengths) -> None:
    arm = PlanarArm(lengths)
    rng = np.random.default_rng(42)
    configurations = rng.uniform(-math.pi, math.pi, size=(1000, len(lengths)))
    poe = poe_tips(lengths, configurations)
    worst = 0.0
    for joints, by_poe in zip(configurations.tolist(), poe.tolist(), strict=True):
        x, y, heading = arm.forward(joints)
        for other in (closed_form_fk(lengths, joints), homogeneous_fk(lengths, joints), by_poe):
            worst = max(
                worst,
                abs(x - other[0]),
                abs(y - other[1]),
                abs(wrap_angle(heading - other[2])),
            )
    assert worst < 1e-12


def test_classic_fk_bugs_would_be_caught() -> None:
    lengths = (1.0, 0.8)
    reference = (1.0731, 1.2727)

    def misses(tip):
        return math.hypot(tip[0] - reference[0], tip[1] - reference[1]) > 0.01

    # The implementation meets the reference...
    assert not misses(ARM_2R.forward((30 * DEG, 45 * DEG)))
    # ...and each classic bug does not.
    degrees_to_trig = closed_form_fk(lengths, (30.0, 45.0))
    assert misses(degrees_to_trig)
    theta2_absolute = (
        math.cos(30 * DEG) + 0.8 * math.cos(45 * DEG),
        math.sin(30 * DEG) + 0.8 * math.sin(45 * DEG),
    )
    assert misses(theta2_absolute)
    swapped_order = homogeneous_fk(lengths, (30 * DEG, 45 * DEG), bug_order=True)
    assert misses(swapped_order)
    # The swapped order puts link 1 along +x whatever theta_1: caught on the elbow frame too.
    assert homogeneous_fk((1.0,), (30 * DEG,), bug_order=True)[:2] == pytest.approx((1.0, 0.0))


def test_fk_rejects_bad_joints() -> None:
    with pytest.raises(ValueError, match="2 joints"):
        ARM_2R.forward((0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match="finite"):
        ARM_2R.forward((0.1, math.nan))
    with pytest.raises(ValueError, match="numbers"):
        ARM_2R.frames(("a", 0.0))


# --- Jacobian and manipulability --------------------------------------------------------------


@pytest.mark.parametrize("lengths", [(1.0, 0.8), (1.0, 0.8, 0.3), (0.5, 0.4, 0.3, 0.2)])
def test_jacobian_matches_finite_differences(lengths) -> None:
    arm = PlanarArm(lengths)
    rng = np.random.default_rng(7)
    h = 1e-6
    for joints in rng.uniform(-math.pi, math.pi, size=(50, len(lengths))):
        jac = arm.jacobian(joints)
        assert jac.shape == (3, len(lengths))
        numeric = np.empty_like(jac)
        for i in range(len(lengths)):
            plus, minus = joints.copy(), joints.copy()
            plus[i] += h
            minus[i] -= h
            a, b = arm.forward(plus), arm.forward(minus)
            numeric[0, i] = (a[0] - b[0]) / (2 * h)
            numeric[1, i] = (a[1] - b[1]) / (2 * h)
            numeric[2, i] = wrap_angle(a[2] - b[2]) / (2 * h)
        np.testing.assert_allclose(jac, numeric, atol=1e-8)


def test_manipulability_2r_formula_and_general_definition() -> None:
    rng = np.random.default_rng(3)
    for joints in rng.uniform(-math.pi, math.pi, size=(100, 2)):
        expected = 1.0 * 0.8 * abs(math.sin(joints[1]))
        assert ARM_2R.manipulability(joints) == pytest.approx(expected, abs=1e-12)
    for joints in rng.uniform(-math.pi, math.pi, size=(100, 3)):
        jp = ARM_3R.jacobian(joints)[:2]
        expected = math.sqrt(max(0.0, np.linalg.det(jp @ jp.T)))
        assert ARM_3R.manipulability(joints) == pytest.approx(expected, abs=1e-12)
    assert ARM_2R.manipulability((0.3, 0.0)) == 0.0


def test_within_limits() -> None:
    arm = PlanarArm((1.0, 0.8), HALF_TURN_LIMITS)
    assert arm.within_limits((0.0, math.pi / 2))
    assert not arm.within_limits((0.0, math.pi / 2 + 1e-6))
    assert arm.within_limits((0.0, math.pi / 2 + 0.9e-9))  # LIMIT_TOLERANCE: rounding


def test_solution_at_a_limit_is_not_clamped() -> None:
    arm = PlanarArm((1.0, 0.8), [(-0.5, 0.5), (-2.0, 2.0)])
    x, y, _ = arm.forward((0.5, 1e-6))  # joint 1 at its limit, near full stretch
    result = arm.solve(x, y, branch=Branch.ELBOW_DOWN)
    assert_reaches(arm, result, x, y, tol=1e-12)
    assert abs(result.joints[0] - 0.5) < 1e-9
    assert PlanarArm((1.0, 0.8)).within_limits((100.0, -100.0))


# --- construction ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "words"),
    [
        (((1.0,),), {}, "at least 2 links"),
        (((1.0, 0.0),), {}, "link length 2 = 0.0"),
        (((1.0, -0.5),), {}, "link length 2 = -0.5"),
        (((1.0, math.inf),), {}, "link length 2 = inf"),
        (((1.0, math.nan),), {}, "link length 2 = nan"),
        (((1.0, "x"),), {}, "link length 2 = 'x'"),
        (("ab",), {}, "sequence of numbers"),
        (((1.0, 0.8), [(0.5, -0.5), (0, 1)]), {}, "joint 1 limits"),
        (((1.0, 0.8), [(0, 1)]), {}, "2 (min, max) pairs"),
        (((1.0, 0.8), [(0, math.nan), (0, 1)]), {}, "joint 1 limits"),
        (((1.0, 0.8),), {"singularity_margin": 1.5}, "singularity_margin 1.5"),
        (((1.0, 0.8),), {"edge_tolerance": -1.0}, "edge_tolerance -1.0"),
    ],
)
def test_invalid_construction_names_the_bad_value(args, kwargs, words) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        PlanarArm(*args, **kwargs)


def test_arm_attributes() -> None:
    arm = PlanarArm([0.1, 0.08], HALF_TURN_LIMITS)
    assert arm.link_lengths == (0.1, 0.08)
    assert arm.n_joints == 2
    assert arm.reach == pytest.approx(0.18)
    assert arm.joint_limits == ((-math.pi / 2, math.pi / 2),) * 2
    assert PlanarArm((1.0, 1.0)).joint_limits == ((-math.inf, math.inf),) * 2


# --- enums ----------------------------------------------------------------------------------


def test_enum_values_match_the_service_constants() -> None:
    from arm_kinematics_interfaces.srv import SolveIK

    for status in IkStatus:
        assert getattr(SolveIK.Response, status.name) == status.value
    for branch in Branch:
        assert getattr(SolveIK.Request, "BRANCH_" + branch.name) == branch.value
    assert PlanStatus.JOINT_JUMP not in {s.value for s in IkStatus}


def test_branch_from_name() -> None:
    assert Branch.from_name("elbow_up") is Branch.ELBOW_UP
    assert Branch.from_name("Max_Limit_Margin") is Branch.MAX_LIMIT_MARGIN
    assert Branch.from_name("CLOSEST") is Branch.CLOSEST
    with pytest.raises(ValueError, match="elbow_down"):
        Branch.from_name("up")


# --- IK statuses ----------------------------------------------------------------------------


def test_ok_reference_target_both_branches() -> None:
    x, y = 1.0730806398664554, 1.2727406610312546  # FK of (30, 45) deg
    down = ARM_2R.solve(x, y, branch=Branch.ELBOW_DOWN)
    assert down.status is IkStatus.OK
    assert down.joints == pytest.approx((30 * DEG, 45 * DEG), abs=1e-12)
    assert "elbow down" in down.message
    up = ARM_2R.solve(x, y, branch=Branch.ELBOW_UP)
    assert up.status is IkStatus.OK
    assert up.joints[1] == pytest.approx(-45 * DEG, abs=1e-12)
    assert "elbow up" in up.message
    assert down.alternative == up.joints
    assert up.alternative == down.joints
    for result in (up, down):
        assert_reaches(ARM_2R, result, x, y)
        assert result.manipulability == pytest.approx(0.8 * math.sin(45 * DEG), abs=1e-12)
        assert result.manipulability == pytest.approx(ARM_2R.manipulability(result.joints))


@pytest.mark.parametrize("angle_deg", [0, 45, 90, 135, 180, -135, -90, -45])
def test_elbow_up_is_counter_clockwise_of_the_base_target_line(angle_deg) -> None:
    r = 1.3
    x, y = r * math.cos(angle_deg * DEG), r * math.sin(angle_deg * DEG)
    up = ARM_2R.solve(x, y, branch=Branch.ELBOW_UP)
    down = ARM_2R.solve(x, y, branch=Branch.ELBOW_DOWN)
    assert up.joints[1] < 0 < down.joints[1]
    for result, side in ((up, 1.0), (down, -1.0)):
        assert_reaches(ARM_2R, result, x, y)
        ex, ey, _ = ARM_2R.frames(result.joints)[1]
        cross = x * ey - y * ex  # > 0: the elbow is counter-clockwise of base -> target
        assert cross * side > 0
        assert all(-math.pi < q <= math.pi for q in result.joints)
    if angle_deg == 0:
        assert ARM_2R.frames(up.joints)[1][1] > 0  # above the line for a target in front


def test_singular_near_full_stretch_and_full_fold() -> None:
    arm = PlanarArm((1.0, 0.8), singularity_margin=0.05)
    stretch = arm.solve(1.8 - 1e-4, 0.0)
    assert stretch.status is IkStatus.SINGULAR
    assert "slow down" in stretch.message
    assert abs(math.sin(stretch.joints[1])) < 0.05
    assert_reaches(arm, stretch, 1.8 - 1e-4, 0.0)
    fold = arm.solve(0.0, 0.2 + 1e-4)
    assert fold.status is IkStatus.SINGULAR
    assert_reaches(arm, fold, 0.0, 0.2 + 1e-4)
    assert abs(fold.joints[1]) > 3.0
    # Just outside the margin: OK.
    theta2 = math.asin(0.06)
    x, y, _ = arm.forward((0.2, theta2))
    assert arm.solve(x, y).status is IkStatus.OK
    # The margin is a parameter.
    assert PlanarArm((1.0, 0.8), singularity_margin=0.0).solve(1.8 - 1e-4, 0).status is (
        IkStatus.OK
    )


def test_target_within_edge_tolerance_is_solved_on_the_edge() -> None:
    arm = PlanarArm((1.0, 0.8), edge_tolerance=1e-6)
    for r, theta2 in ((1.8 + 0.9e-6, 0.0), (0.2 - 0.9e-6, math.pi)):
        for angle in (0.3, -2.0):
            x, y = r * math.cos(angle), r * math.sin(angle)
            result = arm.solve(x, y)
            assert result.status is IkStatus.SINGULAR, result.message
            assert result.joints[1] == theta2  # exactly on the edge, no NaN, no acos error
            assert result.alternative is None  # both branches coincide
            tip = arm.forward(result.joints)
            assert math.hypot(tip[0] - x, tip[1] - y) == pytest.approx(0.9e-6, abs=1e-12)
    # On the edge up to rounding: solved, flagged, exact.
    for x, y in ((1.8, 0.0), (0.0, -1.8), (0.2, 0.0), (0.0, 0.2)):
        result = arm.solve(x, y)
        assert result.status is IkStatus.SINGULAR
        assert_reaches(arm, result, x, y)


def test_too_far_and_too_close_checked_on_the_radius() -> None:
    far = ARM_2R.solve(1.8 + 2e-6, 0.0)
    assert far.status is IkStatus.TOO_FAR
    assert far.joints is None
    assert far.manipulability == 0.0
    assert "reach of 1.8 m" in far.message
    far = ARM_2R.solve(3.0, 4.0)
    assert "5 m from the base" in far.message
    close = ARM_2R.solve(0.0, 0.1)
    assert close.status is IkStatus.TOO_CLOSE
    assert "hole of radius 0.2 m" in close.message
    assert PlanarArm((1.0, 1.0)).solve(0.0, 0.0).status is IkStatus.SINGULAR
    # Huge and tiny numbers: statuses, not overflow.
    assert ARM_2R.solve(1e308, 1e308).status is IkStatus.TOO_FAR
    assert ARM_2R.solve(1e-300, -1e-300).status is IkStatus.TOO_CLOSE


def test_joint_limit_when_every_candidate_breaks_a_limit() -> None:
    arm = PlanarArm((1.0, 0.8), HALF_TURN_LIMITS)
    result = arm.solve(-1.0, -0.3)  # behind the base: joint 1 would need about +-117..150 deg
    assert result.status is IkStatus.JOINT_LIMIT
    assert result.joints is None
    assert "joint 1 = " in result.message
    assert "outside [-90.00 deg, 90.00 deg]" in result.message


def test_near_singular_out_of_limits_is_joint_limit_not_singular() -> None:
    arm = PlanarArm((1.0, 0.8), HALF_TURN_LIMITS)
    result = arm.solve(-1.8 + 1e-5, 0.0)
    assert result.status is IkStatus.JOINT_LIMIT
    on_edge = arm.solve(-1.8 - 1e-7, 0.0)
    assert on_edge.status is IkStatus.JOINT_LIMIT


def test_requested_infeasible_elbow_says_the_other_is_feasible() -> None:
    arm = PlanarArm((1.0, 0.8), [(-math.pi / 2, math.pi / 2), (0.0, math.pi)])
    x, y, _ = arm.forward((0.3, 1.0))
    result = arm.solve(x, y, branch=Branch.ELBOW_UP)
    assert result.status is IkStatus.JOINT_LIMIT
    assert "elbow up needs joint 2" in result.message
    assert "elbow down branch is feasible" in result.message
    assert arm.solve(x, y, branch=Branch.ELBOW_DOWN).joints == pytest.approx((0.3, 1.0))
    closest = arm.solve(x, y, current=(0.0, -0.5))
    assert closest.joints == pytest.approx((0.3, 1.0))
    assert closest.alternative is None
    assert "only branch within limits" in closest.message


def test_limits_beyond_pi_need_a_two_pi_shift() -> None:
    arm = PlanarArm((1.0, 0.8), [(0.0, 2 * math.pi), (0.0, 2 * math.pi)])
    for x, y in ((0.3, -1.2), (-1.0, -0.5), (1.2, 0.4)):
        for branch in (Branch.ELBOW_UP, Branch.ELBOW_DOWN):
            result = arm.solve(x, y, branch=branch)
            assert_reaches(arm, result, x, y)
            assert arm.within_limits(result.joints)
            assert all(0.0 <= q <= 2 * math.pi for q in result.joints)
        assert arm.solve(x, y, branch=Branch.ELBOW_UP).joints[1] > math.pi  # -t2 + 2 pi


def test_orientation_unreachable_2r() -> None:
    x, y, heading = ARM_2R.forward((0.4, 0.9))
    assert ARM_2R.solve(x, y, heading).joints == pytest.approx((0.4, 0.9), abs=1e-12)
    assert ARM_2R.solve(x, y, heading + 2 * math.pi).status is IkStatus.OK
    result = ARM_2R.solve(x, y, heading + 0.2)
    assert result.status is IkStatus.ORIENTATION_UNREACHABLE
    assert f"{math.degrees(heading):.2f} deg (elbow down)" in result.message
    wrong_elbow = ARM_2R.solve(x, y, heading, branch=Branch.ELBOW_UP)
    assert wrong_elbow.status is IkStatus.ORIENTATION_UNREACHABLE
    assert "elbow down has the requested heading" in wrong_elbow.message
    # Orientation precedes joint limits: an unreachable heading is never reported as a limit.
    limited = PlanarArm((1.0, 0.8), [(-0.1, 0.1), (-0.1, 0.1)])
    assert limited.solve(x, y, heading + 0.2).status is IkStatus.ORIENTATION_UNREACHABLE
    assert limited.solve(x, y, heading).status is IkStatus.JOINT_LIMIT


def test_messages_print_lengths_to_the_micrometre_without_float_noise() -> None:
    # A target dragged to 5.00001e-3 m (pixels do that), and a heading of 180 deg whose sine
    # leaves -3.7e-17 m in the wrist point: the texts say what a person would write.
    close = ARM_2R.solve(0.0050000123, 0.0)
    assert close.status is IkStatus.TOO_CLOSE
    assert "target (0.005, 0) m is 0.005 m from the base" in close.message
    wrist = ARM_3R.solve(1.6, 0.0, math.pi)
    assert wrist.status is IkStatus.ORIENTATION_UNREACHABLE
    assert "wrist point (1.9, 0) is 1.9 m from the base, outside the ring [0.2, 1.8] m" in (
        wrist.message
    )
    assert "heading 180.00 deg" in wrist.message
    for message in (close.message, wrist.message):
        assert "e-" not in message
        assert "00001" not in message
        assert "-0.00 " not in message


def test_orientation_unreachable_3r_when_the_wrist_is_off_the_ring() -> None:
    result = ARM_3R.solve(2.0, 0.0, math.pi / 2)
    assert result.status is IkStatus.ORIENTATION_UNREACHABLE
    assert "wrist point (2, -0.3)" in result.message
    assert "reachable headings there" in result.message
    # The same position without a heading is reachable, and too far is still too far.
    assert ARM_3R.solve(2.0, 0.0).ok
    assert ARM_3R.solve(2.2, 0.0, 0.0).status is IkStatus.TOO_FAR


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"x": math.nan, "y": 0.5}, "finite"),
        ({"x": 1.0, "y": math.inf}, "finite"),
        ({"x": "1.0", "y": 0.5}, "numbers"),
        ({"x": None, "y": 0.5}, "numbers"),
        ({"x": 1.0, "y": 0.5, "heading": math.nan}, "heading"),
        ({"x": 1.0, "y": 0.5, "current": (0.1,)}, "1 values but the arm has 2 joints"),
        ({"x": 1.0, "y": 0.5, "current": (0.1, math.nan)}, "NaN"),
        ({"x": 1.0, "y": 0.5, "current": 5}, "joint angles"),
        ({"x": 1.0, "y": 0.5, "branch": 7}, "unknown branch 7"),
        ({"x": 1.0, "y": 0.5, "branch": -1}, "unknown branch"),
        ({"x": 1.0, "y": 0.5, "branch": 1.0}, "unknown branch"),
        ({"x": 1.0, "y": 0.5, "branch": True}, "unknown branch"),
        ({"x": 1.0, "y": 0.5, "branch": "sideways"}, "unknown branch"),
    ],
)
def test_invalid_input(kwargs, words) -> None:
    result = ARM_2R.solve(**kwargs)
    assert result.status is IkStatus.INVALID_INPUT
    assert result.joints is None
    assert not result.ok
    assert words in result.message


def test_branch_accepts_valid_ints_and_names() -> None:
    assert ARM_2R.solve(1.0, 0.5, branch=1).joints[1] < 0
    assert ARM_2R.solve(1.0, 0.5, branch=np.uint8(2)).joints[1] > 0
    assert ARM_2R.solve(1.0, 0.5, branch="elbow_down").joints[1] > 0


def test_more_than_three_joints_is_invalid_input_but_fk_works() -> None:
    arm = PlanarArm((0.5, 0.4, 0.3, 0.2))
    result = arm.solve(0.5, 0.5)
    assert result.status is IkStatus.INVALID_INPUT
    assert "2 and 3 joints" in result.message
    assert len(arm.frames((0.1, 0.2, 0.3, 0.4))) == 5


def test_invalid_input_precedes_the_ring() -> None:
    assert ARM_2R.solve(100.0, 0.0, branch=9).status is IkStatus.INVALID_INPUT
    assert ARM_2R.solve(100.0, 0.0, current=(1.0,)).status is IkStatus.INVALID_INPUT


# --- branch rules ---------------------------------------------------------------------------


def test_closest_takes_the_least_motion_the_short_way_round() -> None:
    # Elbow-up solution with joint 1 just past -pi; current joint 1 just below +pi.
    q_up = (-math.pi + 0.05, -1.0)
    x, y, _ = ARM_2R.forward(q_up)
    q_down = ARM_2R.solve(x, y, branch=Branch.ELBOW_DOWN).joints
    current = (math.pi - 0.05, -0.5)

    def naive(q):
        return sum((a - b) ** 2 for a, b in zip(q, current, strict=True))

    def short(q):
        return sum(wrap_angle(a - b) ** 2 for a, b in zip(q, current, strict=True))

    assert naive(q_down) < naive(q_up)  # a metric without wrap-around would pick elbow down
    assert short(q_up) < short(q_down)
    result = ARM_2R.solve(x, y, current=current)
    assert result.joints == pytest.approx(q_up, abs=1e-12)
    assert "least motion" in result.message
    assert result.alternative == pytest.approx(q_down)
    # And from near the elbow-down pose, elbow down.
    near_down = ARM_2R.solve(x, y, current=(q_down[0] + 0.1, q_down[1] - 0.1))
    assert near_down.joints == pytest.approx(q_down)


def test_closest_without_current_is_max_limit_margin() -> None:
    arm = PlanarArm((1.0, 0.8), [(-math.pi / 2, math.pi / 2), (-math.pi, math.pi)])
    x, y, _ = arm.forward((-0.3, 1.0))  # elbow up would put joint 1 near its upper limit
    up = arm.solve(x, y, branch=Branch.ELBOW_UP)
    down = arm.solve(x, y, branch=Branch.ELBOW_DOWN)
    assert up.ok
    assert down.ok

    def margin(q):
        return min(min(v - lo, hi - v) for v, (lo, hi) in zip(q, arm.joint_limits, strict=True))

    best = up if margin(up.joints) > margin(down.joints) else down
    assert margin(best.joints) > 0.1 + min(margin(up.joints), margin(down.joints))
    assert arm.solve(x, y, branch=Branch.MAX_LIMIT_MARGIN).joints == best.joints
    assert arm.solve(x, y).joints == best.joints
    assert "largest joint-limit margin" in arm.solve(x, y).message
    # Without limits the margins tie: elbow up.
    assert ARM_2R.solve(x, y).joints[1] < 0


# --- 3R -------------------------------------------------------------------------------------


def test_3r_with_heading() -> None:
    joints = (30 * DEG, 45 * DEG, -60 * DEG)
    x, y, heading = ARM_3R.forward(joints)
    result = ARM_3R.solve(x, y, heading, branch=Branch.ELBOW_DOWN)
    assert result.joints == pytest.approx(joints, abs=1e-12)
    assert ARM_3R.forward(result.alternative)[2] == pytest.approx(heading, abs=1e-12)
    assert result.manipulability == pytest.approx(ARM_3R.manipulability(joints), abs=1e-12)


def test_3r_without_heading_points_away_from_the_base() -> None:
    x, y = 0.9, 1.1
    result = ARM_3R.solve(x, y)
    assert_reaches(ARM_3R, result, x, y)
    assert ARM_3R.forward(result.joints)[2] == pytest.approx(math.atan2(y, x), abs=1e-12)
    assert "pointing away from the base" in result.message
    # Near full reach the away heading is the only one, and close in it is not reachable.
    edge = ARM_3R.solve(2.1 - 1e-9, 0.0)
    assert edge.status is IkStatus.SINGULAR
    close = ARM_3R.solve(0.3, 0.0)  # wrist at 0 for the away heading: inside the hole
    assert_reaches(ARM_3R, close, 0.3, 0.0)
    assert abs(wrap_angle(ARM_3R.forward(close.joints)[2])) > 0.1


def test_3r_without_heading_takes_the_least_motion_from_current() -> None:
    current = (0.2, 0.9, 0.4)
    x, y = 1.1, 1.0
    result = ARM_3R.solve(x, y, current=current)
    assert_reaches(ARM_3R, result, x, y)

    def motion(q):
        return sum(wrap_angle(a - b) ** 2 for a, b in zip(q, current, strict=True))

    best_grid = min(
        motion(r.joints)
        for h in np.linspace(-math.pi, math.pi, 2001)
        for r in (
            ARM_3R.solve(x, y, h, Branch.ELBOW_UP),
            ARM_3R.solve(x, y, h, Branch.ELBOW_DOWN),
        )
        if r.ok
    )
    assert motion(result.joints) <= best_grid + 1e-9
    # A current that is a solution is found exactly.
    here = ARM_3R.forward(current)
    again = ARM_3R.solve(here[0], here[1], current=current)
    assert again.joints == pytest.approx(current, abs=1e-7)


def test_3r_free_heading_with_joint_limits_finds_a_feasible_heading() -> None:
    limits = [(-math.pi / 2, math.pi / 2), (-math.pi / 2, math.pi / 2), (-0.2, 0.2)]
    arm = PlanarArm((1.0, 0.8, 0.3), limits)
    x, y = 0.2, 1.5  # away heading needs joint 3 far from 0
    result = arm.solve(x, y)
    assert_reaches(arm, result, x, y)
    assert arm.within_limits(result.joints)
    assert "nearest feasible" in result.message


# --- many targets and the default arm ---------------------------------------------------------


def test_solve_chain_seeds_each_target_by_the_previous_solution() -> None:
    xs = [1.2, 1.1, 5.0, 1.0]
    ys = [0.3, 0.4, 0.0, 0.5]
    results = ARM_2R.solve_chain(xs, ys, current=(0.8, 1.0))
    assert [r.status for r in results] == [
        IkStatus.OK,
        IkStatus.OK,
        IkStatus.TOO_FAR,
        IkStatus.OK,
    ]
    # Elbow down from the seed, then every later one stays on it (least motion).
    assert all(r.joints[1] > 0 for r in results if r.ok)
    assert results[0].joints == ARM_2R.solve(1.2, 0.3, current=(0.8, 1.0)).joints
    assert results[3].joints == ARM_2R.solve(1.0, 0.5, current=results[1].joints).joints
    stopped = ARM_2R.solve_chain(xs, ys, stop_on_failure=True)
    assert [r.status for r in stopped] == [IkStatus.OK, IkStatus.OK, IkStatus.TOO_FAR]
    mismatch = ARM_2R.solve_chain([1.0, 1.1], [0.5])
    assert [r.status for r in mismatch] == [IkStatus.INVALID_INPUT] * 2
    headings = ARM_2R.solve_chain([1.0], [0.5], headings=[0.3])
    assert headings[0].status is IkStatus.ORIENTATION_UNREACHABLE


def test_default_arm_from_config() -> None:
    config = ArmConfig.from_file()
    arm = config.make_arm()
    assert arm.link_lengths == config.link_lengths
    assert arm.joint_limits == config.joint_limits
    for x, y in ((0.12, 0.05), (0.1, -0.1), (0.05, 0.15), (0.179, 0.0)):
        result = arm.solve(x, y, current=config.home)
        assert_reaches(arm, result, x, y)
        assert arm.within_limits(result.joints)
    assert arm.solve(0.0, 0.01).status is IkStatus.TOO_CLOSE
    assert arm.solve(0.2, 0.0).status is IkStatus.TOO_FAR
    assert arm.solve(-0.15, 0.0).status is IkStatus.JOINT_LIMIT


@pytest.mark.parametrize(
    "arm",
    [
        ARM_2R,
        PlanarArm((1.0, 0.8), HALF_TURN_LIMITS),
        PlanarArm((0.1, 0.08), [(-1.5, 1.5), (-2.8, -0.2)]),
        PlanarArm((1.0, 0.8), [(-1.0, 2.0), None]),  # mixed limits
        PlanarArm((1.0, 0.8), [(-1.0, 2.0), (-math.pi, 3.0)]),  # a limit at pi
    ],
)
def test_solve_answers_the_same_whatever_types_carry_the_inputs(arm) -> None:
    """Python floats, a Branch and a tuple seed give the same answer as numpy floats, an int
    branch value and a list seed (over the ring, its edges and outside it)."""
    rng = np.random.default_rng(11)
    reach = arm.reach
    for x, y, c1, c2, branch in zip(
        rng.uniform(-1.1 * reach, 1.1 * reach, 3000).tolist(),
        rng.uniform(-1.1 * reach, 1.1 * reach, 3000).tolist(),
        rng.uniform(-4, 4, 3000).tolist(),
        rng.uniform(-4, 4, 3000).tolist(),
        rng.integers(0, 4, 3000).tolist(),
        strict=True,
    ):
        for current in (None, (c1, c2)):
            plain = arm.solve(x, y, None, Branch(branch), current)
            other = arm.solve(
                np.float64(x),
                np.float64(y),
                None,
                int(branch),
                None if current is None else [np.float64(c1), c2],
            )
            assert plain == other


def test_closest_from_a_pose_gives_back_that_pose() -> None:
    arm = PlanarArm((1.0, 0.8))
    rng = np.random.default_rng(3)
    for q in rng.uniform(-math.pi, math.pi, (1000, 2)).tolist():
        tip = arm.forward(q)
        result = arm.solve(tip[0], tip[1], current=q)
        assert result.ok
        back = arm.forward(result.joints)
        assert math.hypot(back[0] - tip[0], back[1] - tip[1]) < 1e-9
        if abs(math.sin(q[1])) > 1e-3:  # away from full stretch and fold
            assert arm.joint_delta(q, result.joints) == pytest.approx((0.0, 0.0), abs=1e-7)


@pytest.mark.parametrize("branch", list(Branch))
def test_ring_edges_solve_on_the_edge_within_the_tolerance_and_refuse_beyond(branch) -> None:
    arm = PlanarArm((1.0, 0.8))
    inner, outer = arm.ring
    tolerance = arm.edge_tolerance
    expected = {
        inner: IkStatus.SINGULAR,
        outer: IkStatus.SINGULAR,
        outer + 0.5 * tolerance: IkStatus.SINGULAR,
        inner - 0.5 * tolerance: IkStatus.SINGULAR,
        outer + 2 * tolerance: IkStatus.TOO_FAR,
        inner - 2 * tolerance: IkStatus.TOO_CLOSE,
    }
    for radius, status in expected.items():
        for angle in np.linspace(-math.pi, math.pi, 25).tolist():
            x, y = radius * math.cos(angle), radius * math.sin(angle)
            result = arm.solve(x, y, branch=branch)
            assert result.status is status, (radius, angle, result.message)
            if result.ok:
                edge = inner if radius < 1.0 else outer
                tip = arm.forward(result.joints)
                assert math.hypot(tip[0], tip[1]) == pytest.approx(edge, abs=1e-12)
                if not inner <= radius <= outer:  # solved exactly on the edge
                    assert result.alternative is None  # one configuration there
