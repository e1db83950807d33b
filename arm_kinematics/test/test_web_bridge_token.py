"""web_bridge on a network address: every client needs the token (docs/web_bridge.md, "The page
on the LAN").

`bringup --web-host 0.0.0.0` runs in a process of its own, as a user starts it; every request
of these tests goes to a loopback address only (127.0.0.1, or 127.0.0.9 as a second peer:
all of 127.0.0.0/8 is this machine), never to the network. A 0.0.0.0 bind listens on loopback
too, and its clients there need the token like any other. The loopback bind without a token
is test_web_bridge_protocol.py's (test_a_loopback_bind_needs_no_token).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import stat
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from ros_helpers import (
    DEFAULT_TIMEOUT_S,
    at_once,
    installed_executable,
    run_to_exit,
    start_node_process,
    stop_process,
    wait_for,
)

from arm_kinematics.bridge.auth import WRONG_TOKEN_BURST, WRONG_TOKEN_RATE_PER_S, cookie_name
from arm_kinematics.bridge.security import lan_address, machine_addresses
from arm_kinematics_interfaces.srv import SolveIK

pytestmark = pytest.mark.ros

TOKEN_URL = re.compile(r"page at http://(?P<host>[^/\s]+):(?P<port>\d+)/\?token=(?P<token>\S+) ")
OTHER_PEER = "127.0.0.9"  # a second loopback address: a peer of its own for the rate limit
WRONG_TRIES = 100


class LanBridge:
    """A bringup process whose web_bridge is bound to 0.0.0.0; its output kept."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.process = start_node_process(
            installed_executable("bringup"),
            "--web-host",
            "0.0.0.0",
            "--web-port",
            "0",
            "--ros-args",
            "-p",
            "web_bridge:allowed_hosts:=[armpi]",
        )
        threading.Thread(target=self._read, daemon=True).start()
        match = wait_for(self._token_line, what="the URL with the token in bringup's output")
        self.printed_host = match["host"]
        self.port = int(match["port"])
        self.token = match["token"]
        self.base = f"http://127.0.0.1:{self.port}"

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def _token_line(self) -> re.Match | None:
        if self.process.poll() is not None:
            raise AssertionError(f"bringup exited:\n{''.join(self.lines)}")
        return next(filter(None, (TOKEN_URL.search(line) for line in self.lines)), None)

    def output(self) -> str:
        return "".join(self.lines)


@pytest.fixture(scope="module")
def lan() -> Iterator[LanBridge]:
    bridge = LanBridge()
    try:
        yield bridge
    finally:
        code, _ = stop_process(bridge.process)
        assert code == 0, bridge.output()


def run(scenario: Any) -> Any:
    return asyncio.run(asyncio.wait_for(scenario, timeout=4 * DEFAULT_TIMEOUT_S))


