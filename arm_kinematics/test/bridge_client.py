"""A rosbridge v2 client for the bridge's tests: `Client` on one aiohttp WebSocket (send a dict,
wait for the message you expect, by op and id), `run` for a scenario, and the messages the page
sends (`solve_ik_call`, `goal_message`). Plain JSON, nothing of the bridge's own code."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

import aiohttp
from ros_helpers import DEFAULT_TIMEOUT_S

MOVE_ARM = "arm_kinematics_interfaces/action/MoveArm"
SOLVE_IK = "arm_kinematics_interfaces/srv/SolveIK"
REACHABLE = (0.1073, 0.1273)  # the README's example: shoulder 30, elbow 45 deg
OUT_OF_REACH = (0.5, 0.0)


def run(scenario: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(scenario, timeout=4 * DEFAULT_TIMEOUT_S))


class Client:
    """A rosbridge client on one WebSocket: send dicts, wait for the message you expect."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send_str(message if isinstance(message, str) else json.dumps(message))

    async def receive(self, timeout: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
        frame = await self.ws.receive(timeout=timeout)
        if frame.type != aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"connection closed: {frame.type!r} {self.ws.close_code}")
        message = json.loads(frame.data)  # the server's JSON is strict JSON
        self.seen.append(message)
        return message

    async def expect(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = DEFAULT_TIMEOUT_S
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no expected message within {timeout} s: {self.seen[-5:]}")
            message = await self.receive(remaining)
            if predicate(message):
                return message

    async def answer(
        self, op: str, message_id: Any, timeout: float = DEFAULT_TIMEOUT_S
    ) -> dict[str, Any]:
        return await self.expect(lambda m: m["op"] == op and m.get("id") == message_id, timeout)

    async def status(self, message_id: Any = None) -> dict[str, Any]:
        return await self.expect(lambda m: m["op"] == "status" and m.get("id") == message_id)

    async def solve(self, x: float, y: float, message_id: Any = "check") -> dict[str, Any]:
        """A good request; its answer shows the bridge still serves this client."""
        await self.send(solve_ik_call(x, y, message_id))
        return await self.answer("service_response", message_id)


def solve_ik_call(x: float, y: float, message_id: Any, **extra: Any) -> dict[str, Any]:
    target = {"header": {"frame_id": "base_link"}, "pose": {"position": {"x": x, "y": y}}}
    return {
        "op": "call_service",
        "id": message_id,
        "service": "/solve_ik",
        "type": SOLVE_IK,
        "args": {"target": target, **extra},
    }


def goal_message(x: float, y: float, message_id: Any, speed: float, **extra: Any) -> dict:
    return {
        "op": "send_action_goal",
        "id": message_id,
        "action": "/move_arm",
        "action_type": MOVE_ARM,
        "args": {"target": {"pose": {"position": {"x": x, "y": y}}}, "speed": speed},
        **extra,
    }
