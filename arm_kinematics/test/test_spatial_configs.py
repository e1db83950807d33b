"""Every shipped spatial config, 10,000 random poses each: FK -> IK -> FK, the FK being the URDF.

For each file: joint vectors drawn uniformly within the joint limits (and, for a parallelogram
servo, within the link angles its travel allows) -> the tool pose through the chain of joint
transforms of the file's URDF (`UrdfChain`, written independently of the solver) -> the file's
`make_model()` (the bare kinematics, without the workspace envelope) asked for that pose with
the position only, with the tool's pitch, and with the whole tool rotation. Every answer must
be OK or SINGULAR, within the joint limits and every servo's travel (checked by the hardware's
`ServoMap`, not the solver), and the URDF chain must put it on the target to 1e-9 m, its pitch
to 1e-9 rad, its rotation to 1e-9 rad.

The pitch of a target is measured here from the URDF's tool x axis: its angle above the
horizontal in the vertical half-plane through the tool point, facing away from the yaw axis
(the design's outward convention).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from urdf_chain import SPATIAL_CONFIGS, UrdfChain, random_joints

from arm_kinematics.config import ArmConfig
from arm_kinematics.description import robot_description
from arm_kinematics.hardware import InvalidCommandError, ServoMap
from arm_kinematics.kinematics import IkStatus

N_POSES = 10_000
POSITION_TOLERANCE = 1e-9  # m
ANGLE_TOLERANCE = 1e-9  # rad
SOLVED = (IkStatus.OK, IkStatus.SINGULAR)


def outward_pitch(frames: np.ndarray) -> np.ndarray:
    """The tool x axis's angle above the horizontal, outward from the yaw axis (rad), per
    4x4 tool frame."""
    position, axis = frames[:, :3, 3], frames[:, :3, 0]
    psi = np.arctan2(position[:, 1], position[:, 0])
    outward = axis[:, 0] * np.cos(psi) + axis[:, 1] * np.sin(psi)
    return np.arctan2(axis[:, 2], outward)


def rotation_angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The angle (rad) of the rotation between 3x3 rotations a and b, per row; from the
    antisymmetric and symmetric parts, accurate near 0."""
    relative = np.einsum("nji,njk->nik", a, b)
    sine = np.linalg.norm(
        np.stack(
            [
                relative[:, 2, 1] - relative[:, 1, 2],
                relative[:, 0, 2] - relative[:, 2, 0],
                relative[:, 1, 0] - relative[:, 0, 1],
            ],
            axis=1,
        ),
        axis=1,
    )
    cosine = np.trace(relative, axis1=1, axis2=2) - 1.0
    return np.arctan2(sine, cosine)


def wrapped(angles: np.ndarray) -> np.ndarray:
    return np.abs(np.arctan2(np.sin(angles), np.cos(angles)))


@pytest.fixture(params=SPATIAL_CONFIGS, ids=lambda p: p.name)
def setup(request: pytest.FixtureRequest):
    path: Path = request.param
    config = ArmConfig.from_file(path)
    chain = UrdfChain(robot_description(path), config.base_frame, config.tip_frame)
    joints = random_joints(config, N_POSES, seed=2019)
    return config, chain, joints, chain.tip_transforms(joints)


def check_answers(config: ArmConfig, chain: UrdfChain, results, mode: str) -> np.ndarray:
    """The answers' joints, after checking that each is OK or SINGULAR and within every joint
    limit and servo travel (through the hardware's servo map)."""
    servos = ServoMap.from_config(config)
    gripper = () if config.gripper is None else (config.gripper.joint.home,)
    answers = []
    for index, result in enumerate(results):
        assert result.status in SOLVED, f"{mode} pose {index}: {result.message}"
        try:
            servos.check((*result.joints, *gripper))
        except InvalidCommandError as error:
            pytest.fail(f"{mode} pose {index}: {result.joints} {error}")
        answers.append(result.joints)
    return chain.tip_transforms(np.array(answers))


def test_position_only(setup) -> None:
    config, chain, _, targets = setup
    arm = config.make_model()
    results = [arm.solve(*frame[:3, 3]) for frame in targets]
    reached = check_answers(config, chain, results, "position")
    error = np.linalg.norm(reached[:, :3, 3] - targets[:, :3, 3], axis=1)
    assert error.max() < POSITION_TOLERANCE


def test_position_and_pitch(setup) -> None:
    config, chain, _, targets = setup
    arm = config.make_model()
    pitches = outward_pitch(targets)
    results = [
        arm.solve(*frame[:3, 3], pitch=float(pitch))
        for frame, pitch in zip(targets, pitches, strict=True)
    ]
    reached = check_answers(config, chain, results, "pitch")
    error = np.linalg.norm(reached[:, :3, 3] - targets[:, :3, 3], axis=1)
    assert error.max() < POSITION_TOLERANCE
    assert wrapped(outward_pitch(reached) - pitches).max() < ANGLE_TOLERANCE


def test_full_orientation(setup) -> None:
    config, chain, _, targets = setup
    arm = config.make_model()
    results = [arm.solve_rotation(*frame[:3, 3], frame[:3, :3]) for frame in targets]
    reached = check_answers(config, chain, results, "rotation")
    error = np.linalg.norm(reached[:, :3, 3] - targets[:, :3, 3], axis=1)
    assert error.max() < POSITION_TOLERANCE
    assert rotation_angle(reached[:, :3, :3], targets[:, :3, :3]).max() < ANGLE_TOLERANCE


def test_the_samples_cover_the_joint_ranges(setup) -> None:
    # Not a handful of easy poses: every joint spans most of its range, the tool points both
    # above and below the horizontal.
    config, _, joints, targets = setup
    assert joints.shape == (N_POSES, len(config.joint_names))
    lower, upper = np.array(config.joint_limits).T
    assert ((joints.max(axis=0) - joints.min(axis=0)) / (upper - lower)).min() > 0.7
    pitches = outward_pitch(targets)
    assert (pitches > 0.3).any()
    assert (pitches < -0.3).any()
