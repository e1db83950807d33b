"""YAML read and written as ruamel.yaml's round trip: comments, order, flow style and quotes
stay as a person wrote them, and every node knows its line (for the words of an error).

The named poses' file and the sequence programs are read here; JSON is YAML too, so a program
built by the page as JSON reads the same way.
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .names import TeachError


def round_trip() -> YAML:
    """ruamel.yaml's round-trip reader and writer, never folding a long line."""
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def load(text: str, where: str) -> Any:
    """The document of `text`; TeachError naming `where` and the line of a YAML error.

    >>> load("steps: [{wait_s: 1}]", "the program")["steps"][0]["wait_s"]
    1
    >>> load("steps: [", "the program")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    arm_kinematics.teach.names.TeachError: the program is not YAML: line 1: ...
    """
    try:
        return round_trip().load(text)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise TeachError(f"{where} is not YAML: {line}{problem}") from None


def dump(document: Any) -> str:
    """The text of a round-trip document."""
    stream = io.StringIO()
    round_trip().dump(document, stream)
    return stream.getvalue()


def line_of(mapping: Any, key: Any = None) -> str:
    """'line N: ' of a key in a round-trip mapping (of the mapping itself without one), ''
    when unknown (a plain dict, a JSON document's one line)."""
    lc = getattr(mapping, "lc", None)
    if lc is None:
        return ""
    try:
        line = lc.line if key is None else lc.key(key)[0]
    except (KeyError, TypeError, AttributeError):
        return ""
    return f"line {line + 1}: "
