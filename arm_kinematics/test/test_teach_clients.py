"""The clients of named poses and sequences as a user runs them, each a process of its own,
against the desk kit's real nodes (IK, hardware on sim, trajectory) in this process, namespace
`kit`: the Python script of docs/sequences.md, `named_pose` and `run_sequence` (and its
Ctrl-C).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from ros_helpers import PACKAGE_DIR, installed_executable, interrupt_after, ros_graph
from teach_stack import EXAMPLE, TeachStack

pytestmark = pytest.mark.ros

NAMESPACE = "kit"
GUIDE = PACKAGE_DIR.parent / "docs" / "sequences.md"
SLOW = """
name: slow
steps:
  - {name: out, move: joint, pose: {x_m: 0.14, y_m: 0.06, z_m: 0.08, pitch_deg: -75}}
  - {name: across, move: joint, speed_fraction: 0.15,
     pose: {x_m: 0.07, y_m: -0.14, z_m: 0.08, pitch_deg: -75}}
  - {name: back, move: joint, to: home}
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[TeachStack]:
    folder = tmp_path_factory.mktemp("teach")
    with ros_graph() as graph:
        yield TeachStack(graph, folder, namespace=NAMESPACE)


def run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(args), capture_output=True, text=True, timeout=timeout, env=dict(os.environ)
    )


def cli(name: str, *args: str) -> subprocess.CompletedProcess:
    return run(installed_executable(name), "--namespace", NAMESPACE, "--timeout", "30", *args)


def guide_script() -> str:
    """The python block of docs/sequences.md."""
    match = re.search(r"```python\n(.*?)```", GUIDE.read_text(), re.DOTALL)
    assert match, f"no python block in {GUIDE}"
    return match.group(1)


def test_the_guides_script_saves_a_pose_and_runs_a_sequence_through_it(stack, tmp_path: Path):
    script = tmp_path / "teach.py"
    script.write_text(guide_script())
    states = stack.state_count()
    done = run(sys.executable, str(script), NAMESPACE)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "move: SUCCEEDED"
    assert lines[1] == "saved spot at x=0.140 y=0.060 z=0.080 m"
    assert lines[2] == "home: SUCCEEDED"
    assert re.fullmatch(
        r"sequence: SUCCEEDED in step 3 \(home again\), planned in \d+ ms, ran \d+\.\d s", lines[3]
    )
    opening = re.fullmatch(r"gripper: SUCCEEDED at (\d+\.\d) mm", lines[4])
    assert opening, lines[4]
    assert float(opening.group(1)) == pytest.approx(55.0, abs=1.0)  # the desk kit's open
    assert lines[5] == "named poses: home, spot"
    assert np.allclose(stack.wait_at_rest(), stack.config.home, atol=1e-6)
    gripper = stack.track("gripper", states)
    closed = np.flatnonzero(np.abs(gripper) < math.radians(1))  # the sequence's grip
    assert len(closed) > 0
    opened = np.abs(gripper - math.radians(70)) < math.radians(1)  # then open_gripper
    assert opened[closed[-1] :].any()
    assert opened[-1]


def test_named_pose_saves_lists_moves_and_deletes(stack):
    saved = cli("named_pose", "save", "perch", "--overwrite")
    assert saved.returncode == 0, saved.stdout + saved.stderr
    assert saved.stdout.startswith("saved: perch: base_yaw=")
    listed = cli("named_pose", "list")
    assert listed.returncode == 0
    names = [line.split(":")[0] for line in listed.stdout.splitlines() if not line.startswith(" ")]
    assert names[0] == "home"
    assert "perch" in names
    moved = cli("named_pose", "move", "home", "--joint", "--quiet")
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "status: SUCCEEDED (0)" in moved.stdout
    refused = cli("named_pose", "move", "nowhere")
    assert refused.returncode == 1
    assert "status: INVALID_GOAL (1)" in refused.stdout
    assert "no named pose 'nowhere'" in refused.stdout
    deleted = cli("named_pose", "delete", "perch")
    assert deleted.returncode == 0
    assert deleted.stdout.startswith("deleted the named pose 'perch'")
    bad = cli("named_pose", "save", "home")
    assert bad.returncode == 1
    assert bad.stdout.startswith("named_pose save: 'home' is the params file's joints")


def test_run_sequence_runs_the_example_file_and_prints_each_step(stack):
    done = cli("run_sequence", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
    steps = [line for line in done.stdout.splitlines() if line.startswith("step ")]
    assert len(steps) == 20
    assert steps[0].startswith("step 1/10, repeat 1/2: start at home (move;")
    assert steps[4].startswith("step 5/10, repeat 1/2: grip it (gripper;")
    assert steps[-1].startswith("step 10/10, repeat 2/2: back home (move;")
    assert "status: SUCCEEDED (0)" in done.stdout
    assert "ended in step 10 of 10 (back home), repeat 2 of 2" in done.stdout
    assert re.search(r"planning: \d+ ms; running: \d+\.\d\d s", done.stdout)


def test_ctrl_c_in_run_sequence_cancels_it_where_it_is(stack, tmp_path: Path):
    program = tmp_path / "slow.yaml"
    program.write_text(SLOW)
    code, out = interrupt_after(
        installed_executable("run_sequence"),
        str(program),
        "--namespace",
        NAMESPACE,
        prefix="step 2/3",
        count=1,
    )
    assert code == 130, out
    assert "run_sequence: canceling the goal..." in out
    assert "status: CANCELED (4)" in out
    assert re.search(r"message: step \d of 3 \(\w+\): canceled by the client", out)
    assert not np.allclose(stack.wait_at_rest(), stack.config.home, atol=0.05)  # stopped midway
