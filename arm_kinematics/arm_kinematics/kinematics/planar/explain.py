"""The texts of IkResult messages: what was solved, and why a target was refused.

Each function takes the values it prints and returns one line that starts with the status name.
Lengths in metres, angles in radians (printed in degrees). Lengths and coordinates are printed to
the micrometre (`metres_text`), the scale of `edge_tolerance`, so float noise never shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..angles import wrap_angle
from ..types import Branch


def degrees_text(angle: float) -> str:
    """An angle (rad) as text in degrees.

    >>> degrees_text(math.pi / 6), degrees_text(-1e-17)
    ('30.00 deg', '0.00 deg')
    """
    text = f"{math.degrees(angle):.2f}"  # correctly rounded, as round(., 2) is
    return "0.00 deg" if text == "-0.00" else text + " deg"


def metres_text(value: float) -> str:
    """A length or coordinate (m) as text: rounded to the micrometre, no trailing zeros.

    A dragged target 5.00001e-3 m off reads 0.005, not 0.00500001; a sine's 1e-18 reads 0.
    From a kilometre on, six significant digits (no 300-digit text for 1e300).

    >>> metres_text(0.0050000123), metres_text(-4.9e-18), metres_text(0.1 + 0.2), metres_text(3.0)
    ('0.005', '0', '0.3', '3')
    >>> metres_text(1e300)
    '1e+300'
    """
    if not abs(value) < 1e3:  # also inf and nan
        return f"{value:.6g}"
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def point_text(x: float, y: float) -> str:
    """A point (m) as text, each coordinate by `metres_text`.

    >>> point_text(0.174405123, 1e-17)
    '(0.174405, 0)'
    """
    return f"({metres_text(x)}, {metres_text(y)})"


def too_far_text(x: float, y: float, r: float, outer: float) -> str:
    """TOO_FAR: the target is `r` m from the base, the arm reaches `outer` m.

    >>> too_far_text(3.0, 0.0, 3.0, 1.8)
    "TOO_FAR: target (3, 0) m is 3 m from the base, beyond the arm's reach of 1.8 m (by 1.2 m)"
    """
    return (
        f"TOO_FAR: target {point_text(x, y)} m is {metres_text(r)} m from the base, beyond the "
        f"arm's reach of {metres_text(outer)} m (by {r - outer:.3g} m)"
    )


def too_close_text(x: float, y: float, r: float, inner: float) -> str:
    """TOO_CLOSE: the target is `r` m from the base, inside the hole of radius `inner` m.

    >>> too_close_text(0.1, 0.0, 0.1, 0.2)[:52]
    'TOO_CLOSE: target (0.1, 0) m is 0.1 m from the base,'
    """
    return (
        f"TOO_CLOSE: target {point_text(x, y)} m is {metres_text(r)} m from the base, inside "
        f"the unreachable hole of radius {metres_text(inner)} m around the base "
        f"(by {inner - r:.3g} m)"
    )


def solved_text(joints: Sequence[float], coincident: bool, reason: str) -> str:
    """OK: which elbow was chosen (joint 2 < 0 is elbow up) and why.

    >>> solved_text((0.5, 0.8), False, " (largest joint-limit margin)")
    'OK: solved elbow down (largest joint-limit margin)'
    """
    if coincident:
        shape = "at full fold" if abs(joints[1]) > 1.0 else "at full stretch"
    else:
        shape = "elbow up" if joints[1] < 0.0 else "elbow down"
    return f"OK: solved {shape}{reason}"


def singular_text(ok_message: str, sin_elbow: float, margin: float) -> str:
    """SINGULAR: the OK message, then |sin(joint 2)| against the singularity margin.

    >>> singular_text("OK: solved elbow up", 0.01, 0.02)
    'SINGULAR: solved elbow up, but |sin(joint 2)| = 0.01 is below the singularity margin 0.02: slow down'
    """  # noqa: E501
    return (
        f"SINGULAR: {ok_message[4:]}, but |sin(joint 2)| = {sin_elbow:.3g} is below the "
        f"singularity margin {margin:g}: slow down"
    )


def singular_words(
    joints: Sequence[float], coincident: bool, reason: str, sin_elbow: float, margin: float
) -> str:
    """SINGULAR: `solved_text`, then |sin(joint 2)| `sin_elbow` against the singularity
    `margin` (`singular_text`); the solve says it only when `sin_elbow` is below `margin`.

    >>> singular_words((0.5, 0.01), False, "", 0.01, 0.02)[:29]
    'SINGULAR: solved elbow down, '
    """
    return singular_text(solved_text(joints, coincident, reason), sin_elbow, margin)


def heading_note_text(message: str, heading: float, rule: str) -> str:
    """A solved message with the heading (rad) a 3R solve chose, and the rule it followed.

    >>> heading_note_text("OK: solved elbow up", 0.0, "pointing away from the base")
    'OK: solved elbow up; heading 0.00 deg chosen (pointing away from the base)'
    """
    return f"{message}; heading {degrees_text(wrap_angle(heading))} chosen ({rule})"


def heading_mismatch_text(
    x: float, y: float, heading: float, up: Sequence[float], down: Sequence[float]
) -> str:
    """ORIENTATION_UNREACHABLE for 2R: the two headings the elbows give, not the requested one.

    >>> heading_mismatch_text(1.0, 0.5, 0.0, (0.9, -1.0), (0.1, 1.0))[:65]
    'ORIENTATION_UNREACHABLE: a 2-joint arm reaches (1, 0.5) only with'
    """
    up_heading = wrap_angle(up[0] + up[1])
    down_heading = wrap_angle(down[0] + down[1])
    return (
        f"ORIENTATION_UNREACHABLE: a 2-joint arm reaches {point_text(x, y)} only with "
        f"heading {degrees_text(up_heading)} (elbow up) or {degrees_text(down_heading)} "
        f"(elbow down), not the requested {degrees_text(heading)}"
    )


def wrong_elbow_heading_text(
    x: float, y: float, heading: float, joints: Sequence[float], elbow: str, other: str
) -> str:
    """ORIENTATION_UNREACHABLE for 2R: the requested elbow has another heading, `other` has it.

    >>> wrong_elbow_heading_text(1.0, 0.5, 0.0, (0.9, -1.0), "elbow up", "elbow down")
    'ORIENTATION_UNREACHABLE: elbow up reaches (1, 0.5) with heading -5.73 deg, not 0.00 deg; elbow down has the requested heading'
    """  # noqa: E501
    reached = wrap_angle(joints[0] + joints[1])
    return (
        f"ORIENTATION_UNREACHABLE: {elbow} reaches {point_text(x, y)} with heading "
        f"{degrees_text(reached)}, not {degrees_text(heading)}; {other} has the requested heading"
    )


def orientation_3r_text(
    x: float,
    y: float,
    heading: float,
    wrist: tuple[float, float],
    ring: tuple[float, float],
    intervals: Sequence[tuple[float, float]],
) -> str:
    """ORIENTATION_UNREACHABLE for 3R: the wrist point is off links 1-2's ring; the headings
    (rad intervals) that would reach the target.

    >>> orientation_3r_text(1.5, 0.0, math.pi, (1.8, 0.0), (0.2, 1.7), [])
    'ORIENTATION_UNREACHABLE: (1.5, 0) is reachable but not with heading 180.00 deg: the wrist point (1.8, 0) is 1.8 m from the base, outside the ring [0.2, 1.7] m of links 1-2'
    """  # noqa: E501
    if intervals:
        reachable = "; reachable headings there: " + ", ".join(
            f"[{degrees_text(wrap_angle(lo))}, {degrees_text(wrap_angle(lo) + hi - lo)}]"
            for lo, hi in intervals
        )
    else:
        reachable = ""
    wx, wy = wrist
    return (
        f"ORIENTATION_UNREACHABLE: {point_text(x, y)} is reachable but not with heading "
        f"{degrees_text(heading)}: the wrist point {point_text(wx, wy)} is "
        f"{metres_text(math.hypot(wx, wy))} m from the base, outside the ring "
        f"[{metres_text(ring[0])}, {metres_text(ring[1])}] m of links 1-2{reachable}"
    )


def link_angle_text(joint_names: Sequence[str], angle: float, limits: tuple[float, float]) -> str:
    """A link whose absolute angle (the sum of `joint_names`' angles, rad) is outside the
    `limits` (rad) a parallelogram servo's travel gives it.

    >>> link_angle_text(("shoulder", "elbow"), math.radians(100), (-1.0, 1.0))
    "the angle of elbow's link (shoulder + elbow) = 100.00 deg, outside [-57.30 deg, 57.30 deg] (its servo's travel)"
    """  # noqa: E501
    lo, hi = limits
    return (
        f"the angle of {joint_names[-1]}'s link ({' + '.join(joint_names)}) = "
        f"{degrees_text(angle)}, outside [{degrees_text(lo)}, {degrees_text(hi)}] "
        "(its servo's travel)"
    )


def limit_failure_text(
    branch: Branch,
    up_violation: str | None,
    down_violation: str | None,
    other_feasible: bool,
) -> str:
    """JOINT_LIMIT: which joint each elbow would need outside its limits.

    `up_violation` / `down_violation` name the offending joint of each elbow (None for an elbow
    that does not exist). For an explicitly requested elbow, `other_feasible` says whether the
    other elbow would do.

    >>> limit_failure_text(Branch.ELBOW_UP, "elbow = -100.00 deg, outside [-90 deg, 90 deg]",
    ...                    None, True)
    'JOINT_LIMIT: elbow up needs elbow = -100.00 deg, outside [-90 deg, 90 deg]; the elbow down branch is feasible (request it or use closest)'
    """  # noqa: E501
    if branch in (Branch.ELBOW_UP, Branch.ELBOW_DOWN):
        up_requested = branch is Branch.ELBOW_UP
        wanted, other = ("elbow up", "elbow down") if up_requested else ("elbow down", "elbow up")
        violation = up_violation if up_requested else down_violation
        tail = (
            f"; the {other} branch is feasible (request it or use closest)"
            if other_feasible
            else f"; the {other} branch is not feasible either"
        )
        return f"JOINT_LIMIT: {wanted} needs {violation}{tail}"
    parts = [
        f"{words} needs {violation}"
        for words, violation in (("elbow up", up_violation), ("elbow down", down_violation))
        if violation is not None
    ]
    return "JOINT_LIMIT: reachable, but no solution is within the joint limits: " + "; ".join(parts)


def violation_text(name: str, angle: float, limits: tuple[float, float]) -> str:
    """One joint outside its limits, in words.

    >>> violation_text("elbow", math.radians(-100), (-math.pi / 2, math.pi / 2))
    'elbow = -100.00 deg, outside [-90.00 deg, 90.00 deg]'
    """
    lo, hi = limits
    return f"{name} = {degrees_text(angle)}, outside [{degrees_text(lo)}, {degrees_text(hi)}]"


def no_heading_text(x: float, y: float, branch: Branch) -> str:
    """JOINT_LIMIT for 3R without a heading: no reachable heading fits the limits.

    >>> no_heading_text(0.2, 1.5, Branch.ELBOW_UP)
    'JOINT_LIMIT: (0.2, 1.5) is reachable, but no heading gives a solution within the joint limits on the elbow up branch'
    """  # noqa: E501
    elbow = {Branch.ELBOW_UP: "elbow up", Branch.ELBOW_DOWN: "elbow down"}.get(branch)
    return (
        f"JOINT_LIMIT: {point_text(x, y)} is reachable, but no heading gives a solution "
        "within the joint limits" + (f" on the {elbow} branch" if elbow else "")
    )
