"""web_bridge against the real nodes, through a plain WebSocket client (aiohttp's), no browser.

The bridge, ik_node, trajectory_node, hardware_node (simulated servos) and the latched
robot_description run in one test graph; the client sends every rosbridge op the page and
roslibjs/roslibpy use, and every kind of bad input. Each gets the protocol's answer, and the
bridge keeps serving good requests afterwards. Waits are for messages, never fixed sleeps.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import math
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from action_msgs.msg import GoalStatus, GoalStatusArray
from bridge_client import (
    OUT_OF_REACH,
    REACHABLE,
    Client,
    goal_message,
    run,
    solve_ik_call,
)
from geometry_msgs.msg import PointStamped, Pose
from pip_only import require
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_helpers import (
    DEFAULT_CONFIG,
    DEFAULT_TIMEOUT_S,
    PYTHON,
    RosGraph,
    at_once,
    installed_executable,
    ros_graph,
    run_to_exit,
    start_node_process,
    wait_for,
)
from sensor_msgs.msg import JointState

from arm_kinematics.bridge.convert import to_json
from arm_kinematics.config import ArmConfig
from arm_kinematics.description import robot_description
from arm_kinematics.nodes.bringup import RobotDescriptionPublisher
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.nodes.web_bridge import MAX_SUBSCRIPTIONS, WebBridge
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK

pytestmark = pytest.mark.ros

MAX_CONNECTIONS = 4
RATE_LIMIT_PER_S = 20.0
RATE_LIMIT_BURST = 40  # above MAX_SUBSCRIPTIONS + 1: that test sends them at once
MAX_MESSAGE_BYTES = 16_384


class Stack:
    def __init__(self, graph: RosGraph, web_root: Path, urdf: str) -> None:
        self.graph = graph
        self.urdf = urdf
        for node in (HardwareNode, IkNode, TrajectoryNode):
            graph.add(node(context=graph.context))
        graph.add(RobotDescriptionPublisher(urdf, context=graph.context))
        overrides = [
            Parameter("port", value=0),
            Parameter("web_root", value=str(web_root)),
            Parameter("max_connections", value=MAX_CONNECTIONS),
            Parameter("rate_limit_per_s", value=RATE_LIMIT_PER_S),
            Parameter("rate_limit_burst", value=RATE_LIMIT_BURST),
            Parameter("max_message_bytes", value=MAX_MESSAGE_BYTES),
            Parameter("service_timeout_s", value=DEFAULT_TIMEOUT_S),
        ]
        self.bridge: WebBridge = graph.add(
            WebBridge(context=graph.context, parameter_overrides=overrides)
        )
        self.url = self.bridge.url
        self.port = self.bridge.server.port
        self.ws_url = self.url + "ws"
        self.probe = graph.node("web_bridge_probe")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Stack:
    site = tmp_path_factory.mktemp("site")
    web_root = site / "web"
    web_root.mkdir()
    (web_root / "index.html").write_text("<!doctype html><title>arm</title>")
    # As colcon --symlink-install lays the page out: the installed files are symlinks.
    (site / "build").mkdir()
    (site / "build" / "app.js").write_text("console.log('arm');")
    (web_root / "app.js").symlink_to(site / "build" / "app.js")
    (site / "secret.txt").write_text("not for the web")
    with ros_graph() as graph:
        yield Stack(graph, web_root, robot_description(DEFAULT_CONFIG))


@pytest.fixture(autouse=True)
def no_clients_left(stack: Stack) -> None:
    # A previous test's connections are closed on the server's loop shortly after the client's.
    wait_for(lambda: not stack.bridge.server.sessions, what="the previous test's clients gone")


@contextlib.asynccontextmanager
async def connect(stack: Stack, **kwargs: Any) -> AsyncIterator[Client]:
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(stack.ws_url, max_msg_size=0, **kwargs) as ws,
    ):
        yield Client(ws)


def counts(stack: Stack) -> tuple[int, int, int]:
    """The bridge node's rclpy subscriptions, publishers and clients: what a request created."""
    bridge = stack.bridge
    return len(list(bridge.subscriptions)), len(list(bridge.publishers)), len(list(bridge.clients))


# --- HTTP: the page, Host ------------------------------------------------------------------------


def test_the_page_is_served_on_the_same_port(stack: Stack) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.get(stack.url) as response:
                assert response.status == 200
                assert "<title>arm</title>" in await response.text()
                assert response.headers["X-Content-Type-Options"] == "nosniff"
            async with session.get(stack.url + "app.js") as response:
                assert response.status == 200
                assert await response.text() == "console.log('arm');"
                assert response.content_type in ("application/javascript", "text/javascript")
            async with session.get(stack.url + "missing.js") as response:
                assert response.status == 404
            for escape in (
                "../secret.txt",
                "%2e%2e/secret.txt",
                "..%2fsecret.txt",
                "%2e%2e%2fsecret.txt",
                "build/../../secret.txt",
                "app.js/../../secret.txt",
            ):
                async with session.get(stack.url + escape) as response:
                    assert response.status in (403, 404), escape
                    assert "not for the web" not in await response.text()

        # Raw request lines, as a client that does not normalise the path would send them.
        for path in ("/../secret.txt", "/build/../../secret.txt", "/%2e%2e/secret.txt"):
            reader, writer = await asyncio.open_connection("127.0.0.1", stack.port)
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\n"
                "Connection: close\r\n\r\n".encode()
            )
            answer = (await reader.read()).decode(errors="replace")
            writer.close()
            assert answer.split()[1] in ("400", "403", "404"), (path, answer[:80])
            assert "not for the web" not in answer

    run(scenario())
    assert stack.url.startswith("http://127.0.0.1:")


