"""The hardware node's `/diagnostics` status: backend, fault state, counters, last error and
every joint's position, as one diagnostic_msgs/DiagnosticStatus."""

from __future__ import annotations

import math
from dataclasses import fields

from diagnostic_msgs.msg import DiagnosticStatus, KeyValue

from arm_kinematics.hardware.driver import ServoDriver


def servo_status(name: str, driver: ServoDriver, now_s: float) -> DiagnosticStatus:
    """The status named `name` (the node's fully qualified name + ": servos") of `driver` at
    monotonic `now_s` (s): ERROR while faulted (since when, why), else OK."""
    fault = driver.fault
    backend = driver.backend
    status = DiagnosticStatus()
    status.name = name
    status.hardware_id = backend.hardware_id
    if fault.since_s is not None:
        status.level = DiagnosticStatus.ERROR
        status.message = (
            f"hardware fault for {now_s - fault.since_s:.1f} s: {fault.last_error}; "
            "commands refused, retrying"
        )
    else:
        status.level = DiagnosticStatus.OK
        status.message = f"{len(driver.servo_map.names)} servos driven by {backend.name}"
    counters = driver.counters
    values = {
        "backend": backend.name,
        "fault": str(fault.active).lower(),
        **{f.name: str(getattr(counters, f.name)) for f in fields(counters)},
        "last_error": fault.last_error,
    }
    for joint, position in zip(driver.servo_map.names, driver.reported(), strict=True):
        values[f"{joint}_position_deg"] = f"{math.degrees(position):.2f}"
    status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
    return status
