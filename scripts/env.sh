# Source this file (bash) to get the workspace's environment: the venv, the ROS paths of the
# PyPI wheels and, unless --no-install is given, the built workspace (install/setup.bash).
_ak_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC1091
source "$_ak_root/.venv/bin/activate"
export AMENT_PREFIX_PATH="$VIRTUAL_ENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export CMAKE_PREFIX_PATH="$VIRTUAL_ENV${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export RMW_IMPLEMENTATION="${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}"
if [ "${1:-}" != "--no-install" ] && [ -f "$_ak_root/install/setup.bash" ]; then
  # colcon's setup scripts read unset variables.
  set +u
  # shellcheck disable=SC1091
  source "$_ak_root/install/setup.bash"
  # Where ros2 run would look; without ros2cli the console scripts are run by name from here.
  export PATH="$_ak_root/install/arm_kinematics/lib/arm_kinematics:$PATH"
fi
unset _ak_root