def session(peer: str = "127.0.0.1", **kwargs: Any) -> aiohttp.ClientSession:
    """A client whose connections leave from `peer` (a loopback address) and that keeps
    cookies of IP hosts (aiohttp's jar refuses them unless `unsafe`)."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(local_addr=(peer, 0)),
        cookie_jar=aiohttp.CookieJar(unsafe=True),
        **kwargs,
    )


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def solve_through(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    """One solve_ik call on an open WebSocket: its service_response."""
    target = {"header": {"frame_id": "base_link"}, "pose": {"position": {"x": 0.12, "y": 0.05}}}
    await ws.send_str(
        json.dumps(
            {"op": "call_service", "id": 1, "service": "/solve_ik", "args": {"target": target}}
        )
    )
    while True:
        message = json.loads((await ws.receive(timeout=DEFAULT_TIMEOUT_S)).data)
        if message["op"] == "service_response":
            return message


async def handshake_status(client: aiohttp.ClientSession, url: str, **kwargs: Any) -> int:
    """101 when the WebSocket opens, else the HTTP status of the refusal."""
    try:
        async with client.ws_connect(url, **kwargs):
            return 101
    except aiohttp.WSServerHandshakeError as error:
        return error.status


def test_the_url_with_the_token_is_printed_once_with_the_lan_address(lan: LanBridge) -> None:
    assert lan.printed_host == lan_address("0.0.0.0", machine_addresses())
    assert len(lan.token) >= 43  # secrets.token_urlsafe(32)
    assert sum(lan.token in line for line in lan.lines) == 1
    warning = next(line for line in lan.lines if "WARN" in line and "binding 0.0.0.0" in line)
    assert "every client must show the token" in warning
    assert "No TLS" in warning


def test_without_the_token_nothing_is_served(lan: LanBridge) -> None:
    async def scenario() -> tuple[list[int], int, int]:
        async with session() as client:
            statuses = []
            for path in ("/", "/index.html", "/app.js", "/style.css", "/ws", "/missing"):
                async with client.get(lan.base + path, allow_redirects=False) as response:
                    statuses.append(response.status)
                    assert "<html" not in (await response.text()).lower()
            websocket = await handshake_status(client, lan.base + "/ws")
            # A browser page on our own origin, without the cookie: refused as well.
            own_origin = await handshake_status(
                client, lan.base + "/ws", origin=f"http://127.0.0.1:{lan.port}"
            )
        return statuses, websocket, own_origin

    statuses, websocket, own_origin = run(scenario())
    assert statuses == [401] * 6
    assert websocket == 401
    assert own_origin == 401


def test_the_token_url_sets_the_cookie_and_redirects_without_the_token(lan: LanBridge) -> None:
    async def scenario() -> tuple[aiohttp.ClientResponse, int, str, int, dict]:
        async with session() as client:
            first = f"{lan.base}/?ns=/left_arm&token={lan.token}"
            async with client.get(first, allow_redirects=False) as redirect:
                pass
            assert redirect.status == 303
            # What a browser then does: the same URL without the token, with the cookie.
            async with client.get(lan.base + redirect.headers["Location"]) as page:
                page_status, page_text = page.status, await page.text()
            async with client.get(lan.base + "/app.js") as script:
                script_status = script.status
            async with client.ws_connect(
                lan.base + "/ws", origin=f"http://127.0.0.1:{lan.port}"
            ) as ws:
                answer = await solve_through(ws)
        return redirect, page_status, page_text, script_status, answer

    redirect, page_status, page_text, script_status, answer = run(scenario())
    assert redirect.headers["Location"] == "/?ns=/left_arm"
    cookie = redirect.cookies[cookie_name(lan.port)]
    assert cookie.value == lan.token
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert cookie["path"] == "/"
    assert redirect.headers["Referrer-Policy"] == "no-referrer"
    assert page_status == 200
    assert "<html" in page_text.lower()
    assert script_status == 200
    assert answer["result"] is True
    assert answer["values"]["status"] == SolveIK.Response.OK


def test_programs_pass_the_token_in_a_header_or_in_the_websocket_url(lan: LanBridge) -> None:
    async def scenario() -> tuple[int, dict, dict]:
        async with session() as client:
            async with client.get(lan.base + "/", headers=bearer(lan.token)) as page:
                status = page.status
            async with client.ws_connect(lan.base + "/ws", headers=bearer(lan.token)) as ws:
                by_header = await solve_through(ws)
            async with client.ws_connect(f"{lan.base}/ws?token={lan.token}") as ws:
                by_url = await solve_through(ws)
            assert not client.cookie_jar.filter_cookies(lan.base)  # no cookie was needed
        return status, by_header, by_url

    status, by_header, by_url = run(scenario())
    assert status == 200
    assert by_header["result"] is True
    assert by_url["result"] is True


def test_a_foreign_origin_is_refused_even_with_the_token(lan: LanBridge) -> None:
    async def scenario() -> tuple[int, int, int]:
        async with session() as client:
            websocket = await handshake_status(
                client, lan.base + "/ws", origin="http://evil.example", headers=bearer(lan.token)
            )
            headers = {"Origin": "http://evil.example", **bearer(lan.token)}
            async with client.get(lan.base + "/", headers=headers) as response:
                page = response.status
            own = await handshake_status(
                client,
                lan.base + "/ws",
                origin=f"http://127.0.0.1:{lan.port}",
                headers=bearer(lan.token),
            )
        return websocket, page, own

    assert run(scenario()) == (403, 403, 101)


def test_the_machines_own_addresses_and_allowed_hosts_are_admitted_as_host_others_not(
    lan: LanBridge,
) -> None:
    """Only the Host header names them: every request still goes to 127.0.0.1."""

    async def status_for(client: aiohttp.ClientSession, host: str) -> int:
        headers = {"Host": host, **bearer(lan.token)}
        async with client.get(lan.base + "/", headers=headers) as response:
            return response.status

    async def scenario() -> tuple[dict[str, int], dict[str, int]]:
        ours = [f"[{a}]" if ":" in a else a for a in machine_addresses()]
        others = ["evil.example", "198.51.100.7"]  # a documentation address: not this machine
        async with session() as client:
            admitted = {h: await status_for(client, f"{h}:{lan.port}") for h in ours}
            # allowed_hosts: with the port, and without (as a reverse proxy on 443 sends it).
            admitted["armpi"] = await status_for(client, f"armpi:{lan.port}")
            admitted["armpi via a proxy"] = await status_for(client, "armpi")
            refused = {h: await status_for(client, f"{h}:{lan.port}") for h in others}
            refused["127.0.0.1 on another port"] = await status_for(client, "127.0.0.1:1")
        return admitted, refused

    admitted, refused = run(scenario())
    assert "127.0.0.1" in admitted
    assert set(admitted.values()) == {200}, admitted
    assert set(refused.values()) == {421}, refused


def test_wrong_tokens_are_rate_limited_per_peer_and_logged_with_the_peer(lan: LanBridge) -> None:
    async def scenario() -> tuple[list[int], float, int, int]:
        async with session(OTHER_PEER) as attacker, session() as user:
            start = time.monotonic()
            statuses = []
            for attempt in range(WRONG_TRIES):
                headers = bearer(f"guess-{attempt}-{lan.token[:8]}")
                async with attacker.get(lan.base + "/", headers=headers) as response:
                    statuses.append(response.status)
            elapsed = time.monotonic() - start
            # The right token from the limited peer is not even compared...
            async with attacker.get(lan.base + "/", headers=bearer(lan.token)) as response:
                limited = response.status
            # ...while another peer is served.
            async with user.get(lan.base + "/", headers=bearer(lan.token)) as response:
                other = response.status
        return statuses, elapsed, limited, other

    statuses, elapsed, limited, other = run(scenario())
    assert statuses[:WRONG_TOKEN_BURST] == [401] * WRONG_TOKEN_BURST
    assert set(statuses) == {401, 429}
    # Beyond the burst, one more try per 1 / WRONG_TOKEN_RATE_PER_S seconds (and the rest 429).
    refilled = math.floor(elapsed * WRONG_TOKEN_RATE_PER_S) + 1
    assert statuses.count(401) <= WRONG_TOKEN_BURST + refilled, (elapsed, statuses)
    assert limited == 429
    assert other == 200

    counted_lines = re.compile(
        rf"refused (a request|(?P<count>\d+) more requests) with (?P<what>.+) from "
        rf"{re.escape(OTHER_PEER)}( in the last|$)"
    )

    def refusals() -> dict[str, int] | None:
        counts: dict[str, int] = {}
        for line in lan.lines:
            if match := counted_lines.search(line.strip()):
                what = match["what"]
                counts[what] = counts.get(what, 0) + int(match["count"] or 1)
        total = sum(counts.values())
        return counts if total == WRONG_TRIES + 1 else None

    counts = wait_for(refusals, what="every refusal of the peer counted in the log")
    assert counts == {
        "a wrong token": statuses.count(401),
        "a token after too many wrong ones (429)": statuses.count(429) + 1,
    }
    peer_lines = [line for line in lan.lines if OTHER_PEER in line]
    # 101 refusals, a handful of lines: per kind, the first at once, then one per interval.
    assert len(peer_lines) <= 2 * (2 + math.ceil(elapsed / 5.0)), peer_lines
    assert all("WARN" in line for line in peer_lines)
    assert sum(lan.token in line for line in lan.lines) == 1  # never logged again


# --- token_file and require_token, on web_bridge alone -----------------------------------------


def web_bridge(*parameters: str) -> tuple[Any, list[str]]:
    lines: list[str] = []
    arguments = ["--ros-args", "-p", "port:=0"]
    for parameter in parameters:
        arguments += ["-p", parameter]
    process = start_node_process(installed_executable("web_bridge"), *arguments)
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


def failed_start(*parameters: str) -> tuple[int, str]:
    """web_bridge with these parameters, expected to stop by itself: exit code, output."""
    arguments = ["--ros-args", "-p", "port:=0"]
    for parameter in parameters:
        arguments += ["-p", parameter]
    return run_to_exit("web_bridge", *arguments)


def token_file(folder: Path, text: str, mode: int) -> Path:
    path = folder / "token"
    path.write_text(text)
    os.chmod(path, mode)
    return path


UNUSABLE_TOKEN_FILES = [  # (its text or None for no file, its mode, the error named)
    ("s3cret-token-of-the-arm-1234567890", 0o644, "mode 0644 lets group or others read"),
    ("s3cret-token-of-the-arm-1234567890", 0o620, "mode 0620 lets group or others"),
    ("", 0o600, "empty"),
    ("short", 0o600, "5 characters, at least 16"),
    (None, 0o600, "No such file or directory"),
]


@pytest.fixture(scope="module")
def unusable_token_file_starts(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[tuple[str | None, int], tuple[Path, int, str]]:
    """web_bridge on each of UNUSABLE_TOKEN_FILES, all started at once (their start-ups
    overlap): (the file, exit code, output) by (text, mode)."""
    paths = []
    for text, mode, _ in UNUSABLE_TOKEN_FILES:
        folder = tmp_path_factory.mktemp("token")
        paths.append(folder / "token" if text is None else token_file(folder, text, mode))
    starts = at_once(
        *(partial(failed_start, "host:=0.0.0.0", f"token_file:={path}") for path in paths)
    )
    return {
        (text, mode): (path, *start)
        for (text, mode, _), path, start in zip(UNUSABLE_TOKEN_FILES, paths, starts, strict=True)
    }


@pytest.mark.parametrize(("text", "mode", "error"), UNUSABLE_TOKEN_FILES)
def test_an_unusable_token_file_stops_the_node_with_one_line_and_exit_2(
    unusable_token_file_starts, text: str | None, mode: int, error: str
) -> None:
    path, code, output = unusable_token_file_starts[text, mode]
    assert code == 2, output
    fatal = [line for line in output.splitlines() if "FATAL" in line]
    assert len(fatal) == 1, output
    assert f"token_file '{path}'" in fatal[0]
    assert error in fatal[0]
    assert "Traceback" not in output


def test_a_token_file_is_used_and_not_printed(tmp_path: Path) -> None:
    secret = "s3cret-token-of-the-arm-1234567890"
    path = token_file(tmp_path, secret + "\n", stat.S_IRUSR | stat.S_IWUSR)
    process, lines = web_bridge("host:=0.0.0.0", f"token_file:={path}")

    def port() -> int | None:
        if process.poll() is not None:
            raise AssertionError("".join(lines))
        found = (
            re.search(r"page at http://\S+:(\d+)/ \(every client needs the token in", x)
            for x in lines
        )
        return next((int(m.group(1)) for m in found if m), None)

    async def scenario(base: str) -> tuple[int, int]:
        async with session() as client:
            async with client.get(base + "/", headers=bearer(secret)) as response:
                right = response.status
            async with client.get(base + "/", headers=bearer(secret[:-1])) as response:
                wrong = response.status
        return right, wrong

    try:
        number = wait_for(port, what="the URL line")
        assert run(scenario(f"http://127.0.0.1:{number}")) == (200, 401)
    finally:
        code, _ = stop_process(process)
    assert code == 0, "".join(lines)
    assert not any(secret in line for line in lines)


def test_require_token_asks_for_it_on_a_loopback_bind_too() -> None:
    process, lines = web_bridge("require_token:=true")
    found = re.compile(r"page at (http://127\.0\.0\.1:\d+/)\?token=(\S+) ")

    def url_and_token() -> re.Match | None:
        if process.poll() is not None:
            raise AssertionError("".join(lines))
        return next(filter(None, (found.search(line) for line in lines)), None)

    async def scenario(base: str, token: str) -> tuple[int, int]:
        async with session() as client:
            async with client.get(base) as response:
                without = response.status
            async with client.get(base, headers=bearer(token)) as response:
                with_token = response.status
        return without, with_token

    try:
        match = wait_for(url_and_token, what="the URL line")
        assert run(scenario(match.group(1), match.group(2))) == (401, 200)
        # No network bind: no warning about one.
        assert not any("WARN" in line and "binding" in line for line in lines)
    finally:
        code, _ = stop_process(process)
    assert code == 0, "".join(lines)


def test_a_token_file_without_a_token_to_require_is_refused(tmp_path: Path) -> None:
    path = token_file(tmp_path, "s3cret-token-of-the-arm-1234567890", 0o600)
    code, output = failed_start(f"token_file:={path}")  # loopback, require_token false
    assert code == 2, output
    assert "parameter 'token_file'" in output
    assert "only when a token is required" in output
