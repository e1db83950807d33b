#!/usr/bin/env bash
# What `make run` starts, in the environment of scripts/env.sh: the whole stack (hardware node on
# the simulated backend, IK node, trajectory node, robot_description, and web_bridge: the page)
# in one process, until Ctrl-C.
# Extra arguments go to `bringup` (e.g. `make run ARGS="--namespace left_arm"`).
set -euo pipefail
cat >&2 <<'TXT'
[run] starting the arm (simulated servos); the page's address follows once it is served.
[run] In another shell, `source scripts/env.sh`, then try:
[run]   ik_client solve 0.12 0.05            # IK with both elbows
[run]   ik_client fk --joints 30 45          # FK (degrees at the command line)
[run]   move_arm 0.10 0.10                   # straight-line move, feedback and result
[run] A spatial arm (make run ARGS="--config FILE" with layout: spatial) takes 3D targets:
[run]   move_arm 0.15 0.05 --z 0.10 --pitch -30 --config FILE
[run]   gripper open                         # the gripper of an arm that has one
[run] Ctrl-C stops it (servos released, exit 0).
TXT
# bringup's output passes through unchanged; when web_bridge logs the address it serves
# ("page at http://...", the port of --web-port, the token of a LAN bind), it is said once more
# where it cannot be missed. The reader ignores Ctrl-C: it must read bringup's shutdown lines
# to the end, or bringup would write them into a closed pipe.
bringup "$@" 2>&1 | {
  trap '' INT
  while IFS= read -r line; do
    printf '%s\n' "$line"
    case "$line" in
      *"[web_bridge]: page at http"*)
        url="${line#*page at }"
        printf '[run] open the page: %s\n' "${url%% *}"
        ;;
    esac
  done
}
exit "${PIPESTATUS[0]}"
