"""Files written so that a crash or a power cut leaves the old text or the new, never half.

Standard library only: the text goes to a temporary file in the same directory, is flushed to
the disk, and is renamed over the file (a rename within a directory is atomic on POSIX); the
directory is flushed too, so that the rename itself survives a power cut. The remembered pose
(`hardware/remembered_pose.py`), the named poses and the saved sequences (`teach/`) are
written this way.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically, making its directories as needed;
    OSError when it cannot be written (nothing changed then).

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "poses" / "arm.poses.yaml"
    >>> write_atomically(target, "poses: {}\\n")
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('poses: {}\\n', ['arm.poses.yaml'])
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself survives a power cut
    finally:
        os.close(directory)
