"""The reachable region, solved in a child process of its own.

The region (`kinematics.workspace`) is tens of thousands of IK solves in plain Python: 0.4 s for
a 2R arm, 6-15 s for a 3R or spatial arm on a 2-core machine. In a thread of the node's
process it would hold the GIL for all that time and every other callback of the process would
queue behind it: with the IK, hardware and trajectory nodes in one process (`bringup`, the
tests), joint_states stopped for up to 1.7 s at a time while a spatial arm's region was being
solved, long enough for a move's watchdog to call it a hardware fault. A child process solves
it on a core of its own and hands back the finished grid; the node's thread only waits on a
pipe.

The child is `python -m arm_kinematics.nodes.ik.region_process`, not a `multiprocessing`
one: "spawn" and "forkserver" import the parent's main script again in the child, which runs
a script that builds its nodes at module level (no `if __name__ == "__main__"`) a second time,
and "fork" is unsafe in a process whose DDS threads are running. The job (the solve function
and the arm) goes in on stdin, the region (or the error) comes back on stdout, both pickled;
the child runs in a session of its own, so a Ctrl-C at the terminal reaches the node only and
the node decides when its child stops (`stop` kills it).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Callable

from arm_kinematics.kinematics import PlanarArm, SpatialArm
from arm_kinematics.kinematics.workspace import ReachableRegion

Arm = PlanarArm | SpatialArm


class RegionProcess:
    """`solve(arm)` running in a child process; `result()` waits for its answer."""

    def __init__(self, solve: Callable[[Arm], ReachableRegion], arm: Arm) -> None:
        """`solve` must pickle by name (a module-level function of the package, or a
        functools.partial of one), `arm` a core model."""
        self._job = pickle.dumps((solve, arm))
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )

    def result(self) -> ReachableRegion:
        """The region, once the child sends it; raises what the solve raised, or
        RuntimeError when the child ended without an answer (killed by `stop`)."""
        try:
            output, _ = self._process.communicate(self._job)
        except (BrokenPipeError, OSError) as error:
            raise RuntimeError("the region's process ended without an answer") from error
        if self._process.returncode != 0 or not output:
            raise RuntimeError(
                f"the region's process ended without an answer (exit {self._process.returncode})"
            )
        answer = pickle.loads(output)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def stop(self) -> None:
        """Kill the child if it is still solving (at once: it holds nothing worth saving)."""
        if self._process.poll() is None:
            self._process.kill()


def _main() -> None:
    """The child: read the job on stdin, write the region (or the error) on stdout."""
    solve, arm = pickle.load(sys.stdin.buffer)
    try:
        answer: ReachableRegion | Exception = solve(arm)
    except Exception as error:  # handed to the parent, which logs it
        answer = error
    sys.stdout.buffer.write(pickle.dumps(answer))


if __name__ == "__main__":
    _main()
