"""Named poses: the arm's joints under a name, kept in a YAML file beside the arm's params.

A pose is stored as its joint angles (the truth a move goes to) and, beside them, the tool pose
they gave when it was saved (the arm's `tool_vector`: a planar arm's x, y, heading, a spatial
arm's x, y, z, pitch, roll). Before a pose is used it is checked against the running config
(`check_pose`): the same joints by name, each within its limits, the arm inside the workspace
envelope there, and the joints still putting the tool where they did (a changed link length or
mount would send a taught pose somewhere else: refused, save it again). `home` is built in: the
params file's `joints.*.home_deg`.

The file (docs/sequences.md), degrees and metres as every file of the arm:

    poses:
      above_box:
        joints_deg: {base_yaw: -40.0, shoulder: 60.0, elbow: -80.0, wrist_pitch: -70.0, wrist_roll: 0.0}
        tool: {x_m: 0.1, y_m: -0.08, z_m: 0.12, pitch_deg: -90.0, roll_deg: 0.0}
        saved_at: '2025-01-31T10:00:00+00:00'

`PoseFile` reads and writes it through ruamel.yaml's round trip, so a person's comments and
edits stay, and replaces it atomically. Radians and metres inside.
"""  # noqa: E501

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from arm_kinematics.atomic_file import write_atomically
from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import PlanarArm, SpatialArm
from arm_kinematics.kinematics.envelope import Envelope
from arm_kinematics.kinematics.planar.limits import LIMIT_TOLERANCE

from .names import HOME, TeachError, checked_name, finite_number
from .yaml_text import dump, line_of, load

TOOL_TOLERANCE_M = 0.001
"""A pose whose joints now put the tool further than this from where it was saved is refused:
the arm's geometry changed since."""
PLANAR_TOOL_KEYS = ("x_m", "y_m", "heading_deg")
SPATIAL_TOOL_KEYS = ("x_m", "y_m", "z_m", "pitch_deg", "roll_deg")
JOINT_DECIMALS = 4  # degrees: 1e-4 deg moves a 0.3 m arm's tool by 0.5 um
POSITION_DECIMALS = 5  # metres
FILE_HEADER = """\
# Named poses of the arm (docs/sequences.md): `named_poses/save` (the CLI `named_pose save NAME`)
# adds the arm's current pose, `named_poses/delete` removes one; your own edits and comments stay.
# Joint angles in degrees; `tool` is where they put the tool when saved (metres and degrees in the
# base frame), checked when the pose is used.
"""


@dataclass(frozen=True)
class NamedPose:
    """A named pose: `joints` ((name, rad), ...) in the file's order, `tool` the arm's
    `tool_vector` at them when saved (m, rad; None when the file has none) and when
    (`saved_at`, ISO 8601; '' for home)."""

    name: str
    joints: tuple[tuple[str, float], ...]
    tool: tuple[float, ...] | None = None
    saved_at: str = ""

    def joints_by_name(self) -> dict[str, float]:
        return dict(self.joints)


def pose_at(
    name: str, arm: PlanarArm | SpatialArm, names: Sequence[str], joints: Sequence[float]
) -> NamedPose:
    """The named pose `name` of the arm at `joints` (rad, in the order of `names`), saved now.

    >>> pose = pose_at("up", PlanarArm((0.1, 0.08)), ("shoulder", "elbow"), (math.pi / 2, 0.0))
    >>> pose.joints, [round(v, 6) for v in pose.tool]
    ((('shoulder', 1.570796...), ('elbow', 0.0)), [0.0, 0.18, 1.570796])
    """
    checked_name(name, "a named pose")
    values = tuple(float(q) for q in joints)
    return NamedPose(
        name,
        tuple(zip(names, values, strict=True)),
        tuple(float(v) for v in arm.tool_vector(values)),
        datetime.now(UTC).isoformat(timespec="seconds"),
    )


def home_pose(config: ArmConfig, arm: PlanarArm | SpatialArm) -> NamedPose:
    """The built-in `home`: the params file's joints.*.home_deg."""
    home = config.home
    tool = tuple(float(v) for v in arm.tool_vector(home))
    return NamedPose(HOME, tuple(zip(config.joint_names, home, strict=True)), tool)


