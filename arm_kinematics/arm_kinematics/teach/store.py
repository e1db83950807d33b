"""The saved sequences: one program file per name, `<directory>/<name>.yaml`.

What the page's sequence recorder saves and lists (`sequences/save`, `sequences/list`,
`sequences/delete` on the trajectory node); a program is kept as the text it was given (its
comments too), written atomically. Whether the text is a program for this arm is checked by
the node before it saves (`program.read_program`), not here.
"""

from __future__ import annotations

import threading
from pathlib import Path

from arm_kinematics.atomic_file import write_atomically

from .names import TeachError, checked_name

SUFFIX = ".yaml"


class SequenceStore:
    """The sequences saved in `directory` (made on the first save)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.Lock()

    def path(self, name: str) -> Path:
        """The file of the sequence `name`; TeachError for a name that breaks the rule."""
        return self.directory / (checked_name(name, "a sequence") + SUFFIX)

    def names(self) -> list[str]:
        """The saved sequences' names, sorted (none before the first save).

        >>> import tempfile
        >>> store = SequenceStore(Path(tempfile.mkdtemp()) / "sequences")
        >>> store.save("pick", "steps: [{wait_s: 1}]\\n").name
        'pick.yaml'
        >>> store.names(), store.read("pick")
        (['pick'], 'steps: [{wait_s: 1}]\\n')
        """
        if not self.directory.is_dir():
            return []
        return sorted(
            p.name.removesuffix(SUFFIX)
            for p in self.directory.glob("*" + SUFFIX)
            if p.is_file() and not p.name.startswith(".")
        )

    def read(self, name: str) -> str:
        """The program text of the sequence `name`; TeachError when there is none."""
        path = self.path(name)
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            known = ", ".join(self.names()) or "none"
            raise TeachError(
                f"no saved sequence '{name}' in {self.directory} (saved: {known})"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise TeachError(f"cannot read {path}: {error}") from None

    def save(self, name: str, text: str, overwrite: bool = False) -> Path:
        """Write `text` as the sequence `name`; TeachError when another text has that name
        (without `overwrite`) or it cannot be written (the same text again: nothing to do, a
        save sent twice is one save). The file."""
        path = self.path(name)
        text = text if text.endswith("\n") else text + "\n"
        with self._lock:
            if path.exists() and not overwrite:
                if path.read_text(encoding="utf-8") == text:
                    return path
                raise TeachError(
                    f"a sequence '{name}' exists ({path}): choose another name, or overwrite it"
                )
            try:
                write_atomically(path, text)
            except OSError as error:
                raise TeachError(
                    f"cannot write {path}: {error} (set the trajectory node's parameter "
                    "sequences.directory to a writable directory)"
                ) from None
        return path

    def delete(self, name: str) -> bool:
        """Remove the sequence `name`: True, or False when there is none (a delete sent twice
        is one delete); TeachError when it cannot be removed."""
        path = self.path(name)
        with self._lock:
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            except OSError as error:
                raise TeachError(f"cannot delete {path}: {error}") from None
        return True
