"""Result types of the kinematics core: IK statuses, elbow branches and the IK result."""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any

try:  # the C accessor behind collections.namedtuple's fields (fast attribute reads)
    from _collections import _tuplegetter
except ImportError:  # other Python implementations: what namedtuple itself falls back to
    from operator import itemgetter as _itemgetter

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(_itemgetter(index), doc=doc)


class IkStatus(IntEnum):
    """Outcome of one IK solve; the values equal the SolveIK.srv status constants 0..6."""

    OK = 0
    SINGULAR = 1  # solved, but near full stretch or full fold: callers should slow down
    TOO_FAR = 2  # beyond the outer edge of the reachable ring
    TOO_CLOSE = 3  # inside the inner hole of the reachable ring
    JOINT_LIMIT = 4  # reachable, but every candidate breaks a joint limit
    ORIENTATION_UNREACHABLE = 5  # position reachable, requested heading not
    INVALID_INPUT = 6  # NaN, infinity, wrong length of `current`, unknown branch, n > 3


class Branch(IntEnum):
    """Elbow branch rule; the values equal the SolveIK.srv BRANCH_* constants."""

    CLOSEST = 0  # least joint motion from `current` (MAX_LIMIT_MARGIN without `current`)
    ELBOW_UP = 1  # joint 2 < 0: elbow on the counter-clockwise side of the base->target line
    ELBOW_DOWN = 2  # joint 2 > 0
    MAX_LIMIT_MARGIN = 3  # the feasible branch farthest from its joint limits

    @classmethod
    def from_name(cls, name: str) -> Branch:
        """Branch from its name, case-insensitive ("closest", "elbow_up", ...); ValueError else."""
        if isinstance(name, str):
            member = cls.__members__.get(name.strip().upper())
            if member is not None:
                return member
        names = ", ".join(m.name.lower() for m in cls)
        raise ValueError(f"unknown branch {name!r}: expected one of {names}")


class PlanStatus(IntEnum):
    """Plan failures that are not an IK status (values do not collide with IkStatus)."""

    JOINT_JUMP = 100  # a step's joints moved more than max_joint_step: a silent branch flip


class DeferredText:
    """A message formatted on first use: `build(*args)`, then cached.

    Most IkResult messages are never read (a planner solving thousands of points reads the
    status and joints), and formatting floats costs more than the whole solve. `build` must be
    a pure function of `args` (immutable values), so that the text does not depend on when it
    is first read.
    """

    __slots__ = ("_args", "_build", "_text")

    def __init__(self, build: Callable[..., str], *args: Any) -> None:
        self._build = build
        self._args = args
        self._text: str | None = None

    def __str__(self) -> str:
        text = self._text
        if text is None:
            # Concurrent first reads may both format (the same text): hence no lock, and the
            # arguments are kept.
            text = self._text = self._build(*self._args)
        return text

    def __repr__(self) -> str:
        return repr(str(self))


_tuple_new = tuple.__new__


class IkResult(tuple):
    """One IK answer (immutable).

    `joints` (radians, relative joint angles) is set only for OK and SINGULAR. `alternative` is
    the other elbow branch's joints when it is feasible too (within limits, meeting the heading)
    and distinct from `joints`. `manipulability` is sqrt(det(Jp Jp^T)) of the position Jacobian
    at `joints` (m^2), 0.0 without a solution. `message` is the human-readable outcome.

    Read the fields by name. Underneath it is a tuple with named read-only fields, like a
    `collections.namedtuple`: that costs half as much to build as a frozen dataclass, which
    matters because a whole 2R solve takes well under a microsecond. It compares, hashes,
    prints, copies and pickles like a frozen dataclass: by its five fields (the message as
    text), equal only to another IkResult, not ordered. The message may be stored unformatted
    (a DeferredText, which is also what indexing position 2 gives) and is formatted on first
    read of `message`.
    """

    __slots__ = ()

    status: IkStatus = _tuplegetter(0, "IkStatus of the solve.")  # type: ignore[assignment]
    joints: tuple[float, ...] | None = _tuplegetter(  # type: ignore[assignment]
        1, "Joint angles (rad), or None without a solution."
    )
    alternative: tuple[float, ...] | None = _tuplegetter(  # type: ignore[assignment]
        3, "The other elbow branch's joints (rad) when it is feasible too, else None."
    )
    manipulability: float = _tuplegetter(  # type: ignore[assignment]
        4, "Manipulability at `joints` (m^2), 0.0 without a solution."
    )

    def __new__(
        cls,
        status: IkStatus,
        joints: tuple[float, ...] | None,
        message: str | DeferredText,
        alternative: tuple[float, ...] | None = None,
        manipulability: float = 0.0,
    ) -> IkResult:
        return _tuple_new(cls, (status, joints, message, alternative, manipulability))

    @property
    def message(self) -> str:
        """What happened, in words (the status name first)."""
        message = self[2]
        return message if message.__class__ is str else str(message)

    @property
    def ok(self) -> bool:
        """True when `joints` holds a solution (OK or SINGULAR)."""
        return self.status <= 1

    def _values(self) -> tuple:
        """The five fields, the message formatted."""
        status, joints, _, alternative, manipulability = self
        return (status, joints, self.message, alternative, manipulability)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            # Not equal to a plain tuple of the same items (tuple's own == would say so).
            return False if isinstance(other, tuple) else NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return True if isinstance(other, tuple) else NotImplemented
        return self._values() != other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def _not_ordered(self, other: object) -> bool:
        return NotImplemented

    __lt__ = __le__ = __gt__ = __ge__ = _not_ordered

    def __repr__(self) -> str:
        status, joints, message, alternative, manipulability = self._values()
        return (
            f"IkResult(status={status!r}, joints={joints!r}, message={message!r}, "
            f"alternative={alternative!r}, manipulability={manipulability!r})"
        )

    def __reduce__(self) -> tuple:  # copy and pickle (any protocol) with the message as text
        return (IkResult, self._values())
