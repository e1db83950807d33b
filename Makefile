# The README's two commands: `make run` (the stack on its simulated default) and `make test`.
# Both set the workspace up first (scripts/setup.sh is idempotent: seconds when nothing changed).
SHELL := /bin/bash
ENV := source scripts/env.sh
PYTEST_ARGS ?=
# --reruns 2: KNOWN FLAKINESS, reported as "R"/"rerun" in pytest's summary, not hidden. A few
# timing tests of the nodes fail now and then on a loaded 2-core machine because rclpy 7.1's
# MultiThreadedExecutor can busy-loop (ros2/rclpy#1452) and stall callbacks for up to a second.
# Open in issue 4; remove this flag once the executor is fixed.

.PHONY: setup run test lint format bench clean

setup:
	bash scripts/setup.sh

run: setup
	$(ENV) && exec bash scripts/run.sh $(ARGS)

lint: setup
	$(ENV) && ruff check . && ruff format --check .

format: setup
	$(ENV) && ruff format . && ruff check --fix .

test: lint
	$(ENV) && python -m pytest arm_kinematics/test --reruns 2 $(PYTEST_ARGS)

bench: setup
	$(ENV) && for b in bench/bench_*.py; do echo "== $$b"; python "$$b" || exit 1; done

clean:
	rm -rf build install log
