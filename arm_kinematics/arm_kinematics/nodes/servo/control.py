"""Jog commands in, one jog at a time out, through the trajectory node's one rule of who moves.

No rclpy here: the node hands in its `Admission`, how to get the start pose, how to publish a
setpoint and how to say a status. A jog is a motion like a goal:

- **It starts** with the first command that asks for motion (a zero command never starts one)
  while no jog runs: `Admission.admit` makes it the active motion, so it preempts a running
  MoveArm goal, clicked point, joint trajectory or FollowJointTrajectory goal (which ends
  PREEMPTED, "preempted by a newer jog"), and it waits until that motion has given up the arm.
- **It runs** one `Jogger` step per command period from the latest joint_states, on its own
  thread: the latest command, as long as it is at most `incoming_command_timeout` old, else
  none (the arm decelerates to rest). Commands between two steps: the latest wins.
- **It ends** at rest once no command asks for motion, or once it was stopped (a newer goal, the
  stop service, calibration mode, the shutdown: `GoalRun.stop`), decelerating to rest first.
- **Who wins** is the newest start: a goal sent while a jog runs stops the jog (smoothly). A jog
  stopped by anything but its own commands does not start again from the same stream of
  commands: they are ignored (INVALID, said once) until the stream is let go (no command for
  RELEASE_S) or asks for rest (a zero command). A stick held while a goal is sent does not
  take the arm back 20 ms later; let go and push again to jog. The same holds for a stream
  that comes back after a gap (the arm braked at the command timeout) to find another motion
  started meanwhile.

Statuses (MoveIt Servo's codes, `kinematics/jog/status.py`) are said when they change, at most
every STATUS_INTERVAL_S (the newest waits), what a command asks that the arm cannot make once
per change of it. Seconds are monotonic.
"""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from arm_kinematics.kinematics import Envelope, PlanarArm, SpatialArm
from arm_kinematics.kinematics.jog import (
    JogCode,
    JogCommand,
    Jogger,
    JogLimits,
    JogStep,
    TwistCommand,
)
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.servo.settings import ServoSettings
from arm_kinematics.nodes.trajectory.goals import Admission, GoalRun, format_joints

STATUS_INTERVAL_S = 0.2
"""The shortest time between two statuses of one jog: a status that changes faster (the arm
creeping along the edge of a limit) is said at most 5 times a second, the newest."""
PAUSED = "paused (servo_node/pause_servo): send false to jog again"
RELEASE_S = 0.5
"""s without a command (or a zero command) that end a stream of commands: the controls were
let go. A stream that comes back sooner is the same stream: it goes on jogging when nothing
else moves the arm, and never takes the arm from a motion started meanwhile (a loaded machine
or a network may delay a stream beyond the command timeout, which only brakes)."""


class Logger(Protocol):
    def info(self, message: str) -> object: ...
    def warning(self, message: str) -> object: ...
    def error(self, message: str) -> object: ...


@dataclass(frozen=True)
class JogMove:
    """What Admission holds for a jog: the kind of command that started it."""

    kind: str  # "twist" or "joint jog"


class Received(NamedTuple):
    """The latest command and when it came (monotonic s)."""

    command: JogCommand
    at: float


class StatusLatch:
    """Says a status (code, words) when it changes, at most every `interval` s unless forced
    (the newest waits for `flush`); a note (what was dropped) goes with the next one said."""

    def __init__(self, say: Callable[[int, str], None], interval: float, clock) -> None:
        self._say = say
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._said: tuple[int, str] | None = None
        self._pending: tuple[int, str] | None = None
        self._note = ""
        self._at = -math.inf

    def update(self, code: int, words: str, note: str = "", force: bool = False) -> None:
        with self._lock:
            if note:
                self._note = note
            if (code, words) == self._said and not self._note:
                self._pending = None
                return
            self._pending = (code, words)
        self.flush(force)

    def flush(self, force: bool = False) -> None:
        """Say the waiting status once its time has come (at once when `force`)."""
        with self._lock:
            now = self._clock()
            if self._pending is None or (not force and now - self._at < self._interval):
                return
            code, words = self._pending
            message = f"{words}; dropped: {self._note}" if self._note else words
            self._said, self._pending, self._note, self._at = self._pending, None, "", now
        self._say(code, message)


