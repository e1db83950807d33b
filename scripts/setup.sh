#!/usr/bin/env bash
# Idempotent set-up of the workspace on a fresh machine: .venv with pinned ROS 2 Jazzy wheels
# from PyPI, the wheels' cmake-path repair (inside .venv only), then `colcon build`.
# A second run with nothing changed only checks stamps (well under a second): no pip, no colcon.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# One set-up at a time per checkout (parallel `make test` runs share .venv and build/).
exec 9>"$root/.setup.lock"
flock 9
venv="$root/.venv"
python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null || python=python3

log() { printf '[setup] %s\n' "$*" >&2; }

if [ ! -x "$venv/bin/python" ]; then
  log "creating $venv with $($python --version)"
  "$python" -m venv "$venv"
fi
py="$venv/bin/python"

# 1. Pinned packages; re-installed only when the requirement files change.
stamp="$venv/.requirements.sha256"
want="$(cat requirements.txt constraints.txt | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "installing pinned requirements (about a minute on a fresh machine)"
  "$py" -m pip install --quiet --disable-pip-version-check --upgrade "pip==26.3" 2>&1 | grep -v '^WARNING: Location' >&2 || true
  "$py" -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt 2>&1 \
    | grep -v '^WARNING: Location' >&2 || true
  "$py" -m pip check >/dev/null 2>&1 || log "pip check reports unmet metadata of the ros wheels (known, harmless)"
  "$py" -c 'import rclpy, numpy, transforms3d, adafruit_servokit, xacro, hypothesis, playwright' \
    || { log "the pinned packages did not install; see the pip output above"; exit 1; }
  # 2. The ros wheels' cmake exports name the wheel build machine's paths; point them at this
  #    venv (after every install: pip may have put the original files back).
  "$py" "$root/scripts/fix_cmake_paths.py" "$venv"
  echo "$want" > "$stamp"
fi

# Debian's Chromium for the page's browser tests and benchmark: Playwright drives it through
# executable_path, and cannot download a browser of its own here.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    log "installing Debian's chromium (the page's browser tests)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
  else
    log "Debian's chromium is missing and this is not root: run 'sudo apt-get install -y chromium'"
    exit 1
  fi
fi

# 3. Build the two packages, and pypi_route's control_msgs and moveit_msgs: the interfaces of
#    those packages that the nodes serve, which PyPI lacks. pypi_route/COLCON_IGNORE hides them
#    from a ROS workspace's colcon and rosdep (there the real packages come through their rosdep
#    keys), so they are named here by their own paths. Nothing is built when nothing they are built from changed since the
#    last build: their files (any of them: a new page file or console script needs the build, an
#    edited module does not but costs only the build's seconds; not caches such as
#    .pytest_cache or __pycache__), the pinned set, and this script. `make clean` removes
#    install/ and the stamps. Such a copy changes only with its own files or the ROS wheels:
#    when neither did, colcon skips it (its no-op cmake build and install would double the
#    seconds of this step).
stand_ins=(control_msgs moveit_msgs)
build_stamp="$root/install/.sources.sha256"
sources="$(
  {
    find arm_kinematics arm_kinematics_interfaces pypi_route \
      \( -name '.*' -o -name __pycache__ -o -name '*.egg-info' \) -prune -o -type f -print0 \
      | sort -z | xargs -0 sha256sum
    echo "$want"
    sha256sum scripts/setup.sh
  } | sha256sum | cut -d' ' -f1
)"
if [ -d "$root/build" ] && [ "$(cat "$build_stamp" 2>/dev/null)" = "$sources" ]; then
  exit 0
fi
stand_in_want() {
  (cd "$root/pypi_route/$1" && { find . -type f -print0 | sort -z | xargs -0 sha256sum; echo "$want"; } | sha256sum | cut -d' ' -f1)
}
skip=()
paths=()
for name in "${stand_ins[@]}"; do
  paths+=("$root/pypi_route/$name")
  if [ "$(cat "$root/install/$name/.pypi_route.sha256" 2>/dev/null)" = "$(stand_in_want "$name")" ]; then
    skip+=(--packages-skip "$name")
  fi
done
# shellcheck source=scripts/env.sh
source "$root/scripts/env.sh" --no-install
log "colcon build"
# The venv is on AMENT_PREFIX_PATH for the ROS wheels it holds, but it is no colcon install
# (no local_setup.* to source): colcon's extension that reads AMENT_PREFIX_PATH as underlays
# has nothing to do there and would only warn that it "doesn't contain any 'local_setup.*'
# files". The build sees the venv's packages through the environment env.sh sets.
COLCON_EXTENSION_BLOCKLIST=colcon_core.prefix_path.ament \
  colcon --log-base "$root/log" build --base-paths "$root" "${paths[@]}" "${skip[@]}" \
  --build-base "$root/build" --install-base "$root/install" --symlink-install \
  --event-handlers console_direct- console_stderr- status- summary+ \
  --cmake-args -DPython3_EXECUTABLE="$py" -DBUILD_TESTING=OFF -Wno-dev >&2
for name in "${stand_ins[@]}"; do
  stand_in_want "$name" > "$root/install/$name/.pypi_route.sha256"
done
echo "$sources" > "$build_stamp"
