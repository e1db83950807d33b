# The README's two commands: `make run` (the stack on its simulated default) and `make test`.
# Both set the workspace up first (scripts/setup.sh is idempotent: seconds when nothing changed).
SHELL := /bin/bash
ENV := source scripts/env.sh
PYTEST_ARGS ?=
TEST_WORKERS ?= 3

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
	$(ENV) && ARM_KINEMATICS_REQUIRE_PIP_ONLY=1 python -m pytest arm_kinematics/test -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

bench: setup
	$(ENV) && for b in bench/bench_*.py; do echo "== $$b"; python "$$b" || exit 1; done

clean:
	rm -rf build install log