def check_pose(
    pose: NamedPose, config: ArmConfig, arm: PlanarArm | SpatialArm, envelope: Envelope
) -> tuple[float, ...]:
    """The pose's joints in the arm's order (rad) when this arm can go there; TeachError says
    why not: a joint it lacks or does not have, a joint outside its limits (or a linkage's
    travel), the arm outside the workspace envelope there, or the tool no longer where it was
    saved (further than TOOL_TOLERANCE_M: the geometry changed)."""
    words = f"named pose '{pose.name}'"
    by_name = pose.joints_by_name()
    names = config.joint_names
    missing = [n for n in names if n not in by_name]
    extra = [n for n in by_name if n not in names]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"has no angle for {', '.join(missing)}")
        if extra:
            parts.append(f"has {', '.join(extra)}, which this arm does not")
        raise TeachError(
            f"{words} {' and '.join(parts)} (this arm's joints: {', '.join(names)}): it was "
            "saved for another arm; save it again"
        )
    joints = tuple(by_name[n] for n in names)
    for joint, q in zip(config.joints, joints, strict=True):
        low, high = joint.min_position, joint.max_position
        if not low - LIMIT_TOLERANCE <= q <= high + LIMIT_TOLERANCE:
            raise TeachError(
                f"{words}: joint {joint.name} at {math.degrees(q):.2f} deg is outside its "
                f"limits [{math.degrees(low):g}, {math.degrees(high):g}] deg"
            )
    if not arm.within_limits(joints):
        raise TeachError(f"{words}: its joints are outside a linkage's travel (a link angle)")
    violation = envelope.check(joints)
    if violation is not None:
        reason = violation.message.removeprefix("OUTSIDE_WORKSPACE: ")
        raise TeachError(f"{words} is outside the workspace envelope: {reason}")
    _check_tool(pose, arm, joints, words)
    return joints


def _check_tool(
    pose: NamedPose, arm: PlanarArm | SpatialArm, joints: tuple[float, ...], words: str
) -> None:
    if pose.tool is None:
        return
    now = arm.tool_vector(joints)
    if len(now) != len(pose.tool):
        kind = "spatial" if len(pose.tool) == len(SPATIAL_TOOL_KEYS) else "planar"
        raise TeachError(f"{words} was saved on a {kind} arm; save it again on this one")
    dims = 3 if len(now) == len(SPATIAL_TOOL_KEYS) else 2
    distance = math.dist(now[:dims], pose.tool[:dims])
    if distance > TOOL_TOLERANCE_M:
        raise TeachError(
            f"{words}: its joints now put the tool at {_point(now[:dims])} m, "
            f"{distance * 1000:.1f} mm from where they did when it was saved "
            f"({_point(pose.tool[:dims])} m): the arm's geometry changed since; save it again"
        )


def _point(values: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:.4f}" for v in values) + ")"


# --- the file --------------------------------------------------------------------------------


class PoseFile:
    """The named poses' YAML file at `path`. Every call reads the file afresh (a person may
    edit it meanwhile) and a change rewrites it atomically, one change at a time."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def poses(self) -> dict[str, NamedPose]:
        """The file's poses by name, in its order (none when there is no file yet);
        TeachError when it cannot be read or a pose in it is malformed (its line)."""
        return _poses_of(self._read(), self.path)

    def save(self, pose: NamedPose, overwrite: bool = False) -> bool:
        """Add `pose` (replace one of its name with `overwrite`); TeachError when the name
        is `home` or holds other joints, or the file cannot be read or written. False (and
        nothing written) when the name holds these very joints already: a save sent twice
        is one save."""
        checked_name(pose.name, "a named pose")
        if pose.name == HOME:
            raise TeachError(
                "'home' is the params file's joints.*.home_deg, not a saved pose: calibrate it "
                "there (docs/calibration.md), or choose another name"
            )
        with self._lock:
            document = self._read()
            poses = _poses_of(document, self.path)
            if pose.name in poses and not overwrite:
                if _same_joints(poses[pose.name], pose):
                    return False
                raise TeachError(
                    f"a named pose '{pose.name}' exists in {self.path}: choose another name, "
                    "or overwrite it"
                )
            table = document.get("poses")
            if not isinstance(table, CommentedMap):
                table = CommentedMap()
                document["poses"] = table
            table[pose.name] = _entry(pose)
            self._write(document)
            return True

    def delete(self, name: str) -> bool:
        """Remove the pose `name`: True, or False when there is none (a delete sent twice is
        one delete); TeachError for home or a file that cannot be read or written."""
        if name == HOME:
            raise TeachError("'home' is built in (the params file's joints.*.home_deg)")
        with self._lock:
            document = self._read()
            if name not in _poses_of(document, self.path):
                return False
            del document["poses"][name]
            self._write(document)
            return True

    def _read(self) -> CommentedMap:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = FILE_HEADER + "poses:\n"
        except (OSError, UnicodeDecodeError) as error:
            raise TeachError(f"cannot read the named poses' file {self.path}: {error}") from None
        where = f"the named poses' file {self.path}"
        document = load(text, where)
        if document is None:  # empty, or comments only: keep them
            document = load(text.rstrip("\n") + "\nposes:\n" if text.strip() else
                            FILE_HEADER + "poses:\n", where)  # fmt: skip
        if not isinstance(document, CommentedMap):
            raise TeachError(f"{self.path} holds no mapping with 'poses:'")
        return document

    def _write(self, document: CommentedMap) -> None:
        try:
            write_atomically(self.path, dump(document))
        except OSError as error:
            raise TeachError(
                f"cannot write {self.path}: {error} (set the trajectory node's parameter "
                "named_poses.file to a writable file)"
            ) from None


def _same_joints(saved: NamedPose, pose: NamedPose) -> bool:
    """The same joints, to the file's precision."""
    here = pose.joints_by_name()
    return set(here) == set(saved.joints_by_name()) and all(
        abs(math.degrees(q) - math.degrees(here[n])) <= 10**-JOINT_DECIMALS for n, q in saved.joints
    )


