"""Calibrated values written back into the arm's params file, keeping its comments and layout.

Pure Python (ruamel.yaml's round trip, no ROS). The hardware node's `calibration/preview` and
`calibration/save` call `plan_edit` and `write_edit`: the new values go into the very YAML
nodes that hold the old ones, so every comment, blank line, quote, flow list and column stays
as it was and the diff shows only the calibrated lines. Only calibration values may change
(`calibration_names`): the servos' offset, sign, travel, actuation range and pulse range, the
joints' limits and home, the gripper's open and closed angles; the result must be a valid
configuration (`ArmConfig`), else nothing is written.

Never a silent overwrite: a new file `<name>.calibrated.yaml` beside the original (refused if
it exists), or, asked for explicitly, the original replaced after a copy to `<file>.bak`
(`.bak.1`, `.bak.2`, ... when taken). The save names the text it expects (the sha256 of the
preview), so what is written is the diff that was shown.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import math
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from arm_kinematics.config import ArmConfig, ConfigError, flatten_parameters

NEW_FILE = "new_file"
OVERWRITE = "overwrite"
MODES = (NEW_FILE, OVERWRITE)

_SERVO_KEYS = (
    "offset_deg",
    "sign",
    "min_deg",
    "max_deg",
    "actuation_range_deg",
    "min_pulse_us",
    "max_pulse_us",
)
_JOINT_KEYS = ("min_deg", "max_deg", "home_deg")
_GRIPPER_KEYS = ("open_deg", "closed_deg")
_INTEGER_KEYS = ("sign", "min_pulse_us", "max_pulse_us")
DEGREE_DECIMALS = 2
"""Degrees are written to 0.01 (a PCA9685 count is about 0.44 servo degrees)."""


class CalibrationFileError(ValueError):
    """Nothing was (or would be) written; the message says why and what to do instead."""


def calibration_names(config: ArmConfig) -> tuple[str, ...]:
    """The parameters a calibration may set, for every driven joint (the gripper's too).

    >>> from arm_kinematics.config import default_config_path
    >>> names = calibration_names(ArmConfig.from_file(default_config_path()))
    >>> names[:4], len(names)
    (('joints.shoulder.min_deg', 'joints.shoulder.max_deg', 'joints.shoulder.home_deg', \
'joints.shoulder.servo.offset_deg'), 20)
    """
    names: list[str] = []
    for joint in config.driven_joints:
        names += [f"joints.{joint.name}.{key}" for key in _JOINT_KEYS]
        names += [f"joints.{joint.name}.servo.{key}" for key in _SERVO_KEYS]
    if config.gripper is not None:
        names += [f"gripper.{key}" for key in _GRIPPER_KEYS]
    return tuple(names)


def calibrated_path(source: Path) -> Path:
    """Where a new file goes: `<name>.calibrated.yaml` beside `source` (a file already named
    so keeps its name, which then exists: overwrite it with a backup).

    >>> calibrated_path(Path("/arm/arm.yaml")), calibrated_path(Path("/arm/arm.calibrated.yaml"))
    (PosixPath('/arm/arm.calibrated.yaml'), PosixPath('/arm/arm.calibrated.yaml'))
    """
    stem = source.name.removesuffix(source.suffix).removesuffix(".calibrated")
    return source.with_name(f"{stem}.calibrated{source.suffix or '.yaml'}")


def backup_path(source: Path) -> Path:
    """The first free name of `<file>.bak`, `<file>.bak.1`, `<file>.bak.2`, ..."""
    candidate = source.with_name(source.name + ".bak")
    number = 0
    while candidate.exists():
        number += 1
        candidate = source.with_name(f"{source.name}.bak.{number}")
    return candidate


@dataclass(frozen=True)
class Edit:
    """A planned write: the file read, the file to write, the backup (OVERWRITE), the texts."""

    source: Path
    target: Path
    backup: Path | None
    old_text: str
    new_text: str
    changed: tuple[str, ...]  # the parameters whose value changes

    @property
    def diff(self) -> str:
        """The unified diff from the source to the new text."""
        return "".join(
            difflib.unified_diff(
                self.old_text.splitlines(keepends=True),
                self.new_text.splitlines(keepends=True),
                fromfile=str(self.source),
                tofile=str(self.target),
            )
        )

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.new_text.encode()).hexdigest()


def _yaml() -> YAML:
    yaml = YAML()  # round trip: comments, order, flow style and quotes kept
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line that the original kept on one
    return yaml


def _locate(tree: Any, name: str) -> tuple[Any, str] | None:
    """The mapping that holds parameter `name` (dotted) and its key there, nested or with
    dots in a key (`joints.elbow.min_deg: ...`), as ROS reads a params file; None if absent."""
    if not isinstance(tree, Mapping):
        return None
    if name in tree:
        return tree, name
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head, rest = ".".join(parts[:cut]), ".".join(parts[cut:])
        if head in tree:
            found = _locate(tree[head], rest)
            if found is not None:
                return found
    return None


def _file_value(name: str, value: float, current: Any) -> float | int:
    """`value` as the file writes it: the file's own value when equal to it (its digits
    kept), a whole number for the sign and the pulse widths, degrees rounded to
    DEGREE_DECIMALS; CalibrationFileError for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CalibrationFileError(f"{name} = {value!r}: not a finite number")
    if isinstance(current, int | float) and math.isclose(current, value, rel_tol=0, abs_tol=1e-9):
        return current
    key = name.rsplit(".", 1)[-1]
    if key in _INTEGER_KEYS:
        if not float(value).is_integer():
            raise CalibrationFileError(f"{name} = {value!r}: must be a whole number")
        return int(value)
    return round(float(value), DEGREE_DECIMALS)