def test_a_loopback_bind_needs_no_token(stack: Stack) -> None:
    """As before the token existed (test_web_bridge_token.py has the network bind)."""

    async def scenario() -> tuple[int, str | None, dict]:
        async with aiohttp.ClientSession() as session, session.get(stack.url) as response:
            status, cookie = response.status, response.headers.get("Set-Cookie")
        async with connect(stack) as client:
            answer = await client.solve(*REACHABLE)
        return status, cookie, answer

    status, cookie, answer = run(scenario())
    assert stack.bridge.server.token is None
    assert status == 200
    assert cookie is None
    assert answer["result"] is True


def test_a_foreign_host_header_is_refused_dns_rebinding(stack: Stack) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            for host in (f"evil.example:{stack.port}", "127.0.0.1:1", "evil.example"):
                async with session.get(stack.url, headers={"Host": host}) as response:
                    assert response.status == 421, host
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(stack.ws_url, headers={"Host": host})
                assert refused.value.status == 421
            async with session.get(
                stack.url, headers={"Host": f"localhost:{stack.port}"}
            ) as response:
                assert response.status == 200

    run(scenario())


# --- WebSocket handshake -------------------------------------------------------------------------


def test_a_cross_origin_handshake_is_refused(stack: Stack) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            for origin in (f"http://evil.example:{stack.port}", "null", "https://127.0.0.1"):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(stack.ws_url, origin=origin)
                assert refused.value.status == 403, origin
        assert not stack.bridge.server.sessions
        # The page's own origin (either of its names) is welcome.
        for origin in (f"http://127.0.0.1:{stack.port}", f"http://localhost:{stack.port}"):
            async with connect(stack, origin=origin) as client:
                assert (await client.solve(*REACHABLE))["result"] is True

    run(scenario())


# --- call_service --------------------------------------------------------------------------------


def _without_stamps(values: dict[str, Any]) -> dict[str, Any]:
    out = dict(values)
    for key in ("solution", "alternative"):
        out[key] = {k: v for k, v in values[key].items() if k != "header"}
    out["tool"] = {**values["tool"], "header": {"frame_id": values["tool"]["header"]["frame_id"]}}
    return out


def test_call_service_solve_ik_answers_what_an_rclpy_client_gets(stack: Stack) -> None:
    client_ros = stack.probe.create_client(SolveIK, "solve_ik")
    request = SolveIK.Request(branch=SolveIK.Request.BRANCH_ELBOW_UP)
    request.target.header.frame_id = "base_link"
    request.target.pose.position.x, request.target.pose.position.y = REACHABLE
    expected = to_json(stack.graph.call(client_ros, request))
    assert expected["status"] == SolveIK.Response.OK

    async def scenario() -> tuple[dict, dict]:
        async with connect(stack) as client:
            await client.send(solve_ik_call(*REACHABLE, "s1", branch=1))
            by_name = await client.answer("service_response", "s1")
            # An integer id, a relative name, no type, and args as a positional list.
            await client.send(
                {
                    "op": "call_service",
                    "id": 17,
                    "service": "solve_ik",
                    "args": [
                        {"pose": {"position": dict(zip("xy", REACHABLE, strict=True))}},
                        0,  # orientation_mode POSITION_ONLY
                        0.0,  # tool_angle
                        1,  # branch ELBOW_UP
                    ],
                }
            )
            return by_name, await client.answer("service_response", 17)

    by_name, positional = run(scenario())
    for answer, service in ((by_name, "/solve_ik"), (positional, "solve_ik")):
        assert answer["result"] is True
        assert answer["service"] == service  # the name as the client wrote it
        assert _without_stamps(answer["values"]) == _without_stamps(expected)
    assert math.isclose(by_name["values"]["solution"]["position"][1], -0.784967, abs_tol=1e-6)


def test_call_service_plan_cartesian_path_answers_what_an_rclpy_client_gets(stack: Stack) -> None:
    # A plan from an explicit start (the README's reference pose), so both answers plan the
    # same path whatever the arm does meanwhile; nothing moves.
    config = ArmConfig.from_file(DEFAULT_CONFIG)
    start = {"name": list(config.joint_names), "position": [math.radians(30), math.radians(45)]}
    position = {"x": REACHABLE[0] - 0.01, "y": REACHABLE[1]}
    waypoint = {"position": position, "orientation": {"w": 1.0}}
    args = {"header": {"frame_id": "base_link"}, "waypoints": [waypoint], "start_state": start}
    request = PlanCartesianPath.Request()
    request.header.frame_id = "base_link"
    request.waypoints = [Pose()]
    request.waypoints[0].position.x, request.waypoints[0].position.y = waypoint["position"].values()
    request.start_state.name, request.start_state.position = start["name"], start["position"]
    client_ros = stack.probe.create_client(PlanCartesianPath, "plan_cartesian_path")
    expected = to_json(stack.graph.call(client_ros, request))
    assert expected["status"] == PlanCartesianPath.Response.SUCCEEDED

    async def scenario() -> dict:
        async with connect(stack) as client:
            await client.send(
                {"op": "call_service", "id": "plan", "service": "plan_cartesian_path", "args": args}
            )
            return await client.answer("service_response", "plan")

    answer = run(scenario())
    assert answer["result"] is True
    values = answer["values"]
    values["trajectory"].pop("header")
    expected["trajectory"].pop("header")
    assert values == expected
    assert len(values["trajectory"]["points"]) >= 10  # 10 mm at 1 mm steps


