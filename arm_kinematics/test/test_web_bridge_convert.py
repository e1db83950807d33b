"""web_bridge's ROS-graph-free half: message <-> JSON, the protocol, the allow-list, the checks.

No node and no graph here: the message classes are used as data, as the bridge uses them.
"""

from __future__ import annotations

import base64
import json
import math

import pytest
from builtin_interfaces.msg import Duration, Time
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, PoseStamped
from manual_clock import ManualLoop
from sensor_msgs.msg import JointState
from std_msgs.msg import ByteMultiArray, String, UInt8MultiArray
from unique_identifier_msgs.msg import UUID
from visualization_msgs.msg import Marker, MarkerArray

from arm_kinematics.bridge import protocol
from arm_kinematics.bridge.allowlist import AllowList, resolve
from arm_kinematics.bridge.convert import ConversionError, from_json, to_json, type_name
from arm_kinematics.bridge.protocol import ProtocolError, decode, parse_request
from arm_kinematics.bridge.ratelimit import TokenBucket
from arm_kinematics.bridge.security import (
    BridgeSettings,
    allowed_hosts,
    host_allowed,
    origin_allowed,
)
from arm_kinematics.bridge.throttle import Throttle
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch

# --- message -> JSON ---------------------------------------------------------------------------


def test_nested_messages_and_sequences_go_out_as_plain_json() -> None:
    state = JointState(name=["shoulder", "elbow"], position=[0.5, -0.25])
    state.header.stamp = Time(sec=12, nanosec=345)
    state.header.frame_id = "base_link"
    out = to_json(state)
    assert out == {
        "header": {"stamp": {"sec": 12, "nanosec": 345}, "frame_id": "base_link"},
        "name": ["shoulder", "elbow"],
        "position": [0.5, -0.25],
        "velocity": [],
        "effort": [],
    }
    json.dumps(out, allow_nan=False)  # plain Python values only


def test_nan_rows_of_a_batch_answer_become_null_and_uint8_sequences_base64() -> None:
    response = SolveIKBatch.Response(
        statuses=[0, 2, 6], positions=[0.1, 0.2, math.nan, math.nan, -math.inf, 0.3]
    )
    out = to_json(response)
    assert out["positions"] == [0.1, 0.2, None, None, None, 0.3]
    # rosbridge sends uint8[] as base64, and so do we.
    assert base64.b64decode(out["statuses"]) == bytes([0, 2, 6])
    assert protocol.encode(out)  # valid JSON: no NaN token


def test_fixed_uint8_arrays_octet_sequences_and_durations() -> None:
    assert to_json(UUID(uuid=list(range(16)))) == {
        "uuid": base64.b64encode(bytes(range(16))).decode()
    }
    assert to_json(ByteMultiArray(data=[b"\x01", b"\xff"]))["data"] == "Af8="
    marker = Marker(lifetime=Duration(sec=3, nanosec=7))
    assert to_json(marker)["lifetime"] == {"sec": 3, "nanosec": 7}
    # A nested array of messages, each converted by the same rules.
    markers = to_json(MarkerArray(markers=[marker, Marker(id=4)]))
    assert [m["id"] for m in markers["markers"]] == [0, 4]


def test_type_names() -> None:
    assert type_name(SolveIK) == "arm_kinematics_interfaces/srv/SolveIK"
    assert type_name(MoveArm) == "arm_kinematics_interfaces/action/MoveArm"
    assert type_name(DiagnosticArray) == "diagnostic_msgs/msg/DiagnosticArray"


# --- JSON -> message ---------------------------------------------------------------------------


def test_a_solve_ik_request_from_json() -> None:
    request = from_json(
        SolveIK.Request,
        {
            "target": {"header": {"frame_id": "base_link"}, "pose": {"position": {"x": 0.1}}},
            "branch": 1,
            "seed": {"name": ["shoulder", "elbow"], "position": [1, -0.5]},
        },
    )
    assert request.target.header.frame_id == "base_link"
    assert request.target.pose.position.x == 0.1
    assert request.target.pose.orientation.w == 1.0  # left out: the message's default
    assert request.branch == 1
    assert list(request.seed.position) == [1.0, -0.5]


