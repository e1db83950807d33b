"""The remembered pose: where the servos were last commanded, kept in a file across restarts, so
that at start-up the hardware node commands that pose first instead of leaping home.

A hobby servo reports no position, so at power-on the node cannot know where the arm is; the
best it knows is the last angle it wrote to each servo. This module keeps that in a small JSON
file, per servo: the joint, its PCA9685 channel, the servo angle (servo degrees: where the
servo physically stands) and the joint angle it meant then (for the log only). At start-up the
servo angles are turned into joint angles by the calibration running now, so a calibration
saved meanwhile (a new offset or sign) moves nothing: the servos get the angles they stood at.

The file is used whole or not at all. It is not used (the node goes home as without one, and
says why) when it cannot be read or parsed, is of another format or version, was written for
other hardware (`sim` and a PCA9685 keep separate files by default) or by another node (two
arms given one file by mistake: each writes its fully qualified name), names other joints or
puts a joint on another channel (another arm, or rewired), or when its servo angles put a
joint outside its limits or a servo outside its travel by the running calibration.

Written atomically (a temporary file in the same directory, fsync, rename, fsync of the
directory): a power cut leaves the old file or the new one, never half of one.

The default path is per node and per hardware: `$XDG_STATE_HOME/arm_kinematics/<namespace>/
<node name>/<hardware id>.json` (XDG_STATE_HOME defaults to ~/.local/state), so two arms in
two namespaces, and the simulation beside the real board, never share a file.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arm_kinematics.atomic_file import write_atomically
from arm_kinematics.hardware.driver import degrees_words
from arm_kinematics.hardware.mapping import InvalidCommandError, ServoMap

FORMAT = "arm_kinematics remembered pose"
VERSION = 1
CALIBRATION_CHANGE_DEG = 0.01
"""A joint whose angle by the running calibration differs from the saved one by more than this
(degrees) is named in the start-up log: the calibration changed since the pose was saved."""


class PoseFileError(ValueError):
    """The remembered pose cannot be used; the message says why."""


@dataclass(frozen=True)
class Owner:
    """Whose pose a file holds: a node (its fully qualified name, e.g. /left_arm/hardware_node)
    on a hardware (its backend's id: `sim`, `pca9685@i2c-1:0x40`)."""

    node: str
    hardware_id: str


@dataclass(frozen=True)
class ServoPose:
    """One driven joint as saved: its servo's channel and angle (servo degrees) and the joint
    angle (degrees) that angle meant by the calibration of then."""

    joint: str
    channel: int
    servo_deg: float
    joint_deg: float


@dataclass(frozen=True)
class SavedPose:
    """The file's content: whose pose, when (ISO 8601, UTC), the servos."""

    owner: Owner
    saved_at: str
    servos: tuple[ServoPose, ...]

    @classmethod
    def of(
        cls,
        servo_map: ServoMap,
        owner: Owner,
        servo_deg: Sequence[float],
        joint_rad: Sequence[float],
        now: datetime | None = None,
    ) -> SavedPose:
        """The pose of every driven joint (driven order): servo degrees and joint radians."""
        servos = tuple(
            ServoPose(joint.name, joint.servo.channel, float(s), math.degrees(q))
            for joint, s, q in zip(servo_map.joints, servo_deg, joint_rad, strict=True)
        )
        stamp = (now or datetime.now(UTC)).isoformat(timespec="seconds")
        return cls(owner, stamp, servos)

    def same_angles(self, other: SavedPose | None) -> bool:
        """Whether `other` holds the same servos at the same angles (nothing new to save)."""
        return other is not None and [(s.joint, s.channel, s.servo_deg) for s in self.servos] == [
            (s.joint, s.channel, s.servo_deg) for s in other.servos
        ]


@dataclass(frozen=True)
class StartPose:
    """What a remembered pose means for the arm running now: the joint positions (radians,
    driven order) and the joints whose angle the calibration change moved (words)."""

    positions: tuple[float, ...]
    calibration_changes: tuple[str, ...]


def default_pose_path(owner: Owner, environ: Mapping[str, str] | None = None) -> Path:
    """The default file of a node on a hardware (`environ`: the environment, os.environ).

    >>> left = Owner("/left_arm/hardware_node", "pca9685@i2c-1:0x40")
    >>> default_pose_path(left, {"HOME": "/home/u"})
    PosixPath('/home/u/.local/state/arm_kinematics/left_arm/hardware_node/pca9685_i2c-1_0x40.json')
    >>> default_pose_path(Owner("/hardware_node", "sim"), {"XDG_STATE_HOME": "/s", "HOME": "/h"})
    PosixPath('/s/arm_kinematics/hardware_node/sim.json')
    """
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "~")) / ".local" / "state")
    parts = [p for p in owner.node.split("/") if p]
    file_name = re.sub(r"[^A-Za-z0-9._-]", "_", owner.hardware_id) + ".json"
    return Path(state, "arm_kinematics", *parts, file_name)


