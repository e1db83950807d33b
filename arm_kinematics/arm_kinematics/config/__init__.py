"""The arm's configuration: one YAML file (config/arm.yaml) for every node, the URDF and tools.

Pure Python (PyYAML, no ROS import). The file is a ROS 2 parameters file whose `/**` section
holds the parameters by their ROS names; `flatten_parameters` turns it into the flat
`{"joints.elbow.min_deg": -90.0, ...}` mapping that the nodes also build from their declared
parameters, and `ArmConfig.from_parameters` validates either into radians and SI units.

Degrees live only in the file (names ending in `_deg`); every attribute here is radians.

Two layouts (`layout`): `planar` (the default: every joint turns about the base z axis, in the
plane z = plane_z_m) and `spatial` (a yaw about the base z axis, 2 or 3 pitch joints in the
vertical plane it turns, an optional wrist roll; `spatial.*`). Either may carry a gripper
(`gripper.*`: a servo joint outside the kinematic chain) and servos that drive a link through a
parallelogram (`joints.<name>.servo.linkage`). docs/spatial_arms.md describes the keys.

The package, one idea a module: `model.py` (the sections as dataclasses, the choices,
`ConfigError`), `schema.py` (every parameter by ROS name: `ParameterSpec`, `parameter_spec`),
`files.py` (the package's files, a params file read flat), `reader.py` (validation),
`unknown.py` (keys no node knows: refused or warned), `workspace.py` (the `workspace.*`
section's reading) and `arm.py` (`ArmConfig`). Import the names from here.
"""

from .arm import ArmConfig
from .files import default_config_path, flatten_parameters, load_parameters_file, package_file
from .model import (
    BACKENDS,
    DEFAULT_MAX_BATCH_TARGETS,
    GRIPPER_UNITS,
    LAYOUTS,
    LINKAGES,
    SHUTDOWN_MODES,
    ConfigError,
    EnvelopeConfig,
    GripperConfig,
    HardwareConfig,
    JointConfig,
    MountConfig,
    ServoConfig,
    SpatialConfig,
    TrajectoryConfig,
)
from .schema import (
    DEFAULT_ROBOT_NAME,
    GRIPPER_END_PARAMETERS,
    GRIPPER_KIND_PARAMETERS,
    GRIPPER_UNIT_PARAMETERS,
    NODE_PARAMETERS,
    ParameterSpec,
    arm_parameters,
    node_parameter_names,
    parameter_spec,
)
from .unknown import SAFETY_SECTIONS, UnknownParameter, unknown_parameters

__all__ = [
    "BACKENDS",
    "DEFAULT_MAX_BATCH_TARGETS",
    "DEFAULT_ROBOT_NAME",
    "GRIPPER_END_PARAMETERS",
    "GRIPPER_KIND_PARAMETERS",
    "GRIPPER_UNITS",
    "GRIPPER_UNIT_PARAMETERS",
    "LAYOUTS",
    "LINKAGES",
    "NODE_PARAMETERS",
    "SAFETY_SECTIONS",
    "SHUTDOWN_MODES",
    "ArmConfig",
    "ConfigError",
    "EnvelopeConfig",
    "GripperConfig",
    "HardwareConfig",
    "JointConfig",
    "MountConfig",
    "ParameterSpec",
    "ServoConfig",
    "SpatialConfig",
    "TrajectoryConfig",
    "UnknownParameter",
    "arm_parameters",
    "default_config_path",
    "flatten_parameters",
    "load_parameters_file",
    "node_parameter_names",
    "package_file",
    "parameter_spec",
    "unknown_parameters",
]
