#!/usr/bin/env bash
# What `make run` starts, in the environment of scripts/env.sh. Grows with the stack: until the
# nodes exist it prints a tour of the kinematics core.
set -euo pipefail
exec kinematics_tour "$@"