def read_pose(path: Path) -> SavedPose:
    """The pose saved in `path`; FileNotFoundError when there is none, PoseFileError when it
    cannot be used as a file of this format (unreadable, not JSON, another format or version,
    a field missing or of the wrong type)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PoseFileError(f"cannot be read ({type(error).__name__}: {error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PoseFileError(f'is not a remembered pose (no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise PoseFileError(f"is version {data.get('version')!r}, this node reads {VERSION}")
    try:
        servos = tuple(_servo(entry) for entry in data["joints"])
        owner = Owner(_text(data["node"]), _text(data["hardware_id"]))
        return SavedPose(owner, _text(data["saved_at"]), servos)
    except (KeyError, TypeError) as error:
        raise PoseFileError(f"is damaged ({type(error).__name__}: {error})") from None


def _servo(entry: dict) -> ServoPose:
    channel = entry["channel"]
    if isinstance(channel, bool) or not isinstance(channel, int):
        raise TypeError(f"channel {channel!r} of joint {entry.get('name')!r} is not a whole number")
    servo_deg, joint_deg = _number(entry, "servo_deg"), _number(entry, "joint_deg")
    return ServoPose(_text(entry["name"]), channel, servo_deg, joint_deg)


def _number(entry: dict, key: str) -> float:
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"{key} {value!r} of joint {entry.get('name')!r} is not a finite number")
    return float(value)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not a string")
    return value


def write_pose(path: Path, pose: SavedPose) -> None:
    """Write `pose` to `path` atomically (the directories made as needed); OSError if not."""
    data = {
        "format": FORMAT,
        "version": VERSION,
        "node": pose.owner.node,
        "hardware_id": pose.owner.hardware_id,
        "saved_at": pose.saved_at,
        "joints": [
            {
                "name": s.joint,
                "channel": s.channel,
                "servo_deg": s.servo_deg,
                "joint_deg": s.joint_deg,
            }
            for s in pose.servos
        ],
    }
    write_atomically(path, json.dumps(data, indent=2) + "\n")


def start_pose(saved: SavedPose, servo_map: ServoMap, owner: Owner) -> StartPose:
    """The joint positions (radians, driven order) at which the running calibration puts the
    saved servo angles; PoseFileError when the pose is not this node's on this hardware, not
    of this arm, or outside its joint limits or servo travel."""
    if saved.owner.hardware_id != owner.hardware_id:
        raise PoseFileError(
            f"was saved on {saved.owner.hardware_id}, this node drives {owner.hardware_id}"
        )
    if saved.owner.node != owner.node:
        raise PoseFileError(f"was saved by {saved.owner.node}, this node is {owner.node}")
    by_name = {s.joint: s for s in saved.servos}
    if len(by_name) != len(saved.servos) or set(by_name) != set(servo_map.names):
        raise PoseFileError(
            f"names the joints {', '.join(s.joint for s in saved.servos)}; this arm drives "
            f"{', '.join(servo_map.names)}"
        )
    measured = {}
    for i, joint in enumerate(servo_map.joints):
        servo = by_name[joint.name]
        if servo.channel != joint.servo.channel:
            raise PoseFileError(
                f"has joint '{joint.name}' on channel {servo.channel}, this arm on channel "
                f"{joint.servo.channel}"
            )
        measured[i] = servo.servo_deg
    positions = servo_map.joint_positions([0.0] * len(servo_map.names), measured)
    try:
        positions = servo_map.check(positions)
    except InvalidCommandError as error:
        raise PoseFileError(f"is outside this arm's limits by its calibration: {error}") from None
    changes = tuple(
        f"{joint.name} was {by_name[joint.name].joint_deg:.2f} deg, the same servo angle "
        f"{by_name[joint.name].servo_deg:.2f} is {math.degrees(q):.2f} deg now"
        for joint, q in zip(servo_map.joints, positions, strict=True)
        if abs(math.degrees(q) - by_name[joint.name].joint_deg) > CALIBRATION_CHANGE_DEG
    )
    return StartPose(positions, changes)


SETTLE_S = 0.5
"""The servos have stood this long at the same angles (s): the arm has settled, its pose is
saved (once per pose)."""


@dataclass(frozen=True)
class Recall:
    """What start-up does: the start pose (None: home, as without a remembered pose), the log
    line, and whether it is a warning (a file that could not be used)."""

    start: StartPose | None
    message: str
    warning: bool = False


class PoseMemory:
    """One node's remembered pose: `recall` at start-up, `observe` on a timer (a pose to save
    once the arm settles), `save`. `path` None: nothing is remembered (`hardware.remember_pose`
    false). Not thread-safe: the node calls it with its lock held, except `save` (file I/O)."""

    def __init__(self, path: Path | None, servo_map: ServoMap, owner: Owner) -> None:
        self.path = path
        self._servo_map = servo_map
        self._owner = owner
        self._saved: SavedPose | None = None  # what the file holds, as far as this node knows
        self._failed: SavedPose | None = None  # the last pose that could not be written
        self._still: tuple[tuple[float, ...], float] | None = None  # angles, seen since (s)
        self._write_lock = threading.Lock()

    def recall(self) -> Recall:
        """The remembered pose as the start pose, or why there is none (then home)."""
        home = [joint.home for joint in self._servo_map.joints]
        go_home = (
            f"the servos go to home {degrees_words(home)} deg at their own speed (no feedback: "
            "where they stand now is unknown)"
        )
        if self.path is None:
            return Recall(None, f"no remembered pose (hardware.remember_pose is false): {go_home}")
        try:
            saved = read_pose(self.path)
            start = start_pose(saved, self._servo_map, self._owner)
        except FileNotFoundError:
            return Recall(None, f"no remembered pose in {self.path} yet: {go_home}")
        except PoseFileError as error:
            return Recall(
                None,
                f"the remembered pose in {self.path} is not used: it {error}; {go_home}. The "
                "file is replaced when the arm next settles",
                warning=True,
            )
        self._saved = saved
        changed = (
            f"; the calibration changed since: {'; '.join(start.calibration_changes)}"
            if start.calibration_changes
            else ""
        )
        message = (
            f"start pose: the remembered pose from {self.path} (saved {saved.saved_at}): "
            f"joints {degrees_words(start.positions)} deg, servos "
            f"[{', '.join(f'{s.servo_deg:.1f}' for s in saved.servos)}] servo deg{changed}. "
            f"Home {degrees_words(home)} deg is a move like any other (a joint_trajectory, the "
            "page's Home)"
        )
        return Recall(start, message)

    def observe(
        self, servo_deg: Sequence[float], joint_rad: Sequence[float], now_s: float
    ) -> SavedPose | None:
        """The servos' angles now (servo degrees) and the joints they set (radians), at
        `now_s` (s, any steady clock): a pose to save when they have stood still for SETTLE_S
        and differ from the one saved, else None."""
        if self.path is None:
            return None
        angles = tuple(servo_deg)
        if self._still is None or self._still[0] != angles:
            self._still = (angles, now_s)
            return None
        if now_s - self._still[1] < SETTLE_S:
            return None
        pose = self.pose_to_save(servo_deg, joint_rad)
        if pose is None or pose.same_angles(self._failed):
            return None  # saved, or tried in vain: tried again at the next pose or shutdown
        return pose

    def pose_to_save(
        self, servo_deg: Sequence[float], joint_rad: Sequence[float]
    ) -> SavedPose | None:
        """The pose of these angles if it differs from the one saved (at shutdown), else None."""
        if self.path is None:
            return None
        pose = SavedPose.of(self._servo_map, self._owner, servo_deg, joint_rad)
        return None if pose.same_angles(self._saved) else pose

    def save(self, pose: SavedPose) -> None:
        """Write `pose` to the file (atomically); OSError when it cannot. Thread-safe: the
        settle timer and the shutdown may save at once (one after the other)."""
        assert self.path is not None
        with self._write_lock:
            try:
                write_pose(self.path, pose)
            except OSError:
                self._failed = pose
                raise
            self._saved = pose
