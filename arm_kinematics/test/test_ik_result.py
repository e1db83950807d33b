"""IkResult behaves like an immutable record."""

from __future__ import annotations

import copy
import pickle

import pytest

from arm_kinematics.kinematics import IkResult, IkStatus, PlanarArm


@pytest.fixture
def arm() -> PlanarArm:
    return PlanarArm((1.0, 0.8), joint_limits=((-3.0, 3.0), (-3.0, 3.0)))


def test_fields_are_read_only(arm: PlanarArm) -> None:
    result = arm.solve(1.0731, 1.2727)
    with pytest.raises(AttributeError):
        result.status = IkStatus.TOO_FAR  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.joints = (0.0, 0.0)  # type: ignore[misc]


def test_message_reads_as_text_and_compares_by_text(arm: PlanarArm) -> None:
    far = arm.solve(5.0, 0.0)
    assert far.status is IkStatus.TOO_FAR
    assert isinstance(far.message, str)
    assert far.message.startswith("TOO_FAR")
    same = IkResult(far.status, None, str(far.message))
    assert far == same
    assert hash(far) == hash(same)
    assert far != IkResult(far.status, None, "TOO_FAR: something else")
    # Not equal to a plain tuple of its fields.
    assert far != (far.status, far.joints, far.message, far.alternative, far.manipulability)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickles_and_copies_with_the_message_as_text(arm: PlanarArm, protocol: int) -> None:
    result = arm.solve(0.05, 0.0)  # TOO_CLOSE
    restored = pickle.loads(pickle.dumps(result, protocol=protocol))
    assert restored == result
    assert restored.message == result.message
    assert copy.deepcopy(result) == result


def test_not_ordered(arm: PlanarArm) -> None:
    with pytest.raises(TypeError):
        _ = arm.solve(5.0, 0.0) < arm.solve(5.0, 0.0)
