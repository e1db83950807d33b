#!/usr/bin/env bash
# What `make run` starts, in the environment of scripts/env.sh: the whole stack (hardware node on
# the simulated backend, IK node, trajectory node, robot_description, and web_bridge: the page)
# in one process, until Ctrl-C.
# Extra arguments go to `bringup` (e.g. `make run ARGS="--namespace left_arm"`).
set -euo pipefail
cat >&2 <<'TXT'
[run] starting the arm (simulated servos). Open the page: http://127.0.0.1:8080/
[run]   (web_bridge logs the exact URL below; --web-port N or --no-web change it)
[run] In another shell, `source scripts/env.sh`, then try:
[run]   ik_client solve 0.12 0.05            # IK with both elbows
[run]   ik_client fk --joints 30 45          # FK (degrees at the command line)
[run]   move_arm 0.10 0.10                   # straight-line move, feedback and result
[run] Ctrl-C stops it (servos released, exit 0).
TXT
exec bringup "$@"
