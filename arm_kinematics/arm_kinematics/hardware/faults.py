"""The hardware node's fault state without ROS: when the bus failed, the last error, and when to
try again (exponential back-off), and the counters /diagnostics reports.

An I2C error (OSError) puts the node in the fault state: the arm stops where it was last
written, commands are refused, and retries run on the tick, first after RETRY_INITIAL_S, each
failed one doubling the wait up to RETRY_MAX_S. A successful retry (the board re-initialised
and the last positions written again: `driver.ServoDriver.try_recover`) ends it. Times are
monotonic seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

RETRY_INITIAL_S = 0.1
RETRY_MAX_S = 2.0


@dataclass
class HardwareCounters:
    """What /diagnostics reports; every field counts since start-up."""

    commands_accepted: int = 0
    commands_rejected: int = 0  # invalid commands
    commands_refused: int = 0  # valid commands refused because of a fault or calibration mode
    write_errors: int = 0  # failed bus transactions (writes, re-initialisations, checks)
    retries: int = 0
    recoveries: int = 0


@dataclass
class FaultState:
    """Whether the bus is faulted, since when, why, and when the next retry is due.

    >>> fault = FaultState()
    >>> fault.enter(OSError(121, "Remote I/O error"), now_s=10.0), fault.retry_at_s
    (True, 10.1)
    >>> fault.retry_failed(OSError(121, "Remote I/O error"), now_s=10.1), round(fault.retry_at_s, 9)
    (0.2, 10.3)
    >>> fault.due(10.2), fault.due(10.3), round(fault.clear(now_s=11.0), 6), fault.active
    (False, True, 1.0, False)
    """

    since_s: float | None = None
    retry_at_s: float = 0.0
    delay_s: float = RETRY_INITIAL_S
    last_error: str = ""

    @property
    def active(self) -> bool:
        return self.since_s is not None

    def enter(self, error: OSError, now_s: float) -> bool:
        """A bus error now: the next retry after the current delay. True when the fault began
        now (it was not faulted before)."""
        self.last_error = str(error)
        began = self.since_s is None
        if began:
            self.since_s = now_s
            self.delay_s = RETRY_INITIAL_S
        self.retry_at_s = now_s + self.delay_s
        return began

    def due(self, now_s: float) -> bool:
        """Whether a retry is due."""
        return self.active and now_s >= self.retry_at_s

    def retry_now(self, now_s: float) -> None:
        """The next tick retries (the simulated bus healed)."""
        self.retry_at_s = now_s

    def retry_failed(self, error: OSError, now_s: float) -> float:
        """A retry failed: twice the wait (at most RETRY_MAX_S); that wait, s."""
        self.last_error = str(error)
        self.delay_s = min(2.0 * self.delay_s, RETRY_MAX_S)
        self.retry_at_s = now_s + self.delay_s
        return self.delay_s

    def clear(self, now_s: float) -> float:
        """The bus works again: how long the fault lasted, s."""
        assert self.since_s is not None
        duration = now_s - self.since_s
        self.since_s = None
        return duration