class JogControl:
    """The jog's commands and its runs (module docstring). `start_pose(wake)` waits for the
    joints a motion starts from (the node's one rule: the last setpoint any motion sent when
    joint_states agree with it, else joint_states; None: none in time, or `wake` set);
    `publish(joints)` sends one setpoint; `say(code, message)` publishes a status."""

    def __init__(
        self,
        arm: PlanarArm | SpatialArm,
        limits: JogLimits,
        envelope: Envelope | None,
        settings: ServoSettings,
        admission: Admission,
        start_pose: Callable[[threading.Event], tuple[float, ...] | None],
        publish: Callable[[Sequence[float]], object],
        say: Callable[[int, str], None],
        log: Logger,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.arm, self.limits, self.envelope = arm, limits, envelope
        self.timeout = settings.incoming_command_timeout
        self._admission = admission
        self._start_pose = start_pose
        self._publish = publish
        self._log = log
        self._clock = clock
        self._status = StatusLatch(say, STATUS_INTERVAL_S, clock)
        self._lock = threading.Lock()
        self._latest: Received | None = None
        self._run: GoalRun | None = None
        self._thread: threading.Thread | None = None
        self._locked: str | None = None  # why commands are ignored until they are let go
        self._paused = False
        self._dropped: tuple[str, ...] = ()  # what the stream's commands lose, said once

    # --- commands in (the executor's threads) ----------------------------------------------

    def put(self, command: JogCommand) -> None:
        """A command came: the latest one now, and the start of a jog if none runs."""
        kind = "twist" if isinstance(command, TwistCommand) else "joint jog"
        with self._lock:
            now = self._clock()
            previous, self._latest = self._latest, Received(command, now)
            released = previous is None or previous.command.is_zero
            if released or now - previous.at >= RELEASE_S:
                self._locked = None  # a new stream: the controls were let go
                self._dropped = ()
            elif self._locked is None and self._run is None and self._other_motion():
                # The same stream, back after a gap in which another motion took the arm.
                self._locked = self._ignore_until_released("another motion holds the arm")
            ignored = PAUSED if self._paused else self._locked
            if ignored is not None or command.is_zero or self._run is not None:
                start = None
            else:
                start = self._admission.admit(uuid.uuid4().bytes, JogMove(kind), "jog")
                if start.stop_status is None:
                    self._run = start
        if ignored is not None and not command.is_zero:
            self._invalid(f"jog commands ignored: {ignored}")
        elif start is not None and start.stop_status is not None:  # calibration, shutdown
            self._admission.finish(start)
            self._invalid(f"jog refused: {start.stop_reason}")
        elif start is not None:
            thread = threading.Thread(target=self._jog, args=(start, kind), daemon=True)
            self._thread = thread
            thread.start()

    def refuse(self, refusal: Refusal) -> None:
        """A command that could not be read: said (INVALID), and not a command."""
        self._invalid(f"jog command refused: {refusal}")

    def set_paused(self, paused: bool) -> None:
        """Pause (the running jog decelerates to rest, commands are ignored) or go on."""
        with self._lock:
            self._paused = paused
        if paused:
            self._status.update(JogCode.NO_WARNING, PAUSED, force=True)

    @property
    def running(self) -> bool:
        with self._lock:
            return self._run is not None

    def join(self, timeout: float) -> None:
        """Wait up to `timeout` s for the running jog's thread (after its run was stopped)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _invalid(self, words: str) -> None:
        self._status.update(JogCode.INVALID, words, force=True)

    # --- one jog (its own thread) -------------------------------------------------------------

    def _jog(self, run: GoalRun, kind: str) -> None:
        stopped_by = None
        try:
            if not self._admission.take_motion(run):
                stopped_by = run.stop_reason
                return
            try:
                stopped_by = self._stream(run, kind)
            finally:
                self._admission.release_motion()
        except Exception as error:  # never leave the motion held or the thread dead silent
            self._log.error(f"jog failed unexpectedly: {error!r}")
            stopped_by = f"it failed unexpectedly ({error!r})"
        finally:
            self._admission.finish(run)
            with self._lock:
                if self._run is run:
                    self._end(run, stopped_by)
            self._status.flush(force=True)

    def _end(self, run: GoalRun, stopped_by: str | None) -> None:
        """`run` is over (under the lock): the next command may start a jog, unless another
        motion stopped this one, when its stream is ignored until it is let go."""
        self._run = None
        if stopped_by is not None:
            self._locked = self._ignore_until_released(f"the jog was stopped ({stopped_by})")

    @staticmethod
    def _ignore_until_released(why: str) -> str:
        return f"{why}; stop sending for {RELEASE_S:g} s (or send a zero command) to jog again"

    def _other_motion(self) -> bool:
        """Whether a motion other than a jog holds (or is about to hold) the arm."""
        active = self._admission.active
        return active is not None and not isinstance(active.move, JogMove)

    def _stream(self, run: GoalRun, kind: str) -> str | None:
        """Step the jog until it ends; the reason it was stopped by another, else None."""
        start = self._start(run)
        if start is None:
            self._invalid("jog refused: no joint_states, so no pose to start from")
            return run.stop_reason if run.stop_status is not None else None
        jogger = Jogger(self.arm, self.limits, start, self.envelope)
        self._log.info(f"jog started ({kind}) at {format_joints(jogger.joints)}")
        period = self.limits.period
        tick = self._clock()
        while True:
            command, why = self._command(run)
            step = jogger.step(command)
            self._publish(step.joints)
            self._report(step, command, why, self._note(step.dropped))
            if not step.moving and self._ended(run):
                break
            tick += period
            delay = tick - self._clock()
            if delay > 0.0:
                time.sleep(delay)
            elif delay < -period:
                tick = self._clock()  # late by more than a period: never a burst of steps
        reason = run.stop_reason if run.stop_status is not None else None
        self._log.info(f"jog ended at {format_joints(jogger.joints)}: {why}")
        self._status.update(JogCode.NO_WARNING, f"at rest: {why}")
        return reason

    def _start(self, run: GoalRun) -> tuple[float, ...] | None:
        """Where a jog starts: the node's start pose (class docstring)."""
        return self._start_pose(run.wake)

    def _note(self, dropped: tuple[str, ...]) -> str:
        """What a step dropped, in words, when the stream's dropped parts changed (else "")."""
        with self._lock:
            if dropped == self._dropped:
                return ""
            self._dropped = dropped
        return ", ".join(dropped)

    def _command(self, run: GoalRun) -> tuple[JogCommand | None, str]:
        """The command of this period, or None and why there is none."""
        with self._lock:
            if run.stop_status is not None:
                return None, run.stop_reason
            if self._paused:
                return None, PAUSED
            latest = self._latest
            if latest is None or self._clock() - latest.at > self.timeout:
                return None, f"no command for {self.timeout:g} s"
            if latest.command.is_zero:
                return None, "a zero command"
            return latest.command, ""

    def _ended(self, run: GoalRun) -> bool:
        """At rest: the jog ends unless a command asks for motion (decided under the lock, so
        that a command coming now starts the next jog)."""
        with self._lock:
            latest = self._latest
            fresh = latest is not None and self._clock() - latest.at <= self.timeout
            if run.stop_status is None and not self._paused and fresh:
                assert latest is not None
                if not latest.command.is_zero:
                    return False
            if self._run is run:
                self._end(run, run.stop_reason if run.stop_status is not None else None)
            return True

    def _report(self, step: JogStep, command: JogCommand | None, why: str, note: str) -> None:
        if step.limit is not None:
            self._status.update(step.code, step.words, note)
        elif command is None:
            words = f"stopping: {why}" if step.moving else f"at rest: {why}"
            self._status.update(JogCode.NO_WARNING, words, note)
        else:
            self._status.update(step.code, "jogging", note)
        self._status.flush()
