"""calibration_file: calibrated values written into a params file with its comments and layout
kept (ruamel.yaml's round trip), checked before anything is written, never a silent overwrite."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml
from calibration_helpers import write_planar_gripper

from arm_kinematics.calibration_file import (
    NEW_FILE,
    OVERWRITE,
    CalibrationFileError,
    calibration_names,
    plan_edit,
    write_edit,
)
from arm_kinematics.config import (
    ArmConfig,
    default_config_path,
    flatten_parameters,
    load_parameters_file,
)

# Every arm's parameters file (moveit_controllers.yaml beside them is MoveIt's, no arm's).
SHIPPED = sorted(Path(default_config_path()).parent.glob("arm*.yaml"))
assert len(SHIPPED) == 5, SHIPPED
COMMENT = re.compile(r"#.*$")


def comments(text: str) -> list[str]:
    return [m.group(0) for line in text.splitlines() if (m := COMMENT.search(line))]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_setting_every_value_to_itself_changes_nothing(path: Path, tmp_path: Path) -> None:
    copy = tmp_path / path.name
    copy.write_text(path.read_text())
    flat = load_parameters_file(copy)
    names = calibration_names(ArmConfig.from_file(copy))
    edit = plan_edit(copy, {name: flat[name] for name in names})
    assert edit.new_text == path.read_text()  # byte for byte
    assert edit.changed == ()
    assert edit.diff == ""
    with pytest.raises(CalibrationFileError, match="nothing to save"):
        write_edit(edit, edit.sha256)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_new_values_change_only_their_lines_and_keep_every_comment(
    path: Path, tmp_path: Path
) -> None:
    copy = tmp_path / path.name
    copy.write_text(path.read_text())
    config = ArmConfig.from_file(copy)
    joint = config.joints[0]
    name = f"joints.{joint.name}"
    servo = joint.servo
    home_deg = math.degrees(joint.home) + 1.234  # written to 0.01
    assert joint.min_position <= math.radians(home_deg) <= joint.max_position
    changes = {
        f"{name}.home_deg": home_deg,
        f"{name}.servo.min_pulse_us": servo.min_pulse_us + 20,
        f"{name}.servo.max_pulse_us": servo.max_pulse_us - 40.0,  # a whole float is fine
    }
    edit = plan_edit(copy, changes)
    old, new = edit.old_text.splitlines(), edit.new_text.splitlines()
    assert len(old) == len(new)  # the layout: same lines, blank ones included
    differing = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(differing) == 3
    for a, b in differing:  # same key, same comment at the same column; only the value
        assert a.split(":")[0] == b.split(":")[0]
        assert COMMENT.search(a) is None or a.index("#") == b.index("#")
        assert (COMMENT.search(a) or [None])[0] == (COMMENT.search(b) or [None])[0]
    assert comments(edit.new_text) == comments(edit.old_text)
    values = load_parameters_file(copy) | {
        f"{name}.home_deg": round(home_deg, 2),
        f"{name}.servo.min_pulse_us": servo.min_pulse_us + 20,
        f"{name}.servo.max_pulse_us": servo.max_pulse_us - 40,
    }
    written = yaml.safe_load(edit.new_text)["/**"]["ros__parameters"]
    assert flatten_parameters(written) == values
    assert isinstance(flatten_parameters(written)[f"{name}.servo.max_pulse_us"], int)
    assert edit.target == tmp_path / (path.stem + ".calibrated.yaml")
    lines = edit.diff.splitlines()[2:]  # after the --- and +++ headers
    assert len([line for line in lines if line.startswith("-")]) == 3
    assert len([line for line in lines if line.startswith("+")]) == 3


def test_saving_writes_a_new_file_or_a_backup_and_never_overwrites_silently(
    tmp_path: Path,
) -> None:
    source = write_planar_gripper(tmp_path)
    original = source.read_text()
    changes = {"joints.gripper.servo.offset_deg": 42.5, "gripper.open_deg": 55.0}
    edit = plan_edit(source, changes)
    with pytest.raises(CalibrationFileError, match="differs from the previewed one"):
        write_edit(edit, "0" * 64)
    assert not edit.target.exists()
    write_edit(edit, edit.sha256)
    assert edit.target.read_text() == edit.new_text
    assert source.read_text() == original
    # The same again: the new file exists, it is not replaced.
    again = plan_edit(source, {"joints.gripper.servo.offset_deg": 43.0})
    with pytest.raises(CalibrationFileError, match="exists: not replaced"):
        write_edit(again, again.sha256)
    assert edit.target.read_text() == edit.new_text
    # Overwrite, asked for: the old file goes to .bak first, then .bak.1.
    for number, offset in enumerate((44.0, 45.0)):
        edit = plan_edit(source, {"joints.gripper.servo.offset_deg": offset}, OVERWRITE)
        before = source.read_text()
        expected_backup = source.with_name(source.name + (".bak" if number == 0 else ".bak.1"))
        assert edit.backup == expected_backup
        write_edit(edit, edit.sha256)
        assert expected_backup.read_text() == before
        assert load_parameters_file(source)["joints.gripper.servo.offset_deg"] == offset
    assert source.with_name(source.name + ".bak").read_text() == original


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"joints.shoulder.servo.channel": 3}, "not a calibration value"),
        ({"link_lengths_m": 0.2}, "not a calibration value"),
        ({"joints.shoulder.servo.sign": 0.5}, "must be a whole number"),
        ({"joints.shoulder.servo.offset_deg": float("nan")}, "not a finite number"),
        # The joint's limits would map outside the servo travel: the config's own words.
        (
            {"joints.shoulder.servo.offset_deg": 120.0},
            "parameter 'joints.shoulder.max_deg' = 90.0: maps to servo angle 210",
        ),
        ({"joints.elbow.servo.sign": 2}, "parameter 'joints.elbow.servo.sign' = 2: must be"),
        ({"gripper.open_deg": 70.0}, "parameter 'gripper.open_deg' = 70.0: must lie within"),
    ],
)
def test_a_bad_value_is_refused_naming_it_and_nothing_is_written(
    tmp_path: Path, changes: dict, words: str
) -> None:
    source = write_planar_gripper(tmp_path)
    with pytest.raises(CalibrationFileError, match=re.escape(words)):
        plan_edit(source, changes, NEW_FILE)
    assert sorted(p.name for p in tmp_path.iterdir()) == [source.name]