def plan_edit(source: Path, changes: Mapping[str, float], mode: str = NEW_FILE) -> Edit:
    """The edit that sets `changes` (parameter name -> value, the file's units) in the params
    file `source`: checked, nothing written. CalibrationFileError says what is wrong."""
    if mode not in MODES:
        raise CalibrationFileError(f"unknown save mode {mode!r} (one of {', '.join(MODES)})")
    source = Path(source)
    try:
        old_text = source.read_text()
        yaml = _yaml()
        document = yaml.load(old_text)
    except (OSError, YAMLError) as error:
        raise CalibrationFileError(f"cannot read the params file {source}: {error}") from error
    try:
        tree = document["/**"]["ros__parameters"]
    except (TypeError, KeyError):
        raise CalibrationFileError(f"{source} has no '/**: ros__parameters:' section") from None
    flat = flatten_parameters(tree)
    try:
        allowed = set(calibration_names(ArmConfig.from_parameters(flat)))
    except ConfigError as error:
        raise CalibrationFileError(f"{source} is not a valid configuration: {error}") from None
    values: dict[str, float | int] = {}
    for name, value in changes.items():
        if name not in allowed:
            raise CalibrationFileError(
                f"'{name}' is not a calibration value of this arm (calibration sets the "
                "servos' offset_deg, sign, min_deg, max_deg, actuation_range_deg, "
                "min_pulse_us, max_pulse_us, the joints' min_deg, max_deg, home_deg and the "
                "gripper's open_deg, closed_deg)"
            )
        located = _locate(tree, name)
        if located is None:
            raise CalibrationFileError(f"'{name}' is not in {source}: add it there first")
        holder, key = located
        values[name] = _file_value(name, value, holder[key])
    try:
        ArmConfig.from_parameters({**flat, **values})
    except ConfigError as error:
        raise CalibrationFileError(
            f"the new values are not a valid configuration: {error}; nothing written"
        ) from None
    changed = []
    for name, value in values.items():
        holder, key = _locate(tree, name)  # type: ignore[misc]
        if holder[key] is not value:  # the file's own value keeps its text as it is
            changed.append(name)
            holder[key] = value
    stream = io.StringIO()
    yaml.dump(document, stream)
    if mode == NEW_FILE:
        target, backup = calibrated_path(source), None
    else:
        target, backup = source, backup_path(source)
    return Edit(source, target, backup, old_text, stream.getvalue(), tuple(changed))


def write_edit(edit: Edit, expected_sha256: str) -> None:
    """Write a planned edit whose new text has `expected_sha256` (what the preview showed):
    OVERWRITE copies the file to its backup first; NEW_FILE never replaces a file."""
    if edit.new_text == edit.old_text:
        raise CalibrationFileError("nothing to save: every value equals the file's")
    if edit.sha256 != expected_sha256:
        raise CalibrationFileError(
            "the text to write differs from the previewed one (the file or the values changed "
            "since): preview again, then save"
        )
    if edit.backup is None:  # NEW_FILE: exclusive creation, so a file that appeared stays
        try:
            with open(edit.target, "x") as stream:
                stream.write(edit.new_text)
        except FileExistsError:
            raise CalibrationFileError(
                f"{edit.target} exists: not replaced. Save over it with a backup (overwrite), "
                "or move it away"
            ) from None
        except OSError as error:
            raise CalibrationFileError(f"cannot write {edit.target}: {error}") from None
        return
    try:
        with open(edit.backup, "x") as stream:
            stream.write(edit.old_text)
        temporary = edit.target.with_name(f".{edit.target.name}.calibrating")
        temporary.write_text(edit.new_text)
        os.replace(temporary, edit.target)  # atomic: the file is old or new, never half
    except OSError as error:
        raise CalibrationFileError(f"cannot write {edit.target}: {error}") from None


def restart_command(path: Path, namespace: str = "/", hardware: str | None = None) -> str:
    """The `bringup` command line that starts the arm on `path`.

    >>> restart_command(Path("/home/me/arm.calibrated.yaml"), "/left_arm", "servokit")
    'bringup --config /home/me/arm.calibrated.yaml --hardware servokit --namespace /left_arm'
    """
    words = ["bringup", "--config", str(path)]
    if hardware is not None:
        words += ["--hardware", hardware]
    if namespace not in ("", "/"):
        words += ["--namespace", namespace]
    return shlex.join(words)
