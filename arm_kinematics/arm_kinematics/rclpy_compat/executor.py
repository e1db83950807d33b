"""The multi-threaded executor every node process (and the in-process test graphs) spins.

Upstream: ros2/rclpy#1452, fixed by ros2/rclpy#1547 (merged into rolling in November 2025).
For: rclpy 7.1.x (Jazzy). No Jazzy release up to 7.1.9 lists the fix in its changelog, so the
first 7.1.x with it is not known yet: check the changelog, then set FIXED_IN below.

Why not rclpy's own: in rclpy 7.1 (ROS 2 Jazzy), `MultiThreadedExecutor` hands every ready
callback to its thread pool at once. While all workers are busy (a running MoveArm goal keeps
one for the whole move), a handed-over callback waits in the pool's queue; the executor's wait
loop sees it as "not started" and hands it over again, and again, without blocking. That spin
holds the GIL, the pool's queue grows by thousands, and callbacks start up to a second late
(ros2/rclpy#1452; fixed upstream by ros2/rclpy#1547, which is not in the Jazzy wheels).

`WorkerBoundExecutor` asks for work only when a worker is free, so nothing queues in the pool,
and waits until that worker has started the callback before it asks again, so nothing is
handed over twice. Everything else (wait sets, callback groups, tasks, futures) is rclpy's.
bench/bench_executor.py measures both on the same load.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable

from rclpy.context import Context
from rclpy.executors import (
    ConditionReachedException,
    ExternalShutdownException,
    MultiThreadedExecutor,
    ShutdownException,
    TimeoutException,
    TimeoutObject,
)
from rclpy.task import Task

from arm_kinematics.rclpy_compat import warn_if_fixed

#: First rclpy release of each major line with ros2/rclpy#1547 (None: none known yet).
FIXED_IN: dict[int, tuple[int, ...] | None] = {7: None}
warn_if_fixed(
    "arm_kinematics.rclpy_compat.executor.WorkerBoundExecutor", "ros2/rclpy#1547", FIXED_IN
)

DEFAULT_THREADS = 5
"""Workers: a running MoveArm goal holds one, a preempting goal a second, a gripper goal a third
(the hardware node's); two serve everything else."""

_POLL_S = 0.1  # longest blind wait for a free worker, so that shutdown is noticed
_PRUNE_AT = 64  # created tasks remembered before the finished ones are dropped


class WorkerBoundExecutor(MultiThreadedExecutor):
    """A MultiThreadedExecutor that takes a ready callback only when a worker can start it.

    Callback groups keep their meaning: a callback that must wait for another one (a goal
    waiting for a service response) needs a worker free for the other one, as with rclpy's
    executor; `num_threads` must cover the callbacks that block at the same time.
    """

    def __init__(self, num_threads: int = DEFAULT_THREADS, *, context: Context | None = None):
        super().__init__(max(num_threads, 2), context=context)
        if num_threads < 2:
            raise ValueError(f"num_threads must be at least 2, got {num_threads}")
        self._free_workers = threading.BoundedSemaphore(num_threads)
        self._in_worker: set[Task] = set()  # handed to a worker, not returned yet
        self._in_worker_changed = threading.Condition()
        self._stopping = threading.Event()
        self._shut_down = threading.Event()
        self._created_lock = threading.Lock()
        self._created: list[Task] = []  # from create_task, maybe not done yet

    def create_task(self, callback, *args, **kwargs) -> Task:
        """rclpy's create_task, remembered until done so that `pending_tasks` can tell.

        Work that a callback hands on runs as such a task: an action server's result
        response, a future's done callbacks, a goal's execute callback. Shutdown waits for
        them (`run_nodes`), or a result computed while a node closes would never be sent.
        """
        task = super().create_task(callback, *args, **kwargs)
        with self._created_lock:
            if len(self._created) >= _PRUNE_AT:
                self._created = [t for t in self._created if not t.done()]
            self._created.append(task)
        return task

    def pending_tasks(self) -> int:
        """How many tasks made by `create_task` have not finished (or been canceled)."""
        with self._created_lock:
            self._created = [t for t in self._created if not t.done()]
            return len(self._created)

    def shutdown(self, timeout_sec: float | None = None) -> bool:
        """Stop taking work, wait up to `timeout_sec` for the callbacks running, then shut down.

        rclpy 7.1's shutdown marks itself shut down before it checks whether to wait, so it
        never waits, and a callback still running then trips over the destroyed guard condition
        ("exception was never retrieved: cannot use Destroyable"). Here the running callbacks
        finish first; True if they all did within the timeout.
        """
        self._stopping.set()
        self.wake()  # a spin waiting in its wait set returns and sees _stopping
        all_finished = self._wait_until_idle(timeout_sec)
        super().shutdown(timeout_sec=0)
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._shut_down.set()
        return all_finished

    def _wait_until_idle(self, timeout_sec: float | None) -> bool:
        """Wait until no callback runs (a spinner waiting for work holds no callback)."""
        forever = timeout_sec is None or timeout_sec < 0
        with self._in_worker_changed:
            return self._in_worker_changed.wait_for(
                lambda: not self._in_worker, None if forever else timeout_sec
            )

    def _spin_once_impl(
        self,
        timeout_sec: float | TimeoutObject | None = None,
        wait_condition: Callable[[], bool] = lambda: False,
    ) -> None:
        if self._take_free_worker(timeout_sec, wait_condition):
            handed_over = False
            try:
                handed_over = self._hand_over_one(timeout_sec, wait_condition)
            finally:
                if not handed_over:  # the worker taken stays free
                    self._free_workers.release()
        # A callback's exception is raised here, in the spinning thread, as rclpy does; on
        # every pass, not only on one that found work.
        for future in self._futures[:]:
            if future.done():
                self._futures.remove(future)
                future.result()

    def _hand_over_one(
        self, timeout_sec: float | TimeoutObject | None, wait_condition: Callable[[], bool]
    ) -> bool:
        """Wait for a ready callback and start it on the free worker this thread holds.

        False when nothing was started: timeout, shutdown, or a callback already in a worker.
        """
        try:
            handler, _entity, _node = self.wait_for_ready_callbacks(
                timeout_sec, None, wait_condition
            )
        except (
            ExternalShutdownException,
            ShutdownException,
            TimeoutException,
            ConditionReachedException,
        ):
            return False
        with self._in_worker_changed:
            if handler in self._in_worker:
                return False  # yielded again in the instant before its worker marked it executing
            if self._stopping.is_set():
                # Shutting down: nothing new starts. Close the callback's coroutine, or Python
                # warns at exit that it was never awaited.
                handler.cancel()
                if inspect.iscoroutine(handler._handler):
                    handler._handler.close()
                return False
            self._in_worker.add(handler)
        started = threading.Event()
        self._executor.submit(self._run, handler, started)
        self._futures.append(handler)
        # Until the worker has started it, rclpy would yield the task again: wait (and let the
        # worker have the GIL) rather than loop. A worker is free, so this is short.
        started.wait(_POLL_S)
        return True

    def _run(self, handler: Task, started: threading.Event) -> None:
        started.set()
        try:
            handler()
        finally:
            with self._in_worker_changed:
                self._in_worker.discard(handler)
                self._in_worker_changed.notify_all()
            self._free_workers.release()

    def _take_free_worker(
        self, timeout_sec: float | TimeoutObject | None, wait_condition: Callable[[], bool]
    ) -> bool:
        """Wait up to the spin's timeout for a free worker; False if none came in time."""
        if self._stopping.is_set():
            self._shut_down.wait(_POLL_S)  # no busy spin() loop while shutdown() waits
            return False
        seconds = timeout_sec.timeout if isinstance(timeout_sec, TimeoutObject) else timeout_sec
        if seconds is not None and seconds >= 0:
            return self._free_workers.acquire(timeout=seconds)
        while not self._stopping.is_set() and self._context.ok() and not wait_condition():
            if self._free_workers.acquire(timeout=_POLL_S):
                return True
        return False
