"""The texts a spatial solve adds to the planar ones: the side, the yaw, the roll, the axis.

Each function returns one line (or a line's tail); lengths in metres, angles in radians (printed
in degrees, as the planar texts print them). The planar solve's own text (elbow, limits,
headings in the vertical plane) is kept and said to be in that plane.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..angles import wrap_angle
from ..planar.explain import degrees_text, metres_text
from ..types import Answer, refusal
from .model import SpatialChain
from .sides import FAILURE_ORDER, Attempt, Side

PLANE_WORDS = "in the arm's vertical plane (forward and up from the shoulder)"


def _status_and_text(message: str) -> tuple[str, str]:
    status, _, text = message.partition(": ")
    return status, text


def _in_plane(text: str) -> str:
    """A planar text said of the vertical plane, whose origin (the planar "base") is the
    shoulder."""
    return text.replace("from the base", "from the shoulder").replace(
        "around the base", "around the shoulder"
    )


_SIDE_WORDS = {
    "front": "from the front",
    "back": "reaching over the back",
    "axis": "on the yaw axis",
}


def side_text(
    message: str, side: Side, refused: Sequence[tuple[str, float]], pitch: float | None
) -> str:
    """A solved planar message with the side it was solved on (and the yaw), the pitch a 3-joint
    chain chose said as the tool's pitch (rad, outward; None when the message has no heading
    note), the other side's yaw limit.

    >>> from arm_kinematics.kinematics.spatial.sides import Side
    >>> side_text("OK: solved elbow up; heading 12.00 deg chosen (nearest feasible)",
    ...           Side("back", 3.0, True, 0.1), [], 0.5)
    'OK: reaching over the back (yaw 171.89 deg): solved elbow up; tool pitch 28.65 deg chosen (nearest feasible)'
    """  # noqa: E501
    status, _, text = message.partition(": ")
    if pitch is not None:  # a 3-joint chain chose its heading: said as the tool's pitch
        before, noted, after = text.partition("; heading ")
        if noted:
            _, _, rest = after.partition(" chosen (")
            rule, _, tail = rest.partition(")")
            text = f"{before}; tool pitch {degrees_text(pitch)} chosen ({_in_plane(rule)}){tail}"
    note = "".join([f"; {_refused_words(name, yaw)}" for name, yaw in refused]) if refused else ""
    return f"{status}: {_SIDE_WORDS[side.name]} (yaw {degrees_text(side.yaw)}): {text}{note}"


def _refused_words(name: str, yaw: float) -> str:
    return {
        "front": f"from the front the yaw would be {degrees_text(yaw)}, outside its limits",
        "back": f"over the back the yaw would be {degrees_text(yaw)}, outside its limits",
        "axis": f"the yaw {degrees_text(yaw)} is outside its limits",
    }[name]


def yaw_limit_text(
    x: float, y: float, refused: Sequence[tuple[str, float]], arm: SpatialChain
) -> str:
    """YAW_LIMIT: the yaw each side would need, outside the yaw joint's limits.

    >>> from arm_kinematics.kinematics.spatial.model import SpatialChain
    >>> arm = SpatialChain((0.1, 0.1), [(-1.0, 1.0), None, None], joint_names=("yaw", "a", "b"))
    >>> yaw_limit_text(0.0, 0.1, [("front", 1.5708), ("back", -1.5708)], arm)
    "YAW_LIMIT: the target (0, 0.1) (direction 90.00 deg) needs yaw = 90.00 deg, or -90.00 deg over the back; both outside yaw's limits [-57.30 deg, 57.30 deg]"
    """  # noqa: E501
    lo, hi = arm.yaw_limits
    yaws = dict(refused)
    needs = " or ".join(degrees_text(yaws[name]) for name in ("front", "axis") if name in yaws)
    if "back" in yaws:
        needs = (
            f"{needs}, or {degrees_text(yaws['back'])} over the back"
            if needs
            else (f"{degrees_text(yaws['back'])} over the back")
        )
    both = "both outside" if len(yaws) > 1 else "outside"
    return (
        f"YAW_LIMIT: the target ({metres_text(x)}, {metres_text(y)}) (direction "
        f"{degrees_text(math.atan2(y, x))}) needs {arm.joint_names[0]} = {needs}; {both} "
        f"{arm.joint_names[0]}'s limits [{degrees_text(lo)}, {degrees_text(hi)}]"
    )


def no_roll_text(roll: float) -> str:
    """ORIENTATION_UNREACHABLE: an arm without a wrist roll, asked for another roll.

    >>> no_roll_text(0.5)[:70]
    'ORIENTATION_UNREACHABLE: this arm has no wrist roll: its tool rolls 0.'
    """
    return (
        "ORIENTATION_UNREACHABLE: this arm has no wrist roll: its tool rolls 0.00 deg from the "
        f"front and 180.00 deg over the back, not the requested {degrees_text(roll)}"
    )


def twist_text(twist: float, pitch: float, roll: float) -> str:
    """ORIENTATION_UNREACHABLE: a tool orientation off the target's vertical plane, and the
    nearest one the joints give (pitch and roll in the outward convention).

    >>> twist_text(0.2, -1.0, 0.0)[:88]
    'ORIENTATION_UNREACHABLE: the tool would have to turn 11.46 deg about its own z axis, whi'
    """
    return (
        f"ORIENTATION_UNREACHABLE: the tool would have to turn {degrees_text(abs(twist))} about "
        "its own z axis, which no joint does (its x axis must lie in the target's vertical "
        f"plane); the nearest orientation the joints give: pitch {degrees_text(pitch)}, roll "
        f"{degrees_text(roll)}"
    )


def roll_limit_text(name: str, roll: float, limits: tuple[float, float], side: str) -> str:
    """JOINT_LIMIT: the roll joint's angle for the requested roll is outside its limits.

    >>> roll_limit_text("wrist_roll", 3.0, (-1.0, 1.0), "front")
    'JOINT_LIMIT: wrist_roll = 171.89 deg (from the front), outside [-57.30 deg, 57.30 deg]'
    """
    where = {"front": "from the front", "back": "over the back", "axis": "on the yaw axis"}[side]
    lo, hi = limits
    return (
        f"JOINT_LIMIT: {name} = {degrees_text(roll)} ({where}), outside "
        f"[{degrees_text(lo)}, {degrees_text(hi)}]"
    )


def yaw_axis_text(message: str, rho: float, near: float, side: Side) -> str:
    """SINGULAR: on or near the yaw axis, where the yaw is undefined or turns fast.

    >>> from arm_kinematics.kinematics.spatial.sides import Side
    >>> yaw_axis_text("OK: on the yaw axis (yaw 0.00 deg): solved elbow up", 0.0, 0.006,
    ...               Side("axis", 0.0, False, 0.0))[:80]
    'SINGULAR: on the yaw axis (yaw 0.00 deg): solved elbow up; the target is on the '
    """
    _, text = _status_and_text(message)
    if side.name == "axis":
        tail = (
            "the target is on the yaw axis, where its direction is undefined: the yaw is kept "
            f"at {degrees_text(side.yaw)}"
        )
    else:
        tail = (
            f"the tool is {metres_text(rho)} m from the yaw axis, within singularity_margin x "
            f"reach = {metres_text(near)} m: the yaw turns fast there, slow down"
        )
    return f"SINGULAR: {text}; {tail}"


def failure_text(
    message: str,
    side: Side,
    others: Sequence[tuple[Side, str]],
    refused: Sequence[tuple[str, float]],
) -> str:
    """A refusal: the nearest side's planar reason (in the vertical plane; the workspace
    envelope's, OUTSIDE_WORKSPACE, is in the base frame), then the others' (each side and its
    message).

    >>> from arm_kinematics.kinematics.spatial.sides import Side
    >>> text = failure_text("TOO_FAR: target (0.3, 0) m is 0.3 m from the base, beyond ...",
    ...                     Side("front", 0.0, False, 0.3), [], [("back", 3.14159)])
    >>> text.split(", in")[0], "0.3 m from the shoulder" in text
    ('TOO_FAR: from the front (yaw 0.00 deg)', True)
    """
    status, text = _status_and_text(message)
    where = {"front": "from the front", "back": "over the back", "axis": "on the yaw axis"}[
        side.name
    ]
    plane = "" if status == "OUTSIDE_WORKSPACE" else f", {PLANE_WORDS}"
    parts = [f"{status}: {where} (yaw {degrees_text(side.yaw)}){plane}: {_in_plane(text)}"]
    for other_side, other_message in others:
        other_where = "over the back" if other_side.back else "from the front"
        parts.append(f"{other_where}: {_in_plane(other_message)}")
    parts += [_refused_words(name, yaw) for name, yaw in refused]
    return "; ".join(parts)


def solved_words(
    arm: SpatialChain,
    answer: Answer,
    side: Side,
    refused: Sequence[tuple[str, float]],
    chose_pitch: bool,
    axis: tuple[float, float] | None,
) -> str:
    """A solved spatial answer's message: the planar solve's words, with the side (and the
    tool pitch a 3-joint chain chose, when `chose_pitch`: `side_text`), then, where the tool
    is within `axis` = (rho, near) m of the yaw axis, why it is SINGULAR (`yaw_axis_text`)."""
    pitch = None
    if chose_pitch:  # the last link's frame above level, in the outward convention
        frame_pitch = math.fsum(arm.split(answer.joints)[1])
        pitch = wrap_angle(math.pi - frame_pitch if side.back else frame_pitch)
    message = side_text(answer.words(), side, refused, pitch)
    if axis is not None:
        message = yaw_axis_text(message, *axis, side)
    return message


def nearest_failure(attempts: Sequence[Attempt], refused: Sequence[tuple[str, float]]) -> Answer:
    """The failure of the side nearest to a solution (FAILURE_ORDER; the first tried on a
    tie), its words naming the others (`failure_text`), made when read.

    >>> from arm_kinematics.kinematics.types import Answer, IkStatus
    >>> far = Answer(IkStatus.TOO_FAR, None, lambda: "TOO_FAR: 1 m from the base")
    >>> nearest_failure([Attempt(Side("front", 0.0, False, 1.0), far)], []).result().message[-56:]
    'forward and up from the shoulder): 1 m from the shoulder'
    """
    rank = {status: index for index, status in enumerate(FAILURE_ORDER)}
    best = max(attempts, key=lambda a: rank.get(a.result.status, -1))  # max keeps the first
    others = [a for a in attempts if a is not best]
    return refusal(best.result.status, _failure_words, best, others, refused)


def _failure_words(
    best: Attempt, others: Sequence[Attempt], refused: Sequence[tuple[str, float]]
) -> str:
    return failure_text(
        best.result.words(),
        best.side,
        [(other.side, other.result.words()) for other in others],
        refused,
    )
