"""Repair the ros-jazzy wheels' cmake exports inside one virtualenv, idempotently.

The wheels were built under /opt/python/cp311-cp311; their `share/*/cmake/*.cmake` files name
that interpreter's include directory and numpy's include directory, which do not exist here.
This rewrites both to this interpreter's real paths. Nothing outside the virtualenv is touched.
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

WHEEL_PYTHON_INCLUDE = "/opt/python/cp311-cp311/include/python3.11"
WHEEL_NUMPY_INCLUDE = "/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include"


def main(venv: Path) -> int:
    import numpy

    replacements = {
        WHEEL_PYTHON_INCLUDE: sysconfig.get_paths()["include"],
        WHEEL_NUMPY_INCLUDE: numpy.get_include(),
    }
    fixed = 0
    for path in (venv / "share").glob("*/cmake/*.cmake"):
        text = path.read_text()
        if "/opt/python/cp311-cp311" not in text:
            continue
        for old, new in replacements.items():
            text = text.replace(old, new)
        path.write_text(text)
        fixed += 1
    if fixed:
        print(
            f"[setup] rewrote wheel build paths in {fixed} cmake files under {venv}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
