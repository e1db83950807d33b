"""A running arm with its web page, for the browser tests and bench/bench_web.py."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from ros_helpers import installed_executable, start_node_process, stop_process, wait_for

from arm_kinematics.config import ArmConfig

URL_LINE = re.compile(r"(http://127\.0\.0\.1:\d+/)")


class Stack:
    """A bringup process with its web bridge on a free port; its output kept for messages."""

    def __init__(self, config: Path) -> None:
        self.config = config
        self.arm = ArmConfig.from_file(config).make_arm()
        self.lines: list[str] = []
        self.process = start_node_process(
            installed_executable("bringup"), "--config", str(config), "--web-port", "0"
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.url = wait_for(self._url, what="the web bridge's URL in bringup's output")

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def _url(self) -> str | None:
        if self.process.poll() is not None:
            raise AssertionError(
                f"bringup exited {self.process.returncode}:\n{''.join(self.lines)}"
            )
        for line in self.lines:
            if "/ws" not in line and (match := URL_LINE.search(line)):
                return match.group(1)
        return None

    def stop(self) -> None:
        stop_process(self.process)
