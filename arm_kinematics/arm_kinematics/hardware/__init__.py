"""Servo hardware behind one small interface: `ServoBackend` with a `sim` and a `servokit` backend,
and the joint <-> servo mapping. No ROS import here; the hardware node adapts it to topics.
"""

from __future__ import annotations

from arm_kinematics.config import ArmConfig
from arm_kinematics.hardware.backend import BackendUnavailableError, ServoBackend
from arm_kinematics.hardware.mapping import (
    InvalidCommandError,
    JointServo,
    ServoMap,
    ramp_toward,
    slew_toward,
)
from arm_kinematics.hardware.servokit import ServoKitBackend
from arm_kinematics.hardware.sim import SimBackend

__all__ = [
    "BackendUnavailableError",
    "InvalidCommandError",
    "JointServo",
    "ServoBackend",
    "ServoKitBackend",
    "ServoMap",
    "SimBackend",
    "make_backend",
    "ramp_toward",
    "slew_toward",
]


def make_backend(config: ArmConfig) -> ServoBackend:
    """The backend named by `hardware.backend`; BackendUnavailableError if its board cannot open.

    Never falls back to the simulation: a missing board is an error the user must see.
    """
    servos = [joint.servo for joint in config.driven_joints]  # the gripper's servo too
    if config.hardware.backend == "servokit":
        return ServoKitBackend.open(servos, config.hardware)
    if config.hardware.backend == "sim":
        return SimBackend(servos)
    raise BackendUnavailableError(f"unknown hardware.backend {config.hardware.backend!r}")