def test_uint8_sequences_come_in_as_base64_or_a_list() -> None:
    assert list(from_json(UInt8MultiArray, {"data": "AQL/"}).data) == [1, 2, 255]
    assert list(from_json(UInt8MultiArray, {"data": [1, 2, 255]}).data) == [1, 2, 255]
    assert to_json(from_json(ByteMultiArray, {"data": [1, 255]}))["data"] == "Af8="
    with pytest.raises(ConversionError, match=r"field 'data\[1\]': 256 is out of range"):
        from_json(UInt8MultiArray, {"data": [1, 256]})
    with pytest.raises(ConversionError, match="'data': expected a list or a base64 string"):
        from_json(UInt8MultiArray, {"data": "not base64!"})


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        ({"target": {"pose": {"position": {"x": math.nan}}}}, "target.pose.position.x", "finite"),
        ({"target": {"pose": {"position": {"y": math.inf}}}}, "target.pose.position.y", "finite"),
        ({"branch": 256}, "branch", "out of range for uint8"),
        ({"branch": -1}, "branch", "out of range for uint8"),
        ({"branch": 1.0}, "branch", "expected an integer"),
        ({"branch": True}, "branch", "expected an integer"),
        ({"orientation_mode": True}, "orientation_mode", "expected an integer"),
        ({"target": {"pose": {"position": {"x": "0.1"}}}}, "target.pose.position.x", "number"),
        ({"target": {"pose": {"position": {"x": None}}}}, "target.pose.position.x", "null"),
        ({"target": {"header": {"frame_id": 3}}}, "target.header.frame_id", "string"),
        ({"seed": {"name": ["a", 2]}}, "seed.name[1]", "string"),
        ({"seed": {"position": 0.5}}, "seed.position", "expected a list"),
        ({"seed": []}, "seed", "expected an object"),
        ({"target": {"pose": {"positon": {}}}}, "target.pose.positon", "no such field"),
        ({"target": {"header": {"stamp": {"sec": 2**31}}}}, "target.header.stamp.sec", "int32"),
    ],
)
def test_bad_values_are_refused_naming_the_field(data: dict, field: str, reason: str) -> None:
    with pytest.raises(ConversionError) as error:
        from_json(SolveIK.Request, data, "args")
    assert error.value.field == f"args.{field}"
    assert reason in error.value.reason
    assert f"'args.{field}'" in str(error.value)


def test_a_bool_is_true_or_false_only() -> None:
    with pytest.raises(ConversionError, match="expected true or false") as error:
        from_json(SolveIKBatch.Request, {"stop_on_failure": 1}, "args")
    assert error.value.field == "args.stop_on_failure"
    assert from_json(SolveIKBatch.Request, {"stop_on_failure": True}).stop_on_failure


def test_fixed_and_bounded_sizes_and_float32_range() -> None:
    with pytest.raises(ConversionError, match="exactly 16 items, got 3"):
        from_json(UUID, {"uuid": [1, 2, 3]})
    with pytest.raises(ConversionError, match="out of range for float32"):
        from_json(Marker, {"scale": {"x": 1.0}, "color": {"r": 1e39}})
    assert from_json(Marker, {"color": {"r": 0.5}}).color.r == 0.5


def test_a_published_message_without_a_header_stamp_gets_the_current_time() -> None:
    now = Time(sec=42, nanosec=1)
    point = from_json(PointStamped, {"point": {"x": 0.1}}, stamp_now=lambda: now)
    assert point.header.stamp == now
    point = from_json(PointStamped, {"header": {"frame_id": "base_link"}}, stamp_now=lambda: now)
    assert (point.header.stamp, point.header.frame_id) == (now, "base_link")
    given = {"header": {"stamp": {"sec": 7, "nanosec": 0}}}
    assert from_json(PointStamped, given, stamp_now=lambda: now).header.stamp.sec == 7
    assert from_json(PoseStamped, {}).header.stamp.sec == 0  # only when asked (publish)


