"""The installed `ik_node` and `ik_client` console scripts, run as a user runs them.

One ik_node process on the packaged config/arm.yaml (L = 0.100, 0.080 m) serves the whole
module; `ik_client` runs in its own processes against it and its printout is checked.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from ros_helpers import (
    DEFAULT_CONFIG,
    DEFAULT_TIMEOUT_S,
    at_once,
    installed_executable,
    ros_graph,
    run_to_exit,
    start_node_process,
    stop_process,
    wait_for,
    wait_for_future,
)

from arm_kinematics.cli.ik_client import parse_joint_values
from arm_kinematics_interfaces.srv import SolveIK

pytestmark = pytest.mark.ros

DEG = math.radians
# FK of (30 deg, 45 deg) for L = (0.100, 0.080) m.
TIP = (
    0.1 * math.cos(DEG(30)) + 0.08 * math.cos(DEG(75)),
    0.1 * math.sin(DEG(30)) + 0.08 * math.sin(DEG(75)),
)


def run_client(*args: str, timeout: float = DEFAULT_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run(
        [installed_executable("ik_client"), *args],
        capture_output=True,
        text=True,
        timeout=timeout + 30.0,
        env=dict(os.environ),
        check=False,
    )


def clients_at_once(*commands: tuple[str, ...]) -> list[subprocess.CompletedProcess]:
    """`run_client` of each command, all at once (their start-ups and discovery overlap)."""
    return at_once(*(partial(run_client, *command) for command in commands))


def joints_printed(line: str) -> dict[str, tuple[float, float]]:
    """{name: (rad, deg)} from a `solution: shoulder=0.5236 rad (30.000 deg), ...` line."""
    return {
        name: (float(rad), float(deg))
        for name, rad, deg in re.findall(r"(\w+)=(-?[\d.]+) rad \((-?[\d.]+) deg\)", line)
    }


def printed(output: str, key: str) -> str:
    match = re.search(rf"^{key}: (.*)$", output, re.MULTILINE)
    assert match, f"no '{key}:' line in:\n{output}"
    return match.group(1)


@pytest.fixture(scope="module")
def ik_node() -> Iterator[subprocess.Popen]:
    proc = start_node_process(
        installed_executable("ik_node"), "--ros-args", "--params-file", str(DEFAULT_CONFIG)
    )
    try:
        with ros_graph() as graph:
            client = graph.node("probe").create_client(SolveIK, "/solve_ik")
            wait_for(
                lambda: client.wait_for_service(timeout_sec=0.5) or proc.poll() is not None,
                what="ik_node's solve_ik",
            )
        assert proc.poll() is None, stop_process(proc)[1]
        yield proc
    finally:
        stop_process(proc)


def test_client_solve_prints_both_elbows(ik_node: subprocess.Popen) -> None:
    result = run_client("solve", f"{TIP[0]:.9f}", f"{TIP[1]:.9f}")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert printed(out, "status") == "OK (0)"
    solution = joints_printed(printed(out, "solution"))
    assert solution["shoulder"][1] == pytest.approx(30.0, abs=1e-3)
    assert solution["elbow"][1] == pytest.approx(45.0, abs=1e-3)
    assert solution["elbow"][0] == pytest.approx(DEG(45), abs=1e-6)
    alternative = joints_printed(printed(out, "alternative"))
    assert alternative["elbow"][1] == pytest.approx(-45.0, abs=1e-3)
    # 2R manipulability L1 L2 |sin q2|.
    manipulability = float(printed(out, "manipulability").split()[0])
    assert manipulability == pytest.approx(0.1 * 0.08 * math.sin(DEG(45)), rel=1e-4)
    assert "elbow down" in printed(out, "message")


def test_client_solve_with_branch_seed_and_heading(ik_node: subprocess.Popen) -> None:
    x, y = f"{TIP[0]:.12f}", f"{TIP[1]:.12f}"
    up, seeded, heading, wrong_heading = clients_at_once(
        ("solve", x, y, "--branch", "elbow_up"),
        ("solve", x, y, "--seed", "elbow=-30", "shoulder=70"),
        ("solve", x, y, "--heading", "75"),
        ("solve", x, y, "--heading", "10"),
    )
    assert joints_printed(printed(up.stdout, "solution"))["elbow"][1] == pytest.approx(-45.0)
    assert joints_printed(printed(seeded.stdout, "solution"))["elbow"][1] == pytest.approx(-45.0)
    assert heading.returncode == 0, heading.stdout + heading.stderr
    assert printed(heading.stdout, "alternative") == "none"
    assert wrong_heading.returncode == 1
    assert printed(wrong_heading.stdout, "status") == "ORIENTATION_UNREACHABLE (5)"


def test_client_refused_requests_exit_1(ik_node: subprocess.Popen) -> None:
    too_far, wrong_frame, bad_line = clients_at_once(
        ("solve", "0.5", "0"), ("solve", "0.1", "0.05", "--frame", "map"), ("solve", "0.1")
    )
    assert too_far.returncode == 1
    assert printed(too_far.stdout, "status") == "TOO_FAR (2)"
    assert printed(too_far.stdout, "solution") == "none"
    assert "beyond the arm's reach of 0.18 m" in printed(too_far.stdout, "message")
    assert printed(wrong_frame.stdout, "status") == "WRONG_FRAME (7)"
    assert wrong_frame.returncode == 1
    assert bad_line.returncode == 1
    assert "usage: ik_client" in bad_line.stderr


def test_client_fk(ik_node: subprocess.Popen) -> None:
    result, outside, unknown = clients_at_once(
        ("fk", "--joints", "30", "45"),
        ("fk", "--joints", "shoulder=0", "elbow=120"),
        ("fk", "--joints", "shoulder=0", "wrist=10"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    tip = re.search(r"^tip: x=(\S+) y=(\S+) z=(\S+) m heading=(\S+) rad", result.stdout, re.M)
    assert tip
    assert (float(tip[1]), float(tip[2])) == pytest.approx(TIP, abs=1e-6)
    assert float(tip[4]) == pytest.approx(DEG(75), abs=1e-6)
    assert printed(result.stdout, "within_limits") == "true"
    # Every frame as TF names it: the base, the two links, the tip.
    names = re.findall(r"^frame (\S+):", result.stdout, re.M)
    assert names == ["base_link", "link_1", "link_2", "tool0"]
    assert outside.returncode == 0
    assert printed(outside.stdout, "within_limits") == "false"
    assert unknown.returncode == 1
    assert printed(unknown.stdout, "status") == "UNKNOWN_JOINT (1)"


def test_client_without_a_node_exits_2() -> None:
    result = run_client("--timeout", "1", "solve", "0.1", "0.0", "--namespace", "nobody_here")
    assert result.returncode == 2
    assert "no /nobody_here/solve_ik service within 1 s" in result.stderr


def test_parse_joint_values() -> None:
    names = ("shoulder", "elbow")
    assert parse_joint_values(["30", "-45"], names) == (
        ["shoulder", "elbow"],
        [pytest.approx(DEG(30)), pytest.approx(DEG(-45))],
    )
    assert parse_joint_values(["elbow=90", "shoulder=0"], names)[0] == ["elbow", "shoulder"]
    with pytest.raises(ValueError, match="3 values for 2 joints"):
        parse_joint_values(["1", "2", "3"], names)
    with pytest.raises(ValueError, match="'abc' is not DEG or NAME=DEG"):
        parse_joint_values(["abc"], names)


# --- the node process itself --------------------------------------------------------------------


def test_ik_node_throttles_warnings_and_stops_cleanly_on_ctrl_c() -> None:
    # In its own namespace, so that only this process answers the probe.
    proc = start_node_process(installed_executable("ik_node"), "--ros-args", "-r", "__ns:=/sigint")
    malformed = SolveIK.Request()
    malformed.target.header.frame_id = "map"
    with ros_graph() as graph:
        client = graph.node("probe_sigint").create_client(SolveIK, "/sigint/solve_ik")
        wait_for(lambda: client.wait_for_service(timeout_sec=0.5), what="/sigint/solve_ik")
        start = time.monotonic()
        for _ in range(300):
            assert (
                wait_for_future(client.call_async(malformed)).status == SolveIK.Response.WRONG_FRAME
            )
        elapsed = time.monotonic() - start
    code, output = stop_process(proc)
    assert code == 0, output
    assert "ready: 2 joints (shoulder, elbow), links 0.100, 0.080 m" in output
    assert "Traceback" not in output
    # One WARN per 2 s of malformed requests, not 300.
    warnings = [line for line in output.splitlines() if "WARN" in line]
    assert 1 <= len(warnings) <= 1 + elapsed / 2.0, output
    assert "malformed solve_ik request: target frame 'map'" in warnings[0]


@pytest.mark.parametrize(
    ("text", "old", "parameter"),
    [
        ("link_lengths_m: [0.100, 0.080]", "link_lengths_m: [0.100, -0.080]", "link_lengths_m"),
        ("default_branch: closest", "default_branch: sideways", "default_branch"),
    ],
)
def test_invalid_params_file_stops_with_one_line(
    tmp_path: Path, text: str, old: str, parameter: str
) -> None:
    bad = tmp_path / "bad_arm.yaml"
    source = DEFAULT_CONFIG.read_text()
    assert text in source
    bad.write_text(source.replace(text, old))
    code, output = run_to_exit("ik_node", "--ros-args", "--params-file", str(bad))
    assert code == 2, output
    fatal = [line for line in output.splitlines() if "FATAL" in line]
    assert len(fatal) == 1, output
    assert f"parameter '{parameter}'" in fatal[0]
    assert "Traceback" not in output