def test_a_batch_answer_with_nan_rows_is_valid_json(stack: Stack) -> None:
    async def scenario() -> dict:
        async with connect(stack) as client:
            await client.send(
                {
                    "op": "call_service",
                    "id": "b",
                    "service": "solve_ik_batch",
                    "args": {"x": [REACHABLE[0], OUT_OF_REACH[0]], "y": [REACHABLE[1], 0.0]},
                }
            )
            return await client.answer("service_response", "b")

    values = run(scenario())["values"]
    assert list(base64.b64decode(values["statuses"])) == [0, 2]  # OK, TOO_FAR
    assert values["positions"][2:] == [None, None]  # NaN row -> null
    assert all(isinstance(p, float) for p in values["positions"][:2])


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('{"x": NaN, "y": 0.1}', "args.target.pose.position.x"),
        ('{"x": 0.1, "y": Infinity}', "args.target.pose.position.y"),
        ('{"x": -Infinity, "y": 0.1}', "args.target.pose.position.x"),
        ('{"x": 1e999, "y": 0.1}', "args.target.pose.position.x"),
    ],
)
def test_nan_and_infinity_are_refused_naming_the_field(stack: Stack, raw: str, field: str) -> None:
    text = (
        '{"op": "call_service", "id": "n", "service": "/solve_ik", "args": '
        f'{{"target": {{"pose": {{"position": {raw}}}}}}}}}'
    )

    async def scenario() -> tuple[dict, dict]:
        async with connect(stack) as client:
            await client.send(text)
            status = await client.status("n")
            failed = await client.answer("service_response", "n")
            assert (await client.solve(*REACHABLE))["result"] is True
            return status, failed

    status, failed = run(scenario())
    assert status["level"] == "error"
    assert f"field '{field}'" in status["msg"]
    assert failed["result"] is False
    assert f"'{field}'" in failed["values"]


@pytest.mark.parametrize(
    ("extra", "field", "reason"),
    [
        ({"branch": 300}, "args.branch", "out of range for uint8"),
        ({"branch": -1}, "args.branch", "out of range for uint8"),
        ({"branch": 1.5}, "args.branch", "expected an integer"),
        ({"orientation_mode": "yes"}, "args.orientation_mode", "expected an integer"),
        ({"seed": {"position": ["a"]}}, "args.seed.position[0]", "expected a number"),
        ({"bogus": 1}, "args.bogus", "no such field"),
    ],
)
def test_out_of_range_and_mistyped_fields_are_refused(
    stack: Stack, extra: dict, field: str, reason: str
) -> None:
    async def scenario() -> dict:
        async with connect(stack) as client:
            await client.send(solve_ik_call(*REACHABLE, "r", **extra))
            status = await client.status("r")
            assert (await client.answer("service_response", "r"))["result"] is False
            assert (await client.solve(*REACHABLE))["result"] is True
            return status

    message = run(scenario())["msg"]
    assert f"field '{field}'" in message
    assert reason in message


@pytest.mark.parametrize(
    ("call", "error"),
    [
        ({"service": "/web_bridge/get_parameters"}, "not one of this arm's services"),
        ({"service": "/rosout"}, "not one of this arm's services"),
        ({"service": "/other_arm/solve_ik"}, "not one of this arm's services"),
        ({"service": "/solve_ik", "type": "arm_kinematics_interfaces/srv/ComputeFK"}, "has type"),
        ({"service": "/compute_fk", "type": "std_srvs/srv/Trigger"}, "has type"),
    ],
)
def test_other_services_and_wrong_types_are_refused_and_nothing_is_created(
    stack: Stack, call: dict, error: str
) -> None:
    before = counts(stack)

    async def scenario() -> dict:
        async with connect(stack) as client:
            await client.send({"op": "call_service", "id": "x", "args": {}, **call})
            status = await client.status("x")
            failed = await client.answer("service_response", "x")
            assert failed["result"] is False
            assert (await client.solve(*REACHABLE))["result"] is True
            return status

    assert error in run(scenario())["msg"]
    assert counts(stack) == before


# --- topics --------------------------------------------------------------------------------------


def _stamp_s(message: dict[str, Any]) -> float:
    stamp = message["msg"]["header"]["stamp"]
    return stamp["sec"] + stamp["nanosec"] * 1e-9


async def _stamp_intervals(client: Client, subscription: dict, count: int) -> list[float]:
    """Subscribe; the intervals (s) between the stamps of the first `count` messages.

    Stamps, not arrival times: the hardware node stamps each joint_states when it publishes,
    so the intervals say what the bridge let through however late the machine delivers it."""
    await client.send(subscription)
    stamps = []
    while len(stamps) < count:
        message = await client.expect(lambda m: m["op"] == "publish")
        assert message["topic"] == subscription["topic"]
        stamps.append(_stamp_s(message))
    await client.send(
        {"op": "unsubscribe", "id": subscription.get("id"), "topic": subscription["topic"]}
    )
    return [b - a for a, b in itertools.pairwise(stamps)]