def test_round_trip_of_every_allowed_type() -> None:
    goal = MoveArm.Goal(mode=1, speed=0.25)
    goal.target.pose.position.x = 0.12
    for message in (
        goal,
        SolveIK.Request(branch=2),
        JointState(name=["a"], position=[1.0]),
        String(data="<robot/>"),
        PointStamped(),
    ):
        assert from_json(type(message), to_json(message)) == message


# --- the protocol ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "JSON object"),
        ('"subscribe"', "JSON object"),
        ('{"topic": "/joint_states"}', "string 'op'"),
        ('{"op": 3}', "string 'op'"),
        ('{"op": "publish", "id": [1]}', "'id' must be a string or an integer"),
        ('{"op": "publish", "msg": {"x": NaN}}', "field 'msg.x': NaN"),
        ('{"op": "publish", "msg": {"p": [0, Infinity]}}', "field 'msg.p[1]'"),
        ('{"op": "publish", "msg": {"x": -Infinity}}', "field 'msg.x'"),
        ('{"op": "publish", "msg": {"x": 1e999}}', "field 'msg.x'"),
        ("[" * 100_000 + "]" * 100_000, "invalid JSON"),
        (b"\xff\xfe", "invalid JSON"),
    ],
)
def test_undecodable_messages(text: str | bytes, error: str) -> None:
    with pytest.raises(ProtocolError, match=error.replace("[", r"\[")):
        decode(text)


def test_the_id_is_kept_on_errors_once_it_could_be_read() -> None:
    with pytest.raises(ProtocolError) as error:
        decode('{"op": "call_service", "id": "c7", "args": {"x": NaN}}')
    assert error.value.message_id == "c7"
    assert error.value.request["op"] == "call_service"
    with pytest.raises(ProtocolError) as error:
        parse_request(decode('{"op": "launch_missiles", "id": 12}'))
    assert error.value.message_id == 12
    assert "unknown op 'launch_missiles'" in str(error.value)


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"op": "subscribe"}, "missing field 'topic'"),
        ({"op": "subscribe", "topic": 5}, "'topic' must be a string"),
        ({"op": "subscribe", "topic": "t", "throttle_rate": "fast"}, "'throttle_rate' must be"),
        ({"op": "subscribe", "topic": "t", "throttle_rate": True}, "'throttle_rate' must be"),
        ({"op": "subscribe", "topic": "t", "queue_length": -1}, "'queue_length' must be >= 0"),
        ({"op": "subscribe", "topic": "t", "compression": "cbor"}, "compression 'cbor'"),
        ({"op": "publish", "topic": "t", "msg": [1]}, "'msg' must be an object"),
        ({"op": "advertise", "topic": "t"}, "missing field 'type'"),
        ({"op": "call_service", "service": "s", "args": 3}, "'args' must be an object or a list"),
        ({"op": "call_service", "service": "s", "timeout": -1}, "'timeout' must be > 0"),
        ({"op": "send_action_goal", "action": "a"}, "missing field 'action_type'"),
        ({"op": "send_action_goal", "action": "a", "action_type": "t", "feedback": 1}, "boolean"),
        ({"op": "cancel_action_goal", "action": "a"}, "missing field 'id'"),
        ({"op": "advertise_service", "service": "s", "type": "t"}, "unknown op"),
    ],
)
def test_wrong_fields_are_refused(message: dict, error: str) -> None:
    with pytest.raises(ProtocolError, match=error):
        parse_request(message)


