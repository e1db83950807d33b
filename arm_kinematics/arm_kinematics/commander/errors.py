"""How the commander says that a verb could not do what it was asked: one small hierarchy.

Everything the commander raises on purpose is a `CommanderError`; a script that wants to go on
after any of them catches that. An answer is not an error: a solve that finds no solution
(TOO_FAR) or a move that ends IK_FAILED comes back as data, with its status name, exactly as
the node answered (`answers.py`).

- `ServerUnavailableError`: no server (or no answer) within the timeout: the node is not running,
  runs in another namespace or ROS_DOMAIN_ID, or is busy starting;
- `TaskRefusedError`: a task was not started: the server rejected the goal, or
  `TaskRunningError` (this commander still runs a task), or `NoGripperError` (the arm has none);
- `RequestRefusedError`: the node said no to a request that changes something (a named pose
  that cannot be saved: a bad name, a name taken, the arm moving), in its words;
- `InvalidArgumentError` (a ValueError too): an argument the commander cannot send, named with
  what to give instead; nothing was sent;
- `TaskTimeoutError` (a TimeoutError too): the task did not end within the time given; it goes
  on (cancel it with `cancel_task()`).
"""

from __future__ import annotations


class CommanderError(Exception):
    """Any error the commander raises on purpose."""


class ServerUnavailableError(CommanderError):
    """No server, node or answer within the timeout; nothing was started."""


class TaskRefusedError(CommanderError):
    """The task was not started: the server rejected its goal (its log says why)."""


class TaskRunningError(TaskRefusedError):
    """A verb that starts a task was called while this commander's task still runs."""


class NoGripperError(TaskRefusedError):
    """A gripper verb on an arm without a gripper (its hardware_node's gripper.joint is empty)."""


class RequestRefusedError(CommanderError):
    """The node refused the request (a named pose's save or delete); its words say why."""


class InvalidArgumentError(CommanderError, ValueError):
    """An argument the commander cannot turn into a request; nothing was sent."""


class TaskTimeoutError(CommanderError, TimeoutError):
    """The task did not end within the time given; it is still running."""
