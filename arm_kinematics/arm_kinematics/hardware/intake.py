"""`joint_commands` into the servos' targets, without ROS: the command intake.

A command is matched by joint name and checked whole (`ServoMap.command`: every joint of the
arm, with or without the gripper's, or the gripper's alone; limits, travel, NaN): an invalid
one raises InvalidCommandError and counts as rejected. A valid one is refused while no motion
may start (a hardware fault, calibration mode, the shutdown: MotionBlockedError, counted as
refused). Otherwise the driver's targets take it and its first step runs at once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

from arm_kinematics.hardware.driver import MotionBlockedError, ServoDriver, degrees_words
from arm_kinematics.hardware.mapping import InvalidCommandError


class CommandIntake:
    """Commands to one driver, the counters, and when the last one was accepted."""

    def __init__(
        self, driver: ServoDriver, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._driver = driver
        self._monotonic = monotonic
        self.last_command_s = -math.inf  # monotonic: the last accepted command

    def take(self, names: Sequence[str], positions: Sequence[float], now_s: float) -> bool:
        """Check a command and send the driver toward it (node clock `now_s`, s); whether it
        sets the gripper's joint. InvalidCommandError (nothing moves) or MotionBlockedError
        (a valid command refused now), each naming why."""
        driver = self._driver
        try:
            targets = driver.servo_map.command(list(names), list(positions), tuple(driver.targets))
        except InvalidCommandError:
            driver.counters.commands_rejected += 1
            raise
        if driver.closed:
            raise MotionBlockedError("the hardware node is shutting down")
        if driver.fault.active:
            driver.counters.commands_refused += 1
            raise MotionBlockedError(
                f"hardware fault ({driver.fault.last_error}); the servos hold "
                f"{degrees_words(driver.positions)} deg until the bus recovers"
            )
        if driver.calibration is not None:
            driver.counters.commands_refused += 1
            raise MotionBlockedError(
                "calibration mode is on (calibration/leave ends it); no servo moved"
            )
        self.last_command_s = self._monotonic()
        sets_gripper = driver.servo_map.gripper_name in names
        driver.set_targets(targets, sets_gripper, now_s)
        driver.counters.commands_accepted += 1
        return sets_gripper

    def quiet_for(self) -> float:
        """Seconds since the last accepted command (monotonic)."""
        return self._monotonic() - self.last_command_s