def test_requests_as_roslibjs_sends_them() -> None:
    subscribe = parse_request(
        {
            "op": "subscribe",
            "id": "subscribe:/joint_states:1",
            "type": "sensor_msgs/msg/JointState",
            "topic": "/joint_states",
            "compression": "none",
            "throttle_rate": 0,
            "queue_length": 0,
        }
    )
    assert subscribe == protocol.Subscribe(
        "subscribe:/joint_states:1", "/joint_states", "sensor_msgs/msg/JointState", 0, 0
    )
    call = parse_request(
        {
            "op": "call_service",
            "id": "call_service:/solve_ik:2",
            "service": "/solve_ik",
            "type": "arm_kinematics_interfaces/srv/SolveIK",
            "args": {"branch": 1},
        }
    )
    assert (call.service, call.type, call.args, call.timeout_s) == (
        "/solve_ik",
        "arm_kinematics_interfaces/srv/SolveIK",
        {"branch": 1},
        None,
    )
    goal = parse_request(
        {
            "op": "send_action_goal",
            "id": "g",
            "action": "/move_arm",
            "action_type": "arm_kinematics_interfaces/action/MoveArm",
            "args": {},
            "feedback": True,
        }
    )
    assert goal.feedback is True


def test_refusals_answer_what_the_client_library_waits_for() -> None:
    call = {"op": "call_service", "service": "/solve_ik"}
    assert protocol.refusal(call, "no", "c1") == [
        {"op": "status", "level": "error", "msg": "no", "id": "c1"},
        {
            "op": "service_response",
            "service": "/solve_ik",
            "values": "no",
            "result": False,
            "id": "c1",
        },
    ]
    goal = {"op": "send_action_goal", "action": "/move_arm"}
    assert protocol.refusal(goal, "no", None)[1] == {
        "op": "action_result",
        "action": "/move_arm",
        "values": "no",
        "status": 0,
        "result": False,
    }
    assert protocol.refusal(None, "bad JSON", None) == [
        {"op": "status", "level": "error", "msg": "bad JSON"}
    ]


# --- the allow-list ----------------------------------------------------------------------------


def test_names_resolve_in_the_namespace() -> None:
    root = AllowList("/")
    assert root.topic("joint_states", None, publish=False).resolved == "/joint_states"
    assert root.topic("/joint_states", None, publish=False).resolved == "/joint_states"
    assert root.topic("diagnostics", None, publish=False).resolved == "/diagnostics"
    arm = AllowList("/left_arm")
    assert arm.topic("/left_arm/joint_states", None, publish=False).resolved == (
        "/left_arm/joint_states"
    )
    assert arm.topic("/diagnostics", None, publish=False).resolved == "/diagnostics"
    assert arm.action("move_arm", None).resolved == "/left_arm/move_arm"
    with pytest.raises(ProtocolError, match="not one of this arm's topics"):
        arm.topic("/joint_states", None, publish=False)  # another arm's
    assert resolve("a/b", "/ns/") == "/ns/a/b"


@pytest.mark.parametrize(
    ("kind", "name", "type_", "publish", "error"),
    [
        ("topic", "/rosout", None, False, "not one of this arm's topics"),
        ("topic", "joint_commands", None, True, "not one of this arm's topics"),
        ("topic", "joint_states", "std_msgs/msg/String", False, "has type sensor_msgs/msg/Joint"),
        ("topic", "joint_states", None, True, "read-only"),
        ("topic", "clicked_point", "geometry_msgs/msg/Point", True, "has type"),
        ("service", "/web_bridge/get_parameters", None, False, "not one of this arm's services"),
        ("service", "solve_ik", "arm_kinematics_interfaces/srv/ComputeFK", False, "has type"),
        ("action", "move_arm", "arm_kinematics_interfaces/srv/SolveIK", False, "has type"),
        ("action", "/other/move_arm", None, False, "not one of this arm's actions"),
    ],
)
def test_other_names_and_wrong_types_are_refused(
    kind: str, name: str, type_: str | None, publish: bool, error: str
) -> None:
    allowed = AllowList("/")
    if kind == "topic":
        look_up = lambda: allowed.topic(name, type_, publish=publish, message_id="x")  # noqa: E731
    else:
        look_up = lambda: getattr(allowed, kind)(name, type_, "x")  # noqa: E731
    with pytest.raises(ProtocolError, match=error) as raised:
        look_up()
    assert raised.value.message_id == "x"


