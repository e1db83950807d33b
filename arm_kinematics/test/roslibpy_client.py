"""A roslibpy program that drives the arm through web_bridge, as a user's script would.

    python roslibpy_client.py ws://127.0.0.1:PORT/ws

Run by test_web_bridge_protocol.py in a process of its own (Twisted's reactor, which roslibpy
runs in a thread, cannot be started twice in one process). Prints one JSON object: what it saw.
roslibpy is used exactly as its documentation shows; nothing here knows about our bridge.
"""

from __future__ import annotations

import json
import sys
import threading

import roslibpy

TIMEOUT_S = 30.0


def main(url: str) -> None:
    ros = roslibpy.Ros(host=url)
    ros.run(timeout=TIMEOUT_S)
    seen: dict = {"connected": ros.is_connected}

    solve_ik = roslibpy.Service(ros, "/solve_ik", "arm_kinematics_interfaces/srv/SolveIK")
    request = roslibpy.ServiceRequest(
        {
            "target": {
                "header": {"frame_id": "base_link"},
                "pose": {"position": {"x": 0.1073, "y": 0.1273}},
            },
            "branch": 1,
        }
    )
    seen["solve_ik"] = dict(solve_ik.call(request, timeout=TIMEOUT_S))
    try:
        solve_ik.call(roslibpy.ServiceRequest({"branch": 999}), timeout=TIMEOUT_S)
    except Exception as error:  # roslibpy raises on result: false
        seen["refused"] = str(error)

    states: list[dict] = []
    enough = threading.Event()
    joint_states = roslibpy.Topic(
        ros, "/joint_states", "sensor_msgs/msg/JointState", throttle_rate=50
    )

    def on_state(message: dict) -> None:
        states.append(message)
        if len(states) >= 5:
            enough.set()

    joint_states.subscribe(on_state)
    seen["joint_states"] = enough.wait(TIMEOUT_S) and states[-1]["name"]
    joint_states.unsubscribe()

    move_arm = roslibpy.ActionClient(ros, "/move_arm", "arm_kinematics_interfaces/action/MoveArm")
    done = threading.Event()
    feedback: list[dict] = []
    outcome: dict = {}

    def on_result(result: dict) -> None:
        outcome.update(status=int(result["status"].value), values=result["values"])
        done.set()

    def on_error(error: dict) -> None:
        outcome.update(error=str(error))
        done.set()

    move_arm.send_goal(
        roslibpy.Goal({"target": {"pose": {"position": {"x": 0.12, "y": 0.08}}}, "speed": 0.1}),
        on_result,
        feedback.append,
        on_error,
    )
    seen["goal_done"] = done.wait(TIMEOUT_S)
    seen["goal"] = outcome
    seen["feedback"] = len(feedback)
    ros.terminate()
    print(json.dumps(seen))


if __name__ == "__main__":
    main(sys.argv[1])
