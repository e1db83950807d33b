"""Two bringups on one machine, as docs/launch_and_bringup.md starts them: each page answers
for its own arm.

The guide's two `bringup --namespace ...` lines are read from the guide; the test gives them
free ports in place of 8080 and 8081 (those may be taken on a machine that runs a demo), the
only change.
"""

from __future__ import annotations

import re
import shlex
import threading

import aiohttp
from bridge_client import REACHABLE, Client, run, solve_ik_call
from ros_helpers import (
    DEFAULT_TIMEOUT_S,
    PACKAGE_DIR,
    installed_executable,
    start_node_process,
    stop_process,
    wait_for,
)

from arm_kinematics_interfaces.srv import SolveIK

GUIDE = PACKAGE_DIR.parent / "docs" / "launch_and_bringup.md"


def guide_bringup_lines() -> list[list[str]]:
    """The arguments of the guide's two-arm `bringup --namespace` lines."""
    text = GUIDE.read_text()
    section = text[text.index("## Two arms on one machine") :]
    section = section[: section.index("\n## ", 5)]
    lines = [line.split(" #", 1)[0] for line in section.splitlines()]
    return [shlex.split(line)[1:] for line in lines if re.match(r"bringup --namespace", line)]


def test_two_bringups_as_the_guide_starts_them_each_serve_their_page() -> None:
    commands = guide_bringup_lines()
    assert len(commands) == 2, commands
    assert "--web-port" not in commands[0]  # the first arm keeps the default port
    assert commands[1][commands[1].index("--web-port") + 1] == "8081"
    processes, outputs = [], []
    for args in commands:
        if "--web-port" in args:  # the guide's 8081 becomes any free port (bringup's choice)
            at = args.index("--web-port")
            args = args[:at] + args[at + 2 :]
        args = [str(PACKAGE_DIR.parent / a) if a.endswith(".yaml") else a for a in args]
        lines: list[str] = []
        process = start_node_process(installed_executable("bringup"), *args, "--web-port", "0")
        threading.Thread(
            target=lambda p=process, out=lines: out.extend(p.stdout), daemon=True
        ).start()
        processes.append(process)
        outputs.append(lines)
    namespaces = [args[args.index("--namespace") + 1] for args in commands]

    def page_port(lines: list[str], namespace: str) -> int | None:
        wanted = rf"page at http://127\.0\.0\.1:(\d+)/\?ns=/{re.escape(namespace)}$"
        found = (re.search(wanted, line.strip()) for line in list(lines))
        return next((int(match.group(1)) for match in found if match), None)

    async def answers(port: int, namespace: str) -> tuple[int, dict]:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/?ns=/{namespace}") as page:
                status = page.status
            async with session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
                client = Client(ws)
                call = solve_ik_call(*REACHABLE, "solve")
                call["service"] = f"/{namespace}/solve_ik"
                call["args"]["target"]["header"]["frame_id"] = f"{namespace}/base_link"
                await client.send(call)
                return status, await client.answer("service_response", "solve")

    try:
        ports = [
            wait_for(
                lambda lines=lines, namespace=namespace: page_port(lines, namespace),
                what=f"{namespace}'s page URL",
            )
            for lines, namespace in zip(outputs, namespaces, strict=True)
        ]
        for port, namespace in zip(ports, namespaces, strict=True):
            status, response = run(answers(port, namespace))
            assert status == 200
            assert response["result"] is True
            assert response["values"]["status"] == SolveIK.Response.OK, response
    finally:
        codes = [stop_process(process, DEFAULT_TIMEOUT_S)[0] for process in processes]
    assert codes == [0, 0], ["".join(lines) for lines in outputs]