def test_the_jog_topics_are_allowed_for_publishing_and_keep_only_the_newest() -> None:
    allowed = AllowList("/left_arm")
    for name in ("servo_node/delta_twist_cmds", "servo_node/delta_joint_cmds"):
        stream = allowed.topic(name, None, publish=True)
        assert stream.resolved == f"/left_arm/{name}"
        assert stream.latest_only
        with pytest.raises(ProtocolError, match="cannot be subscribed"):
            allowed.topic(name, None, publish=False)
    assert allowed.topic(
        "servo_node/delta_twist_cmds", "geometry_msgs/msg/TwistStamped", publish=True
    )
    status = allowed.topic("servo_node/status", "moveit_msgs/msg/ServoStatus", publish=False)
    assert status.latched
    with pytest.raises(ProtocolError, match="read-only"):
        allowed.topic("servo_node/status", None, publish=True)
    assert not allowed.topic("clicked_point", None, publish=True).latest_only


def test_ros1_style_type_names_are_accepted() -> None:
    allowed = AllowList("/")
    assert allowed.topic("joint_states", "sensor_msgs/JointState", publish=False)
    assert allowed.service("solve_ik", "arm_kinematics_interfaces/SolveIK")
    assert allowed.action("move_arm", "arm_kinematics_interfaces/action/MoveArm")


def test_the_teach_services_and_run_sequence_are_allowed_and_nothing_else_of_theirs() -> None:
    allowed = AllowList("/left_arm")
    teach = {
        "named_poses/save": "SaveNamedPose",
        "named_poses/list": "ListNamedPoses",
        "named_poses/delete": "DeleteNamedPose",
        "sequences/save": "SaveSequence",
        "sequences/list": "ListSequences",
        "sequences/delete": "DeleteSequence",
    }
    for name, kind in teach.items():
        service = allowed.service(name, f"arm_kinematics_interfaces/srv/{kind}")
        assert service.resolved == f"/left_arm/{name}"
        assert not service.parameters
        with pytest.raises(ProtocolError, match="has type"):
            allowed.service(name, "std_srvs/srv/Trigger")
    run = allowed.action("run_sequence", "arm_kinematics_interfaces/action/RunSequence")
    assert run.resolved == "/left_arm/run_sequence"
    with pytest.raises(ProtocolError, match="has type"):
        allowed.action("run_sequence", "arm_kinematics_interfaces/action/MoveArm")
    # Exactly these: the teach names among the services, three actions in all.
    shown = {name.removeprefix("/left_arm/") for name in allowed.services}
    assert {n for n in shown if n.startswith(("named_poses/", "sequences/"))} == set(teach)
    assert set(allowed.actions) == {
        "/left_arm/move_arm",
        "/left_arm/gripper_controller/gripper_cmd",
        "/left_arm/run_sequence",
    }
    for name in ("named_poses/rename", "sequences/run", "/named_poses/list", "sequences"):
        with pytest.raises(ProtocolError, match="not one of this arm's services"):
            allowed.service(name, None)
    with pytest.raises(ProtocolError, match="not one of this arm's actions"):
        allowed.action("/run_sequence", None)  # another arm's


# --- Host, Origin, settings ----------------------------------------------------------------------