def test_subscribe_with_throttle_rate_and_queue_length(stack: Stack) -> None:
    topic = "/joint_states"

    async def scenario() -> dict[str, list[float]]:
        async with connect(stack) as client:
            full = await _stamp_intervals(
                client, {"op": "subscribe", "id": "a", "topic": topic}, 40
            )
            throttled = await _stamp_intervals(
                client,
                {
                    "op": "subscribe",
                    "id": "b",
                    "topic": topic,
                    "type": "sensor_msgs/msg/JointState",
                    "throttle_rate": 100,
                },
                12,
            )
            queued = await _stamp_intervals(
                client,
                {
                    "op": "subscribe",
                    "id": "c",
                    "topic": topic,
                    "throttle_rate": 200,
                    "queue_length": 1,
                },
                8,
            )
            return {"full": full, "throttled": throttled, "queued": queued}

    intervals = {name: sorted(values) for name, values in run(scenario()).items()}
    print({name: round(values[len(values) // 2], 3) for name, values in intervals.items()})
    # hardware_node publishes every 20 ms: unthrottled, the bridge passes each message on
    # (a median interval well under the 100 ms throttle below); throttle_rate 100 ms lets at
    # most one through per 100 ms, 200 ms one per 200 ms (a tick of 21 ms's slack: the
    # bridge's clock and the stamps' are read at different moments).
    assert intervals["full"][len(intervals["full"]) // 2] < 0.05, intervals["full"]
    for name, minimum in (("throttled", 0.1), ("queued", 0.2)):
        assert intervals[name][len(intervals[name]) // 2] >= minimum - 0.021, (name, intervals)
    for values in intervals.values():
        assert all(i > 0 for i in values)  # in order, none twice


def test_unsubscribe_stops_the_messages_and_drops_the_subscription(stack: Stack) -> None:
    published: list[Any] = []
    stack.probe.create_subscription(JointState, "joint_states", published.append, 10)
    before = counts(stack)

    async def periods(count: int) -> None:
        """Until hardware_node has published `count` more joint_states (50 Hz)."""
        target = len(published) + count
        while len(published) < target:
            await asyncio.sleep(0.005)

    async def scenario() -> list[dict]:
        async with connect(stack) as client:
            await client.send({"op": "subscribe", "id": "j", "topic": "joint_states"})
            await client.expect(lambda m: m["op"] == "publish")
            assert counts(stack)[0] == before[0] + 1
            await client.send({"op": "unsubscribe", "id": "j", "topic": "joint_states"})
            await client.solve(*REACHABLE, "barrier")  # handled after the unsubscribe
            assert counts(stack) == before
            client.seen.clear()
            await periods(10)
            await client.send({"op": "unsubscribe", "id": "j", "topic": "joint_states"})
            await client.status("j")
            return client.seen

    seen = run(scenario())
    assert not [m for m in seen if m["op"] == "publish"]
    warning = seen[-1]
    assert warning["level"] == "warning"
    assert "no subscription" in warning["msg"]


def test_latched_topics_reach_late_subscribers(stack: Stack) -> None:
    async def first_message(client: Client, topic: str, sub_id: str) -> dict:
        await client.send({"op": "subscribe", "id": sub_id, "topic": topic})
        return await client.expect(lambda m: m["op"] == "publish" and m["topic"] == topic)

    async def scenario() -> list[dict]:
        async with connect(stack) as one, connect(stack) as two:
            return [
                await first_message(one, "/robot_description", "d1"),
                await first_message(two, "robot_description", "d2"),
                await first_message(one, "/ik_markers", "m"),
                await first_message(two, "diagnostics", "diag"),
            ]

    description_1, description_2, markers, diagnostics = run(scenario())
    assert description_1["msg"]["data"] == description_2["msg"]["data"] == stack.urdf
    assert description_2["topic"] == "robot_description"
    assert markers["msg"]["markers"]
    assert diagnostics["topic"] == "diagnostics"
    assert diagnostics["msg"]["status"]


def test_publish_clicked_point_with_and_without_advertise(stack: Stack) -> None:
    received: list[PointStamped] = []
    stack.probe.create_subscription(PointStamped, "clicked_point", received.append, 10)
    before = counts(stack)

    async def scenario() -> None:
        async with connect(stack) as client:
            # Unreachable, so trajectory_node refuses to move there: only the topic is tested.
            point = {"header": {"frame_id": "base_link"}, "point": {"x": OUT_OF_REACH[0]}}
            await client.send(
                {
                    "op": "advertise",
                    "id": "ad",
                    "topic": "/clicked_point",
                    "type": "geometry_msgs/msg/PointStamped",
                }
            )
            wait_for(lambda: stack.bridge.count_publishers("/clicked_point") >= 1)
            wait_for(lambda: stack.probe.count_publishers("/clicked_point") >= 1)
            await client.send(
                {"op": "publish", "id": "p1", "topic": "/clicked_point", "msg": point}
            )
            await client.send(
                {
                    "op": "publish",
                    "topic": "clicked_point",
                    "msg": {"point": {"x": OUT_OF_REACH[0], "y": 0.5}},
                }
            )
            await client.send(
                {
                    "op": "advertise",
                    "id": "bad",
                    "topic": "clicked_point",
                    "type": "geometry_msgs/msg/Point",
                }
            )
            assert "has type geometry_msgs/msg/PointStamped" in (await client.status("bad"))["msg"]
            await client.send({"op": "publish", "id": "ro", "topic": "joint_states", "msg": {}})
            assert "read-only" in (await client.status("ro"))["msg"]
            await client.send(
                {
                    "op": "publish",
                    "id": "nf",
                    "topic": "joint_commands",
                    "msg": {"name": ["shoulder"], "position": [1.0]},
                }
            )
            assert "not one of this arm's topics" in (await client.status("nf"))["msg"]
            await client.send(
                {
                    "op": "publish",
                    "id": "bad_msg",
                    "topic": "clicked_point",
                    "msg": {"point": {"x": "far"}},
                }
            )
            assert "field 'msg.point.x'" in (await client.status("bad_msg"))["msg"]
            await client.send({"op": "unadvertise", "id": "un", "topic": "clicked_point"})

    run(scenario())
    wait_for(lambda: len(received) >= 2, what="both clicked points")
    first, second = received[:2]
    assert (first.header.frame_id, first.point.x) == ("base_link", OUT_OF_REACH[0])
    # Header left out: rosbridge's rule, stamped with the current time.
    assert second.point.y == 0.5
    assert second.header.stamp.sec > 0
    assert len(received) == 2
    # One publisher, for clicked_point; nothing for joint_states or joint_commands.
    assert stack.bridge.count_publishers("/clicked_point") == 1
    ours = {publisher.topic_name for publisher in stack.bridge.publishers}
    assert "/clicked_point" in ours
    assert not ours & {"/joint_states", "/joint_commands"}
    assert counts(stack)[1] <= before[1] + 1


def test_publish_joint_trajectory_moves_the_arm_as_a_ros_publisher_would(stack: Stack) -> None:
    # joint_trajectory through the bridge: checked and streamed by trajectory_node like any
    # publisher's, the arm ends on its last point. joint_commands stays out of reach.
    names = list(ArmConfig.from_file(DEFAULT_CONFIG).joint_names)
    states: list[JointState] = []
    stack.probe.create_subscription(JointState, "joint_states", states.append, 10)

    def at_rest() -> tuple[float, ...] | None:
        # Two joint_states in a row with the same joints: no earlier test's motion is running.
        if len(states) < 2 or list(states[-1].position) != list(states[-2].position):
            return None
        return tuple(states[-1].position)

    start = wait_for(at_rest, what="the arm at rest")
    by_name = dict(zip(list(states[-1].name), start, strict=True))
    target = [by_name[name] + (0.1 if by_name[name] < 0.5 else -0.1) for name in names]

    async def scenario() -> None:
        async with connect(stack) as client:
            point = {"positions": target, "time_from_start": {"sec": 1, "nanosec": 0}}
            await client.send(
                {
                    "op": "publish",
                    "id": "jt",
                    "topic": "joint_trajectory",
                    "msg": {"joint_names": names, "points": [point]},
                }
            )
            assert (await client.solve(*REACHABLE))["result"] is True  # the connection serves

    run(scenario())

    def at_target() -> bool:
        latest = dict(zip(list(states[-1].name), states[-1].position, strict=True))
        return all(abs(latest[n] - q) < 1e-6 for n, q in zip(names, target, strict=True))

    wait_for(at_target, what="joint_states at the trajectory's last point")


@pytest.mark.parametrize(
    ("subscription", "error"),
    [
        ({"topic": "/rosout"}, "not one of this arm's topics"),
        ({"topic": "/other_arm/joint_states"}, "not one of this arm's topics"),
        ({"topic": "joint_commands"}, "not one of this arm's topics"),
        ({"topic": "joint_states", "type": "std_msgs/msg/String"}, "has type"),
        ({"topic": "joint_states", "throttle_rate": "fast"}, "'throttle_rate' must be"),
        ({"topic": "joint_states", "compression": "png"}, "compression 'png'"),
    ],
)
def test_bad_subscriptions_are_refused_and_nothing_is_created(
    stack: Stack, subscription: dict, error: str
) -> None:
    async def scenario() -> tuple[dict, tuple[int, int, int]]:
        async with connect(stack) as client:
            # A first solve creates the bridge's solve_ik client (made on first use), so that
            # the counts taken after it change only by what the bad subscription creates.
            assert (await client.solve(*REACHABLE))["result"] is True
            before = counts(stack)
            await client.send({"op": "subscribe", "id": "bad", **subscription})
            status = await client.status("bad")
            assert (await client.solve(*REACHABLE))["result"] is True
            return status, before

    status, before = run(scenario())
    assert status["level"] == "error"
    assert error in status["msg"]
    assert counts(stack) == before


# --- actions -------------------------------------------------------------------------------------


def test_send_action_goal_with_feedback_and_result(stack: Stack) -> None:
    async def scenario() -> tuple[list[dict], dict]:
        async with connect(stack) as client:
            await client.send(goal_message(*REACHABLE, "g1", 0.1, feedback=True))
            result = await client.answer("action_result", "g1")
            feedback = [m for m in client.seen if m["op"] == "action_feedback"]
            return feedback, result

    feedback, result = run(scenario())
    assert result["result"] is True
    assert result["status"] == GoalStatus.STATUS_SUCCEEDED
    assert result["values"]["status"] == MoveArm.Result.SUCCEEDED, result["values"]["message"]
    assert feedback, "no feedback"
    assert all(m["id"] == "g1" and m["action"] == "/move_arm" for m in feedback)
    fractions = [m["values"]["fraction"] for m in feedback]
    assert fractions == sorted(fractions)
    assert fractions[-1] == pytest.approx(1.0)
    tip = feedback[-1]["values"]["tip"]
    assert math.hypot(tip["x"] - REACHABLE[0], tip["y"] - REACHABLE[1]) < 1e-3


def test_a_refused_goal_still_gets_a_result(stack: Stack) -> None:
    async def scenario() -> dict:
        async with connect(stack) as client:
            await client.send(goal_message(*OUT_OF_REACH, 5, 0.1))
            return await client.answer("action_result", 5)

    result = run(scenario())
    assert result["status"] == GoalStatus.STATUS_ABORTED
    assert result["values"]["status"] == MoveArm.Result.IK_FAILED


def test_cancel_action_goal(stack: Stack) -> None:
    home_tip = (0.1566, 0.0566)

    async def scenario() -> tuple[dict, dict]:
        async with connect(stack) as client:
            await client.send(goal_message(*REACHABLE, "start", 0.1))
            assert (await client.answer("action_result", "start"))["values"]["status"] == 0
            await client.send(goal_message(*home_tip, "slow", 0.005, feedback=True))
            await client.answer("action_feedback", "slow")
            await client.send({"op": "cancel_action_goal", "id": "slow", "action": "/move_arm"})
            result = await client.answer("action_result", "slow")
            await client.send({"op": "cancel_action_goal", "id": "nope", "action": "/move_arm"})
            return result, await client.status("nope")

    result, unknown = run(scenario())
    assert result["status"] == GoalStatus.STATUS_CANCELED
    assert result["values"]["status"] == MoveArm.Result.CANCELED
    assert "no goal in progress with id 'nope'" in unknown["msg"]


def test_goals_without_an_id_and_preemption(stack: Stack) -> None:
    async def scenario() -> list[dict]:
        async with connect(stack) as client:
            await client.send(goal_message(*REACHABLE, "start", 0.1))  # away from home first
            await client.answer("action_result", "start")
            slow = goal_message(0.1566, 0.0566, None, 0.005, feedback=True)
            del slow["id"]
            await client.send(slow)
            first_feedback = await client.expect(lambda m: m["op"] == "action_feedback")
            assert "id" not in first_feedback
            fast = goal_message(*REACHABLE, None, 0.1)
            del fast["id"]
            await client.send(fast)  # a new goal preempts the running one (trajectory_node)
            return [await client.expect(lambda m: m["op"] == "action_result") for _ in range(2)]

    # Each result goes out when its goal ends, and nothing orders two goals' ends: the fast goal
    # (millimetres back) may finish before the preempted one's result is out. rosbridge promises
    # no order either; its `id` tells goals apart. Without ids, what the results say does.
    results = {result["values"]["status"]: result for result in run(scenario())}
    assert sorted(results) == sorted([MoveArm.Result.PREEMPTED, MoveArm.Result.SUCCEEDED])
    preempted, succeeded = results[MoveArm.Result.PREEMPTED], results[MoveArm.Result.SUCCEEDED]
    assert "id" not in preempted
    assert "id" not in succeeded
    assert preempted["status"] == GoalStatus.STATUS_ABORTED
    assert succeeded["status"] == GoalStatus.STATUS_SUCCEEDED


def test_a_client_that_goes_away_cancels_its_goal(stack: Stack) -> None:
    statuses: list[GoalStatusArray] = []
    stack.probe.create_subscription(
        GoalStatusArray,
        "/move_arm/_action/status",
        statuses.append,
        QoSProfile(
            depth=10,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        ),
    )

    def canceled() -> set[bytes]:
        return {
            bytes(s.goal_info.goal_id.uuid)
            for array in statuses
            for s in array.status_list
            if s.status == GoalStatus.STATUS_CANCELED
        }

    async def scenario() -> set[bytes]:
        async with connect(stack) as client:
            await client.send(goal_message(*REACHABLE, "a", 0.1))
            await client.answer("action_result", "a")
            await client.send(goal_message(0.1566, 0.0566, "b", 0.005, feedback=True))
            await client.answer("action_feedback", "b")
            # Goals canceled by earlier tests are still listed (finished goals are kept).
            return canceled()

    canceled_before = run(scenario())
    wait_for(
        lambda: canceled() - canceled_before, what="the goal of the closed connection canceled"
    )


def test_bad_goals_are_refused(stack: Stack) -> None:
    async def scenario() -> list[tuple[dict, dict]]:
        answers = []
        async with connect(stack) as client:
            for number, (change, _) in enumerate(BAD_GOALS):
                message = goal_message(*REACHABLE, number, 0.1)
                message.update(change)
                await client.send(message)
                answers.append(
                    (await client.status(number), await client.answer("action_result", number))
                )
            assert (await client.solve(*REACHABLE))["result"] is True
        return answers

    for (status, result), (_, error) in zip(run(scenario()), BAD_GOALS, strict=True):
        assert error in status["msg"]
        assert result["result"] is False
        assert result["status"] == GoalStatus.STATUS_UNKNOWN


BAD_GOALS = [
    ({"action": "/other/move_arm"}, "not one of this arm's actions"),
    ({"action_type": "arm_kinematics_interfaces/srv/SolveIK"}, "has type"),
    ({"args": {"speed": math.inf}}, "field 'args.speed'"),
    ({"args": {"mode": 256}}, "field 'args.mode': 256 is out of range"),
    ({"args": {"target": {"pose": {"position": {"x": True}}}}}, "args.target.pose.position.x"),
]


# --- bad messages, floods, sizes, connections ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message_id", "error"),
    [
        ("{not json", None, "invalid JSON"),
        ("[1, 2, 3]", None, "JSON object"),
        ('{"id": "x", "topic": "/joint_states"}', "x", "string 'op'"),
        ('{"op": "launch", "id": "u"}', "u", "unknown op 'launch'"),
        ('{"op": "advertise_service", "id": 3, "service": "s", "type": "t"}', 3, "unknown op"),
        ('{"op": "subscribe", "id": "t", "topic": 7}', "t", "'topic' must be a string"),
        (
            '{"op": "publish", "id": "n", "topic": "clicked_point", "msg": {"point": {"x": NaN}}}',
            "n",
            "field 'msg.point.x'",
        ),
    ],
)
def test_malformed_messages_get_a_status_and_the_connection_stays(
    stack: Stack, text: str, message_id: Any, error: str
) -> None:
    async def scenario() -> dict:
        async with connect(stack) as client:
            await client.send(text)
            status = await client.status(message_id)
            await client.ws.send_bytes(b"\x00\x01")
            binary = await client.status()
            assert "only JSON text" in binary["msg"]
            assert (await client.solve(*REACHABLE))["result"] is True
            return status

    status = run(scenario())
    assert status["level"] == "error"
    assert error in status["msg"]


def test_an_oversized_message_closes_only_that_connection(stack: Stack) -> None:
    async def scenario() -> int:
        async with connect(stack) as other, connect(stack) as big:
            huge = solve_ik_call(*REACHABLE, "huge")
            huge["args"]["seed"] = {"name": ["j"] * MAX_MESSAGE_BYTES}
            await big.send(huge)
            frame = await big.ws.receive(timeout=DEFAULT_TIMEOUT_S)
            assert frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert (await other.solve(*REACHABLE))["result"] is True
            return big.ws.close_code

    assert run(scenario()) == aiohttp.WSCloseCode.MESSAGE_TOO_BIG


def test_a_flood_is_cut_to_the_rate_limit_and_nothing_more_reaches_the_arm(stack: Stack) -> None:
    received: list[PointStamped] = []
    stack.probe.create_subscription(PointStamped, "clicked_point", received.append, 1000)
    flood = 300

    def point(y: float) -> dict[str, Any]:
        # Out of reach: trajectory_node refuses to move there; only the topic is tested.
        return {
            "op": "publish",
            "topic": "clicked_point",
            "msg": {"header": {"frame_id": "base_link"}, "point": {"x": OUT_OF_REACH[0], "y": y}},
        }

    async def until_received(client: Client, y: float) -> int:
        """Publish the point at `y` until the probe has one (publisher matched); how many sent."""
        for sent in itertools.count(1):
            await client.send(point(y))
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:
                if any(p.point.y == y for p in received):
                    return sent
                await asyncio.sleep(0.01)
            assert sent < 100, f"the point at y={y} never arrived"
        raise AssertionError

    async def scenario() -> tuple[int, float, dict, dict]:
        start = time.monotonic()  # the connection's bucket starts full
        async with connect(stack) as client, connect(stack) as bystander:
            # So that none of the flood is lost to discovery: what the probe gets is what the
            # bridge let through.
            sent_before = await until_received(client, 0.1)
            text = json.dumps(point(0.25))
            for _ in range(flood):
                await client.send(text)
            limited = await client.expect(
                lambda m: m["op"] == "status" and "rate limit" in m["msg"]
            )
            # Another client is not slowed down at all.
            assert (await bystander.solve(*REACHABLE, "bystander"))["result"] is True
            # This client is served again once its bucket refills.
            for attempt in itertools.count():
                await client.send(solve_ik_call(*REACHABLE, attempt))
                with contextlib.suppress(AssertionError, TimeoutError):  # dropped: no answer
                    answer = await client.answer("service_response", attempt, timeout=0.5)
                    break
                assert attempt < 100
            # A last point marks the end: once it arrives, everything before it has.
            await until_received(client, 0.75)
            return sent_before, time.monotonic() - start, limited, answer

    sent_before, elapsed, limited, answer = run(scenario())
    assert answer["result"] is True
    through = sum(1 for p in received if p.point.y == 0.25)
    print(f"flood: {through} of {flood} messages through, {elapsed:.3f} s in all")
    # At least the burst less what was sent before; at most what the bucket can have handed out.
    assert through >= RATE_LIMIT_BURST - sent_before
    assert through <= RATE_LIMIT_BURST + RATE_LIMIT_PER_S * elapsed
    assert through < flood
    assert limited["level"] == "error"


def test_too_many_connections_are_refused_and_a_slot_frees_up(stack: Stack) -> None:
    async def scenario() -> tuple[list[dict], int | None]:
        async with contextlib.AsyncExitStack() as stack_of_clients:
            clients = [
                await stack_of_clients.enter_async_context(connect(stack))
                for _ in range(MAX_CONNECTIONS)
            ]
            for number, client in enumerate(clients):
                assert (await client.solve(*REACHABLE, number))["result"] is True
            async with connect(stack) as extra:
                refused = await extra.receive()
                closing = await extra.ws.receive(timeout=DEFAULT_TIMEOUT_S)
                assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                code = extra.ws.close_code
            await clients[0].ws.close()
            wait_for(
                lambda: len(stack.bridge.server.sessions) < MAX_CONNECTIONS, what="a slot freed"
            )
            async with connect(stack) as late:
                assert (await late.solve(*REACHABLE, "late"))["result"] is True
            assert (await clients[-1].solve(*REACHABLE, "still"))["result"] is True
        return [refused], code

    (refused,), code = run(scenario())
    assert refused["op"] == "status"
    assert "too many connections" in refused["msg"]
    assert code == aiohttp.WSCloseCode.TRY_AGAIN_LATER


# --- a real rosbridge client library ------------------------------------------------------------


def test_roslibpy_drives_the_arm_through_the_bridge(stack: Stack) -> None:
    require("roslibpy")  # the client script runs in a child process; pip only
    script = Path(__file__).with_name("roslibpy_client.py")
    result = subprocess.run(
        [PYTHON, str(script), "ws" + stack.ws_url.removeprefix("http")],
        capture_output=True,
        text=True,
        timeout=4 * DEFAULT_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["connected"] is True
    assert seen["solve_ik"]["status"] == SolveIK.Response.OK
    assert seen["solve_ik"]["solution"]["position"][1] == pytest.approx(-0.784967, abs=1e-6)
    assert "field 'args.branch': 999 is out of range for uint8" in seen["refused"]
    assert seen["joint_states"] == ["shoulder", "elbow"]
    assert seen["goal_done"] is True
    assert seen["goal"]["status"] == GoalStatus.STATUS_SUCCEEDED, seen["goal"]
    assert seen["goal"]["values"]["status"] == MoveArm.Result.SUCCEEDED
    assert seen["feedback"] >= 1


def test_too_many_subscriptions_on_one_connection_are_refused(stack: Stack) -> None:
    before = counts(stack)

    async def scenario() -> dict:
        async with connect(stack) as client:
            for number in range(MAX_SUBSCRIPTIONS):
                await client.send(
                    {"op": "subscribe", "id": number, "topic": "diagnostics", "throttle_rate": 1000}
                )
            await client.send({"op": "subscribe", "id": "one more", "topic": "diagnostics"})
            refused = await client.status("one more")
            assert counts(stack)[0] == before[0] + MAX_SUBSCRIPTIONS
            return refused

    assert "too many subscriptions" in run(scenario())["msg"]
    wait_for(
        lambda: counts(stack) == before, what="the subscriptions of the closed connection gone"
    )


# --- the node's parameters ---------------------------------------------------------------------


def test_the_parameters_are_read_only_and_described(stack: Stack) -> None:
    bridge = stack.bridge
    for name, value in (("port", 1), ("host", "0.0.0.0"), ("max_connections", 100)):
        (result,) = bridge.set_parameters([Parameter(name, value=value)])
        assert not result.successful
        assert "read-only" in result.reason.lower()
        descriptor = bridge.describe_parameter(name)
        assert descriptor.read_only
        assert descriptor.description
    assert bridge.get_parameter("port").value == 0  # as started; the bound port is in the URL
    assert stack.url.endswith(f":{stack.port}/")


# --- the node's parameters and start-up, as a process --------------------------------------------


BAD_PARAMETERS = [  # (the arguments, what the FATAL line names)
    (["-p", "port:=70000"], "parameter 'port' = 70000"),
    (["-p", "host:=example.com"], "parameter 'host' = 'example.com'"),
    (["-p", "max_connections:=0"], "parameter 'max_connections' = 0"),
    (["-p", "rate_limit_per_s:=fast"], "rate_limit_per_s"),
]


@pytest.fixture(scope="module")
def bad_parameter_starts() -> list[tuple[int, str]]:
    """web_bridge with each of BAD_PARAMETERS, all started at once (their start-ups overlap):
    exit code and output, in order."""
    return at_once(
        *(partial(run_to_exit, "web_bridge", "--ros-args", *args) for args, _ in BAD_PARAMETERS)
    )


@pytest.mark.parametrize("case", range(len(BAD_PARAMETERS)), ids=lambda i: BAD_PARAMETERS[i][1])
def test_a_bad_parameter_stops_the_node_with_one_line_and_exit_2(
    bad_parameter_starts, case: int
) -> None:
    code, output = bad_parameter_starts[case]
    assert code == 2, output
    fatal = [line for line in output.splitlines() if "FATAL" in line]
    assert len(fatal) == 1, output
    assert BAD_PARAMETERS[case][1] in fatal[0]
    assert "Traceback" not in output


def test_a_port_in_use_stops_the_node_with_exit_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = run_to_exit("web_bridge", "--ros-args", "-p", f"port:={port}")
    assert code == 1, output
    assert f"cannot listen on 127.0.0.1:{port}" in output
    assert "Traceback" not in output


def test_bringup_starts_the_bridge_in_its_namespace() -> None:
    """`bringup` runs web_bridge by default; in a namespace, relative names are that arm's."""
    lines: list[str] = []
    process = start_node_process(
        installed_executable("bringup"), "--namespace", "bridged", "--web-port", "0"
    )
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()

    def url() -> str | None:
        # The page's address says the arm's namespace (its topics are named with it).
        found = (
            re.search(r"page at (http://127\.0\.0\.1:\d+/)\?ns=/bridged$", line.strip())
            for line in lines
        )
        return next((match.group(1) for match in found if match), None)

    async def scenario(address: str) -> tuple[dict, dict, dict]:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(address + "ws") as ws,
        ):
            client = Client(ws)
            relative_call = solve_ik_call(*REACHABLE, "relative")
            relative_call["service"] = "solve_ik"  # resolved in the bridge's namespace
            # The namespace is the arm's frame prefix too (one shared /tf).
            relative_call["args"]["target"]["header"]["frame_id"] = "bridged/base_link"
            await client.send(relative_call)
            relative = await client.answer("service_response", "relative")
            # solve_ik_call names /solve_ik: another arm's service from /bridged.
            await client.send(solve_ik_call(*REACHABLE, "absolute"))
            refused = await client.status("absolute")
            await client.send({"op": "subscribe", "id": "d", "topic": "robot_description"})
            description = await client.expect(lambda m: m["op"] == "publish")
            return relative, refused, description

    try:
        address = wait_for(url, what="bringup's page URL")
        relative, refused, description = run(scenario(address))
    finally:
        os.killpg(process.pid, signal.SIGINT)
        code = process.wait(DEFAULT_TIMEOUT_S)
        reader.join(DEFAULT_TIMEOUT_S)
    assert code == 0, "".join(lines)
    assert relative["result"] is True
    assert relative["values"]["status"] == SolveIK.Response.OK
    assert "not one of this arm's services (/bridged/solve_ik" in refused["msg"]
    assert "<robot" in description["msg"]["data"]


def test_ctrl_c_during_a_move_from_the_bridge_ends_every_task() -> None:
    """A goal from the page still running at Ctrl-C: its task ends with the server, so asyncio
    has no "Task was destroyed but it is pending!" to say at exit."""
    lines: list[str] = []
    # In a namespace of its own: this module's stack serves /move_arm in the same domain, and
    # a second /move_arm is a second server of one action. Both take the goal (the stack's arm
    # moves too); the one still planning answers the result request at once with UNKNOWN, the
    # client takes that answer as the result and rclpy drops the goal's feedback callback.
    process = start_node_process(
        installed_executable("bringup"), "--namespace", "ctrl_c", "--web-port", "0"
    )
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()

    def url() -> str | None:
        found = (
            re.search(r"page at (http://127\.0\.0\.1:\d+/)\?ns=/ctrl_c$", line.strip())
            for line in lines
        )
        return next((match.group(1) for match in found if match), None)

    async def scenario(address: str) -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(address + "ws") as ws:
            client = Client(ws)
            # A slow move: still running when the process is stopped.
            slow = goal_message(0.10, 0.10, "slow", speed=0.01, feedback=True)
            await client.send({**slow, "action": "/ctrl_c/move_arm"})
            await client.answer("action_feedback", "slow")
            os.killpg(process.pid, signal.SIGINT)
            with contextlib.suppress(ConnectionError):
                while True:  # until the server closes the connection
                    await client.receive()

    try:
        run(scenario(wait_for(url, what="bringup's page URL")))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        code = process.wait(DEFAULT_TIMEOUT_S)
        reader.join(DEFAULT_TIMEOUT_S)
    output = "".join(lines)
    assert code == 0, output
    assert "Task was destroyed" not in output
    assert "Traceback" not in output
