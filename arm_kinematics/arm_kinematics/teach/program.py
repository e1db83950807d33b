"""A taught sequence's program: its text (YAML, or JSON) read and checked into steps.

    name: pick_and_place          # optional: what the log and feedback call it
    repeat: 2                     # optional: the steps this many times (1..1000), default 1
    steps:
      - name: above the part      # optional, for feedback and results
        move: joint               # joint | linear
        pose: {x_m: 0.16, y_m: 0.06, z_m: 0.10, pitch_deg: -90}
        speed_fraction: 0.5       # JOINT: a fraction (0, 1] of the joint velocity limits
      - move: linear
        to: above_box             # a named pose (or `home`)
        speed_m_s: 0.03           # LINEAR: the tool's speed
      - gripper: close            # open | close; or gripper_opening_m: 0.02 | gripper_deg: 30
      - wait_s: 0.5

A typed pose is in the arm's base frame, in metres and degrees as every file of the arm: a
planar arm's `x_m, y_m[, heading_deg]`, a spatial arm's `x_m, y_m, z_m[, pitch_deg[,
roll_deg]]` (docs/spatial_arms.md's conventions). Steps without a speed take the trajectory
node's defaults. Everything that can be checked without planning is checked here, naming the
step (and its line): keys, units, the arm's kind, the gripper and its range. Whether a pose is
reachable is the planner's to say (`nodes/teach/sequence.py`). Radians and metres inside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arm_kinematics.config import ArmConfig, GripperConfig

from .names import TeachError, checked_name, finite_number
from .yaml_text import line_of, load

LINEAR, JOINT = "linear", "joint"
MAX_REPEAT = 1000
MAX_STEPS = 1000
MAX_WAIT_S = 3600.0
PROGRAM_KEYS = ("name", "repeat", "steps")
SPEED_KEYS = {LINEAR: "speed_m_s", JOINT: "speed_fraction"}
GRIPPER_KEYS = ("gripper", "gripper_opening_m", "gripper_deg")
KIND_KEYS = {"move": ("move",), "gripper": GRIPPER_KEYS, "wait": ("wait_s",)}
STEP_KEYS = {
    "move": ("name", "move", "to", "pose", *SPEED_KEYS.values()),
    "gripper": ("name", *GRIPPER_KEYS),
    "wait": ("name", "wait_s"),
}
PLANAR_POSE = (("x_m", "y_m"), ("heading_deg",))
SPATIAL_POSE = (("x_m", "y_m", "z_m"), ("pitch_deg", "roll_deg"))


@dataclass(frozen=True)
class MoveStep:
    """A move to a named pose (`named`) or a typed one (`pose`: the planner's pose, m and rad:
    planar (x, y[, heading]), spatial (x, y, z[, pitch[, roll]])), LINEAR or JOINT; `speed`
    m/s (LINEAR) or a fraction of the joint velocity limits (JOINT), None: the default."""

    name: str
    mode: str
    named: str | None = None
    pose: tuple[float, ...] | None = None
    speed: float | None = None
    kind = "move"


@dataclass(frozen=True)
class GripperStep:
    """A GripperCommand goal to `position` (the gripper's configured unit: m between the
    fingers, or the joint's rad); `closing`: a close, which may stall on what it grips."""

    name: str
    position: float
    closing: bool = False
    kind = "gripper"


@dataclass(frozen=True)
class WaitStep:
    name: str
    seconds: float
    kind = "wait"


Step = MoveStep | GripperStep | WaitStep


@dataclass(frozen=True)
class Program:
    """A checked program: its `name`, how many times its `steps` run (`repeat`)."""

    name: str
    repeat: int
    steps: tuple[Step, ...]

    @property
    def named_poses(self) -> tuple[str, ...]:
        """The named poses its moves go to, each once, in order."""
        names = (s.named for s in self.steps if isinstance(s, MoveStep) and s.named)
        return tuple(dict.fromkeys(names))


def read_program(text: str, config: ArmConfig, default_name: str = "sequence") -> Program:
    """The program of `text` for the arm of `config`; TeachError names the first problem, its
    step and line.

    >>> from arm_kinematics.config import default_config_path
    >>> config = ArmConfig.from_file(default_config_path("arm_desk_kit.yaml"))
    >>> program = read_program('''
    ... repeat: 2
    ... steps:
    ...   - {move: joint, to: home}
    ...   - {move: linear, pose: {x_m: 0.16, y_m: 0.06, z_m: 0.05, pitch_deg: -90}}
    ...   - {gripper: close}
    ... ''', config)
    >>> program.repeat, [s.name for s in program.steps]
    (2, ['joint to home', 'linear to (0.16, 0.06, 0.05) m, pitch -90 deg', 'close the gripper'])
    >>> read_program("steps: [{move: linear, to: home, speed_fraction: 0.5}]", config)
    Traceback (most recent call last):
    ...
    arm_kinematics.teach.names.TeachError: step 1 (line 1): a linear move takes speed_m_s, not \
speed_fraction (a joint move's)
    """
    document = load(text, "the program")
    if not isinstance(document, dict):
        raise TeachError("the program must be a mapping with 'steps:' (a list of steps)")
    unknown = [key for key in document if key not in PROGRAM_KEYS]
    if unknown:
        raise TeachError(
            f"{line_of(document, unknown[0])}unknown key '{unknown[0]}' in the program "
            f"(it takes {', '.join(PROGRAM_KEYS)})"
        )
    name = document.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise TeachError(f"{line_of(document, 'name')}the program's name must be a text")
    repeat = document.get("repeat", 1)
    if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= MAX_REPEAT:
        raise TeachError(
            f"{line_of(document, 'repeat')}repeat = {repeat!r}: a whole number 1..{MAX_REPEAT}"
        )
    steps = document.get("steps")
    if not isinstance(steps, list) or not steps:
        raise TeachError("the program needs 'steps:', a list of at least one step")
    if len(steps) > MAX_STEPS:
        raise TeachError(f"{len(steps)} steps: the most is {MAX_STEPS}")
    return Program(name.strip(), repeat, tuple(_step(steps, i, config) for i in range(len(steps))))


def _step(steps: Any, index: int, config: ArmConfig) -> Step:
    entry = steps[index]
    where = f"step {index + 1}"
    lc = getattr(steps, "lc", None)
    if lc is not None and index in lc.data:
        where += f" (line {lc.item(index)[0] + 1})"
    if not isinstance(entry, dict):
        raise TeachError(f"{where}: a step is a mapping (move, gripper or wait_s), not {entry!r}")
    kinds = [kind for kind, keys in KIND_KEYS.items() if any(key in entry for key in keys)]
    if len(kinds) != 1:
        raise TeachError(
            f"{where}: give one of move (with to or pose), gripper (open, close), "
            "gripper_opening_m, gripper_deg, or wait_s"
            + (f"; it has {' and '.join(kinds)}" if kinds else "")
        )
    kind = kinds[0]
    unknown = [key for key in entry if key not in STEP_KEYS[kind]]
    if unknown:
        raise TeachError(
            f"{where}: unknown key '{unknown[0]}' in a {kind} step (it takes "
            f"{', '.join(STEP_KEYS[kind])})"
        )
    name = entry.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise TeachError(f"{where}: its name must be a text")
    try:
        if kind == "move":
            return _move(entry, name, config)
        if kind == "gripper":
            return _gripper(entry, name, config.gripper)
        seconds = finite_number(entry["wait_s"], "wait_s")
        if not 0.0 <= seconds <= MAX_WAIT_S:
            raise TeachError(f"wait_s = {seconds:g}: 0..{MAX_WAIT_S:g} s")
        return WaitStep(name or f"wait {seconds:g} s", seconds)
    except TeachError as error:
        raise TeachError(f"{where}: {error}") from None


def _move(entry: dict, name: str | None, config: ArmConfig) -> MoveStep:
    mode = entry["move"]
    if mode not in (LINEAR, JOINT):
        raise TeachError(f"move: {mode!r}: linear or joint")
    if ("to" in entry) == ("pose" in entry):
        raise TeachError("a move goes to a named pose (to: NAME) or a typed one (pose: {...})")
    other = JOINT if mode == LINEAR else LINEAR
    if SPEED_KEYS[other] in entry:
        raise TeachError(
            f"a {mode} move takes {SPEED_KEYS[mode]}, not {SPEED_KEYS[other]} (a {other} move's)"
        )
    speed = None
    if SPEED_KEYS[mode] in entry:
        speed = finite_number(entry[SPEED_KEYS[mode]], SPEED_KEYS[mode])
        if speed <= 0.0 or (mode == JOINT and speed > 1.0):
            bound = "(0, 1]" if mode == JOINT else "> 0"
            raise TeachError(f"{SPEED_KEYS[mode]} = {speed:g}: it must be {bound}")
    if "to" in entry:
        named = checked_name(entry["to"], "a named pose")
        return MoveStep(name or f"{mode} to {named}", mode, named=named, speed=speed)
    pose, words = _pose(entry["pose"], config)
    return MoveStep(name or f"{mode} to {words}", mode, pose=pose, speed=speed)


def _pose(values: Any, config: ArmConfig) -> tuple[tuple[float, ...], str]:
    """The planner's pose of a typed pose (m, rad) and its words."""
    required, angles = SPATIAL_POSE if config.layout == "spatial" else PLANAR_POSE
    allowed = required + angles
    kind = f"a {config.layout} arm's pose"
    if not isinstance(values, dict):
        raise TeachError(f"pose: {kind} is a mapping of {', '.join(allowed)}")
    unknown = [key for key in values if key not in allowed]
    missing = [key for key in required if key not in values]
    if unknown or missing:
        raise TeachError(
            f"pose: {kind} has {', '.join(required)} and optionally {', '.join(angles)}"
            + (f"; unknown {', '.join(map(str, unknown))}" if unknown else "")
            + (f"; missing {', '.join(missing)}" if missing else "")
        )
    given = [key for key in angles if key in values]
    if given and given != list(angles[: len(given)]):
        raise TeachError(f"pose: a {angles[1]} needs a {angles[0]} too")
    numbers = [finite_number(values[key], f"pose.{key}") for key in required + tuple(given)]
    words = "(" + ", ".join(f"{v:g}" for v in numbers[: len(required)]) + ") m"
    for key, value in zip(given, numbers[len(required) :], strict=True):
        words += f", {key.removesuffix('_deg')} {value:g} deg"
    pose = tuple(numbers[: len(required)]) + tuple(
        math.radians(v) for v in numbers[len(required) :]
    )
    return pose, words


def _gripper(entry: dict, name: str | None, gripper: GripperConfig | None) -> GripperStep:
    if gripper is None:
        raise TeachError("this arm has no gripper (its params file's gripper.joint is empty)")
    keys = [key for key in GRIPPER_KEYS if key in entry]
    if len(keys) != 1:
        raise TeachError(f"give one of {', '.join(GRIPPER_KEYS)}, not {' and '.join(keys)}")
    key = keys[0]
    if key == "gripper":
        command = entry[key]
        if command not in ("open", "close"):
            raise TeachError(
                f"gripper: {command!r}: open or close (or gripper_opening_m, gripper_deg)"
            )
        closing = command == "close"
        position = gripper.closed_position if closing else gripper.open_position
        return GripperStep(name or f"{command} the gripper", position, closing)
    value = finite_number(entry[key], key)
    if key == "gripper_deg":
        position, words = gripper.position(math.radians(value)), f"{value:g} deg"
    elif gripper.position_unit != "opening_m":
        raise TeachError(
            "gripper_opening_m: this gripper's opening is not configured (gripper.position_unit "
            "is angle_rad): give gripper_deg"
        )
    else:
        position, words = value, f"{value:g} m"
    low, high = gripper.position_limits
    if not low - 1e-9 <= position <= high + 1e-9:
        raise TeachError(
            f"{key} = {value:g} is outside the gripper's range [{low:g}, {high:g}] "
            f"{gripper.unit_words} (closed..open)"
        )
    return GripperStep(name or f"gripper to {words}", position)