def _entry(pose: NamedPose) -> CommentedMap:
    joints = CommentedMap((name, round(math.degrees(q), JOINT_DECIMALS)) for name, q in pose.joints)
    joints.fa.set_flow_style()
    entry = CommentedMap(joints_deg=joints)
    if pose.tool is not None:
        keys = SPATIAL_TOOL_KEYS if len(pose.tool) == len(SPATIAL_TOOL_KEYS) else PLANAR_TOOL_KEYS
        tool = CommentedMap(
            (key, round(v, POSITION_DECIMALS) if key.endswith("_m") else
             round(math.degrees(v), JOINT_DECIMALS))
            for key, v in zip(keys, pose.tool, strict=True)
        )  # fmt: skip
        tool.fa.set_flow_style()
        entry["tool"] = tool
    if pose.saved_at:
        entry["saved_at"] = pose.saved_at
    return entry


def _poses_of(document: CommentedMap, path: Path) -> dict[str, NamedPose]:
    unknown = [key for key in document if key != "poses"]
    if unknown:
        raise TeachError(
            f"{path}: {line_of(document, unknown[0])}unknown key '{unknown[0]}' (the file "
            "holds 'poses:' only)"
        )
    table = document.get("poses")
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise TeachError(f"{path}: {line_of(document, 'poses')}'poses' must be a mapping")
    return {str(name): _pose_of(str(name), entry, table, path) for name, entry in table.items()}


def _pose_of(name: str, entry: Any, table: Any, path: Path) -> NamedPose:
    where = f"{path}: {line_of(table, name)}named pose '{name}'"
    try:
        checked_name(name, "a named pose")
    except TeachError as error:
        raise TeachError(f"{where}: {error}") from None
    if name == HOME:
        raise TeachError(f"{where}: 'home' is built in (joints.*.home_deg): rename this one")
    if not isinstance(entry, dict) or "joints_deg" not in entry:
        raise TeachError(f"{where}: give it 'joints_deg: {{joint: degrees, ...}}'")
    unknown = [key for key in entry if key not in ("joints_deg", "tool", "saved_at")]
    if unknown:
        raise TeachError(f"{where}: unknown key '{unknown[0]}' (joints_deg, tool, saved_at)")
    joints = _degrees(entry["joints_deg"], f"{where}: joints_deg")
    tool = None
    if entry.get("tool") is not None:
        tool = _tool(entry["tool"], f"{where}: tool")
    saved_at = entry.get("saved_at", "")
    return NamedPose(name, tuple(joints.items()), tool, str(saved_at))


def _degrees(values: Any, where: str) -> dict[str, float]:
    if not isinstance(values, dict) or not values:
        raise TeachError(f"{where} must be a mapping of joint names to degrees")
    return {str(k): math.radians(finite_number(v, f"{where}.{k}")) for k, v in values.items()}


def _tool(values: Any, where: str) -> tuple[float, ...]:
    keys = SPATIAL_TOOL_KEYS if isinstance(values, dict) and "z_m" in values else PLANAR_TOOL_KEYS
    if not isinstance(values, dict) or set(values) != set(keys):
        raise TeachError(
            f"{where} must have {', '.join(PLANAR_TOOL_KEYS)} (a planar arm) or "
            f"{', '.join(SPATIAL_TOOL_KEYS)} (a spatial arm)"
        )
    numbers = [finite_number(values[key], f"{where}.{key}") for key in keys]
    pairs = zip(keys, numbers, strict=True)
    return tuple(v if key.endswith("_m") else math.radians(v) for key, v in pairs)
