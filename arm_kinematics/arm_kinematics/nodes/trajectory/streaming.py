"""The setpoint stream: one setpoint per command period, the hardware watchdog, arrival.

No rclpy here: the node hands in how to publish a setpoint and its feedback, and feeds
`JointStateMonitor` from its joint_states subscription. Units: radians, seconds (monotonic).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol

from arm_kinematics.kinematics import Setpoints, Stop, stop_setpoints
from arm_kinematics.nodes.trajectory.goals import (
    POLL_S,
    GoalRun,
    Outcome,
    Result,
    format_joints,
)

#: Feedback goes out with the first setpoint, then at most every FEEDBACK_PERIOD_S, and with
#: the last: enough for a progress display, without a client callback per setpoint.
FEEDBACK_PERIOD_S = 0.1


class JointSample(NamedTuple):
    """One joint_states message: when it came (monotonic s), the positions (rad) and the
    velocities (rad/s) from the difference to the message before (zeros for the first): hobby
    servos report no velocity."""

    received_at: float
    positions: tuple[float, ...]
    velocities: tuple[float, ...]


class JointStateMonitor:
    """The latest joint positions (radians) and when they came (monotonic seconds)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._sample: JointSample | None = None
        self._stamp: float | None = None  # the latest message's header stamp (s), if it had one

    def update(self, joints: tuple[float, ...], stamp: float | None = None) -> None:
        """A new joint_states message: `joints` (rad) and its header stamp (s; None or 0: not
        stamped), which times the velocity when both messages have one (else their arrival)."""
        now = time.monotonic()
        stamp = stamp or None
        with self._changed:
            previous, velocities = self._sample, (0.0,) * len(joints)
            if previous is not None and len(previous.positions) == len(joints):
                if stamp is not None and self._stamp is not None:
                    dt = stamp - self._stamp
                else:
                    dt = now - previous.received_at
                velocities = previous.velocities
                if dt > 0.0:
                    velocities = tuple(
                        (q - p) / dt for q, p in zip(joints, previous.positions, strict=True)
                    )
            self._sample = JointSample(now, joints, velocities)
            self._stamp = stamp
            self._changed.notify_all()

    def sample(self) -> JointSample | None:
        """The latest message with its velocities, None before the first."""
        with self._changed:
            return self._sample

    def latest(self) -> tuple[float, ...] | None:
        with self._changed:
            return None if self._sample is None else self._sample.positions

    def age(self) -> float:
        """Seconds since the latest joint_states (inf before the first)."""
        with self._changed:
            sample = self._sample
            return math.inf if sample is None else time.monotonic() - sample.received_at

    def wait_fresh(self, max_age: float, wake: threading.Event) -> tuple[float, ...] | None:
        """Joints at most `max_age` s old: the latest, else the next within `max_age` s; None
        when none comes in time or `wake` is set."""
        deadline = time.monotonic() + max_age
        while True:
            with self._changed:
                sample = self._sample
                if sample is not None and time.monotonic() - sample.received_at <= max_age:
                    return sample.positions
                self._changed.wait(timeout=min(POLL_S, max(0.0, deadline - time.monotonic())))
            if wake.is_set() or time.monotonic() >= deadline:
                return None

    def wait_still(self, timeout: float) -> tuple[float, ...] | None:
        """The positions of the first joint_states (the latest one included) that show the arm
        at rest (the same positions as the message before), within `timeout` s; None if it is
        not at rest by then."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                sample = self._sample
                if sample is not None and not any(sample.velocities):
                    return sample.positions
                remaining = deadline - time.monotonic()
                if remaining <= 0.0:
                    return None
                self._changed.wait(remaining)

    def wait_near(
        self, goal: Sequence[float], tolerance: float, timeout: float, wake: threading.Event
    ) -> bool:
        """Wait until every joint is within `tolerance` rad of `goal`; False on timeout or
        when `wake` is set."""
        deadline = time.monotonic() + timeout
        while True:
            with self._changed:
                sample = self._sample
                if sample is not None:
                    error = max(abs(a - b) for a, b in zip(sample.positions, goal, strict=True))
                    if error <= tolerance:
                        return True
                self._changed.wait(timeout=POLL_S)
            if wake.is_set() or time.monotonic() >= deadline:
                return False


class StreamWatch(Protocol):
    """What a goal with its own checks adds to a stream (a FollowJointTrajectory goal: its path
    and goal tolerances, feedback at every setpoint). `started` is the monotonic time the
    stream's schedule counts from: setpoint k goes out at `started + k * period`."""

    def check(self, run: GoalRun, started: float) -> Outcome | None:
        """Before each setpoint: an Outcome that ends the stream there, else None."""
        ...

    def arrival(self, run: GoalRun, last: tuple[float, ...], count: int, started: float) -> Outcome:
        """After the last of `count` setpoints (`last`, rad): how the goal ends."""
        ...


@dataclass(frozen=True)
class StreamSettings:
    """`period` between setpoints (s); `watchdog_s`: joint_states older than this during the
    move, or the arm not at the last setpoint this long after it, is a HARDWARE_FAULT;
    `goal_tolerance` (rad) how close "at the last setpoint" is."""

    period: float
    watchdog_s: float
    goal_tolerance: float


