"""The kinematics tour (console script kinematics_tour) prints the right numbers."""

from __future__ import annotations

import math

import pytest

from arm_kinematics.cli.tour import main
from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics.planning.path_timing import TOOL_HEADROOM


def test_tour_of_the_default_arm(capsys) -> None:
    main([])
    out = capsys.readouterr().out
    config = ArmConfig.from_file()
    l1, l2 = config.link_lengths
    a, b = math.radians(30), math.radians(75)
    # FK of (30, 45) deg by the closed form, independently of the core.
    x, y = l1 * math.cos(a) + l2 * math.cos(b), l1 * math.sin(a) + l2 * math.sin(b)
    assert f"tip            x = {x:.5f} m, y = {y:.5f} m, heading = 75.00 deg (1.3090 rad)" in out
    assert f"end of link 1  x = {l1 * math.cos(a):.5f} m, y = {l1 * math.sin(a):.5f} m" in out
    # Both elbows, each checked by FK to rounding.
    assert "elbow_up:\n    status OK (0)" in out
    assert "elbow -45.00 deg (-0.7854 rad)" in out
    assert "elbow_down:\n    status OK (0)" in out
    assert out.count("distance to the target") >= 3
    for line in out.splitlines():
        if "distance to the target" in line:
            assert float(line.rsplit(" ", 2)[-2]) < 1e-12
    # CLOSEST from home (0, 45 deg) keeps elbow down: 30 deg of shoulder motion.
    assert "least motion from current" in out
    assert "joint motion from home: 0.5236 rad (30.00 deg)" in out
    assert "status TOO_FAR (2)" in out
    assert "status TOO_CLOSE (3)" in out
    assert "status JOINT_LIMIT (4)" in out
    # The line from the home tip to the tip above, timed as the trajectory node times it:
    # from rest up to the tool speed at the tool's acceleration, and down again (a trapezoid,
    # both within TOOL_HEADROOM of the limits), a setpoint per period, each a planned point.
    hx, hy = l1 + l2 * math.cos(math.pi / 4), l2 * math.sin(math.pi / 4)
    length = math.hypot(x - hx, y - hy)
    speed = config.trajectory.default_speed * TOOL_HEADROOM
    acceleration = config.trajectory.max_tool_acceleration * TOOL_HEADROOM
    assert length > speed * speed / acceleration  # long enough to reach the speed
    duration = length / speed + speed / acceleration
    count = math.ceil(duration * config.trajectory.command_rate_hz)
    assert f"{count} of {count} steps feasible (100.0 %), duration {duration:.3f} s" in out
    line = next(line for line in out.splitlines() if " setpoints at " in line)
    assert line.startswith(f"    {count} setpoints at {config.trajectory.command_rate_hz:g} Hz")
    assert float(line.split("at most ")[1].split(" m off")[0]) < 1e-9
    assert line.endswith("1 IK batch call(s)")
    peaks = next(line for line in out.splitlines() if line.startswith("    tool: peak"))
    assert f"peak {speed:.4f} m/s, {acceleration:.3f} m/s^2" in peaks


def test_tour_of_a_3r_arm(capsys) -> None:
    main(["--config", str(default_config_path("arm_3r.yaml"))])
    out = capsys.readouterr().out
    assert "Arm: 3 joints" in out
    assert "with heading 15.00 deg (0.2618 rad)" in out
    assert "heading = 15.00 deg (0.2618 rad); distance to the target" in out
    assert "status TOO_FAR (2)" in out


def test_tour_with_a_bad_config_exits_2(capsys, tmp_path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(tmp_path / "missing.yaml")])
    assert exit_info.value.code == 2
    assert "cannot be read" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name", ["arm_desk_kit.yaml", "arm_mearm.yaml", "arm_openmanipulator_x.yaml"]
)
def test_tour_of_a_spatial_arm(capsys, name: str) -> None:
    main(["--config", str(default_config_path(name))])
    out = capsys.readouterr().out
    config = ArmConfig.from_file(default_config_path(name))
    assert out.startswith(f"Arm: spatial, {len(config.joint_names)} joints")
    checks = [line for line in out.splitlines() if "distance to the target" in line]
    assert len(checks) >= 3  # an elbow (both where the limits allow), the pitch, CLOSEST
    for line in checks:
        assert float(line.rsplit(" ", 2)[-2]) < 1e-9
    # The pitch asked for in step 2 is the pitch its FK check reports.
    pitch_line = next(line for line in out.splitlines() if line.startswith("  with the pitch "))
    asked = pitch_line.split("with the pitch ")[1].split(" deg")[0]
    assert f"pitch {asked} deg" in out.split(pitch_line, 1)[1].split("\n3.")[0]
    assert "status TOO_FAR (2)" in out
    # On the yaw axis the direction is undefined: the answer says which yaw it took.
    assert "on the yaw axis (yaw 0.00 deg)" in out
    assert "status ORIENTATION_UNREACHABLE (5)" in out
    line = next(line for line in out.splitlines() if " setpoints at " in line)
    assert float(line.split("at most ")[1].split(" m off")[0]) < 1e-9
