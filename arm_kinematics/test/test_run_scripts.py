"""The scripts behind `make run`: scripts/setup.sh skips what has not changed, scripts/run.sh says
the address the page is really served at.

The test process already has the environment of scripts/env.sh (`make test` sources it).
"""

from __future__ import annotations

import re
import subprocess
import threading
import urllib.request

import pytest
from ros_helpers import DEFAULT_TIMEOUT_S, PACKAGE_DIR, start_node_process, stop_process, wait_for

pytestmark = pytest.mark.ros

REPO = PACKAGE_DIR.parent
SETUP_TIMEOUT_S = 600.0  # a first build of both packages, on a loaded machine


def setup() -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "setup.sh")],
        capture_output=True,
        text=True,
        timeout=SETUP_TIMEOUT_S,
        check=False,
    )


def test_a_second_setup_with_nothing_changed_skips_colcon_and_warns_nothing() -> None:
    first = setup()  # builds if something changed since the last build (nothing under make)
    assert first.returncode == 0, first.stderr
    assert "local_setup" not in first.stderr  # colcon's AMENT_PREFIX_PATH warning
    second = setup()
    assert second.returncode == 0, second.stderr
    assert second.stdout == ""
    assert second.stderr == ""  # no "[setup] colcon build", no pip, no warning


def test_run_says_the_url_it_really_serves() -> None:
    """`make run ARGS="--web-port N"` once said 8080 whatever N was."""
    lines: list[str] = []
    process = start_node_process("bash", str(REPO / "scripts" / "run.sh"), "--web-port", "0")
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()

    def announced() -> str | None:
        if process.poll() is not None:
            raise AssertionError("".join(lines))
        found = (re.fullmatch(r"\[run\] open the page: (\S+)\n", line) for line in lines)
        return next((match.group(1) for match in found if match), None)

    try:
        url = wait_for(announced, what="run.sh's line with the page's address")
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
        assert not url.endswith(":8080/")  # a free port was asked for
        served = next(line for line in lines if "[web_bridge]: page at " in line)
        assert served.rstrip().endswith(url)
        with urllib.request.urlopen(url, timeout=DEFAULT_TIMEOUT_S) as response:
            assert response.status == 200
        assert not any("8080" in line for line in lines if line.startswith("[run]"))
    finally:
        code, _ = stop_process(process)
    assert code == 0, "".join(lines)