class SetpointStream:
    """Streams a goal's setpoints, then waits until joint_states reach the last one.

    `publish(joints)` sends one setpoint and returns what `feedback(run, step, count, joints,
    sent)` may reuse (the message); `describe(joints)` says where the tool is at joints (rad);
    `on_first(run, setpoints, start, total_steps)` runs once the first setpoint is out.
    """

    def __init__(
        self,
        settings: StreamSettings,
        monitor: JointStateMonitor,
        publish: Callable[[Sequence[float]], object],
        feedback: Callable[[GoalRun, int, int, tuple[float, ...], object], None],
        describe: Callable[[Sequence[float]], str],
        on_first: Callable[[GoalRun, Setpoints, tuple[float, ...], int], None] | None = None,
    ) -> None:
        self.settings = settings
        self._monitor = monitor
        self._publish = publish
        self._feedback = feedback
        self._describe = describe
        self._on_first = on_first

    def run(
        self,
        run: GoalRun,
        setpoints: Setpoints,
        start: tuple[float, ...],
        total_steps: int,
        watch: StreamWatch | None = None,
    ) -> Outcome:
        """Stream `setpoints` from `start`; the goal's outcome, with the plan's `total_steps`
        and how many of its setpoints were sent, however it ended. A `watch` checks before
        each setpoint and decides how the goal ends after the last one."""
        outcome, sent = self._stream(run, setpoints, start, total_steps, watch)
        return replace(
            outcome,
            total_steps=total_steps,
            feasible_fraction=1.0,  # the whole plan was feasible, whatever stopped it
            sent_setpoints=sent,
            total_setpoints=len(setpoints),
        )

    def _stream(
        self,
        run: GoalRun,
        setpoints: Setpoints,
        start: tuple[float, ...],
        total_steps: int,
        watch: StreamWatch | None,
    ) -> tuple[Outcome, int]:
        """`run`'s streaming: its outcome and the number of its setpoints sent. A stop (a
        cancel, a preemption, the shutdown) goes on with the setpoints of a stop along the
        path (`stop_setpoints`); a silent hardware stops at once."""
        period = self.settings.period
        publish_times = run.timing.publish_times
        count = len(setpoints)
        joints = setpoints.joints.tolist()
        last = start
        started = time.monotonic()
        next_feedback_at = started
        stopping: Stop | None = None
        k = 0
        while k < len(joints):
            tick = started + k * period
            delay = tick - time.monotonic()
            if delay > 0 and stopping is None:
                run.wake.wait(delay)
            elif delay > 0:
                time.sleep(delay)  # a stop is not interrupted
            elif delay < -period:
                # More than a period late (a loaded machine): shift the schedule rather than
                # bursting the missed setpoints, which would command joints beyond their limits.
                started -= delay
            fault = self._fault(last)
            if fault is not None:
                return replace(fault, commanded=last), min(k, count)
            if stopping is None and run.stop_status is not None:
                stopping = stop_setpoints(setpoints, k)
                joints = joints[:k] + stopping.joints.tolist()
                if k >= len(joints):
                    break
            if stopping is None and watch is not None:
                interrupted = watch.check(run, started)
                if interrupted is not None:
                    return replace(interrupted, commanded=last), k
            sent = self._publish(joints[k])
            publish_times.append(time.monotonic())
            if k == 0:
                run.timing.first_setpoint_at = publish_times[0]
                if self._on_first is not None:  # after, not before, the first setpoint
                    self._on_first(run, setpoints, start, total_steps)
            last = tuple(joints[k])
            now = publish_times[-1]
            if stopping is None and (now >= next_feedback_at or k == count - 1):
                next_feedback_at = now + FEEDBACK_PERIOD_S
                self._feedback(run, k + 1, count, last, sent)
            k += 1
        if stopping is not None:
            return self._stopped(run, stopping, last), len(joints) - len(stopping.joints)
        if watch is not None:
            return replace(watch.arrival(run, last, count, started), commanded=last), count
        return replace(self._arrival(run, last, count, started), commanded=last), count

    def _stopped(self, run: GoalRun, stop: Stop, last: tuple[float, ...]) -> Outcome:
        """The outcome of a stopped stream, saying how it stopped and where the tool is."""
        how = stop.how if len(stop.joints) == 0 else f"{stop.how} to {self._describe(last)}"
        outcome = run.stopped(last, how)
        assert outcome is not None
        return replace(outcome, commanded=last)

    def _fault(self, last: tuple[float, ...]) -> Outcome | None:
        """HARDWARE_FAULT when joint_states have been silent for the watchdog's time: the
        stream stops at once (no deceleration: the hardware does not answer), else None."""
        watchdog = self.settings.watchdog_s
        if self._monitor.age() > watchdog:
            return Outcome(
                Result.HARDWARE_FAULT,
                f"joint_states stopped for {watchdog:g} s during the move: streaming stopped at "
                "once (no deceleration: the hardware does not answer) at the last commanded "
                "point",
                final=last,
            )
        return None

    def _arrival(
        self, run: GoalRun, last: tuple[float, ...], count: int, started: float
    ) -> Outcome:
        """After the last of `count` setpoints (`last`, rad): SUCCEEDED once joint_states
        are there, else how it ended (stopped meanwhile, or the arm never came)."""
        watchdog = self.settings.watchdog_s
        if not self._monitor.wait_near(last, self.settings.goal_tolerance, watchdog, run.wake):
            stopped = run.stopped(last)
            if stopped is not None:
                return stopped
            state = self._monitor.latest()
            measured = "none" if state is None else format_joints(state)
            return Outcome(
                Result.HARDWARE_FAULT,
                f"the arm did not reach the last setpoint {format_joints(last)} within "
                f"{watchdog:g} s (joint_states: {measured}): is the hardware node refusing "
                "commands?",
                final=last,
            )
        return Outcome(
            Result.SUCCEEDED,
            f"reached {self._describe(last)} in {count} setpoints "
            f"({time.monotonic() - started:.2f} s)",
            final=last,
        )