def test_host_and_origin_checks() -> None:
    hosts = allowed_hosts("127.0.0.1", 8080)
    assert host_allowed("127.0.0.1:8080", hosts)
    assert host_allowed("LOCALHOST:8080", hosts)
    for bad in (
        None,
        "",
        "127.0.0.1",
        "127.0.0.1:8081",
        "evil.example:8080",
        "localhost.evil:8080",
    ):
        assert not host_allowed(bad, hosts), bad
    assert origin_allowed(None, hosts)  # a program, not a browser page
    assert origin_allowed("http://localhost:8080", hosts)
    for bad in (
        "null",
        "http://evil.example:8080",
        "https://127.0.0.1:8080",
        "http://127.0.0.1:8081",
        "file://",
        "http://127.0.0.1:8080/x",
    ):
        assert not origin_allowed(bad, hosts), bad
    # Another bind address only with its own name, plus the names the user allows.
    lan = allowed_hosts("0.0.0.0", 9000, ("armpi",))
    assert host_allowed("armpi:9000", lan)
    assert not host_allowed("evil:9000", lan)
    assert host_allowed("127.0.0.1:9000", lan)  # 0.0.0.0 listens on loopback too
    assert not host_allowed("192.168.1.20:9000", lan)  # only when allowed by name
    six = allowed_hosts("::1", 80)
    assert host_allowed("[::1]:80", six)
    assert host_allowed("[::1]", six)  # port 80 is left out by browsers


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"host": "example.com"}, "parameter 'host' = 'example.com'"),
        ({"host": ""}, "parameter 'host'"),
        ({"port": 70000}, "parameter 'port' = 70000"),
        ({"port": -1}, "parameter 'port'"),
        ({"allowed_hosts": ("a:1",)}, "parameter 'allowed_hosts'"),
        ({"max_connections": 0}, "parameter 'max_connections'"),
        ({"max_message_bytes": 10}, "parameter 'max_message_bytes'"),
        ({"rate_limit_per_s": 0.0}, "parameter 'rate_limit_per_s'"),
        ({"rate_limit_per_s": math.nan}, "parameter 'rate_limit_per_s'"),
        ({"rate_limit_burst": 0}, "parameter 'rate_limit_burst'"),
        ({"service_timeout_s": -1.0}, "parameter 'service_timeout_s'"),
    ],
)
def test_settings_are_validated(changes: dict, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        BridgeSettings(**changes).validate()


def test_default_settings_are_valid_and_loopback() -> None:
    settings = BridgeSettings()
    settings.validate()
    assert settings.loopback
    assert not BridgeSettings(host="0.0.0.0").loopback


# --- rate limit and throttle -------------------------------------------------------------------


def test_token_bucket_allows_the_burst_then_the_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate_per_s=10.0, burst=5, clock=lambda: now[0])
    assert [bucket.take() for _ in range(7)] == [True] * 5 + [False] * 2
    now[0] = 0.35  # 3.5 tokens back
    assert [bucket.take() for _ in range(4)] == [True] * 3 + [False]
    now[0] = 100.0  # never more than the burst
    assert sum(bucket.take() for _ in range(10)) == 5


def _run_throttle(throttle_rate_ms: int, queue_length: int, offers: list[float]) -> list[str]:
    """Offer messages at the given times (s), on a clock that moves only from one offer to the
    next; return what was sent, in order, once the queue has had time to drain."""
    loop = ManualLoop()
    sent: list[str] = []
    throttle = Throttle(sent.append, throttle_rate_ms, queue_length, loop, clock=loop.time)
    for i, at in enumerate(offers):
        loop.advance_to(at)
        throttle.offer(str(i))
    loop.advance_to(offers[-1] + (queue_length + 1) * throttle_rate_ms / 1000)
    throttle.close()
    return sent


def test_throttle_without_a_queue_drops_what_comes_within_the_window() -> None:
    sent = _run_throttle(100, 0, [0.0, 0.01, 0.02, 0.15, 0.16])
    assert sent == ["0", "3"]


def test_throttle_with_a_queue_keeps_the_newest_and_sends_them_spaced() -> None:
    sent = _run_throttle(100, 2, [0.0, 0.001, 0.002, 0.003])
    # "0" goes at once; 1, 2, 3 queue in a queue of 2: the oldest (1) is dropped.
    assert sent == ["0", "2", "3"]


def test_no_throttle_sends_everything() -> None:
    assert _run_throttle(0, 0, [0.0, 0.0, 0.0]) == ["0", "1", "2"]
