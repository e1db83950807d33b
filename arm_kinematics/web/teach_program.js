// A taught sequence as the page records it: its steps are the program's own step mappings
// (teach/program.py reads them; docs/sequences.md is the format), written out as a program
// text the trajectory node reads. Nothing here plans or checks reachability: the server does,
// when the program is saved or run. Units: the program's (metres, degrees, m/s, seconds); the
// page's words say centimetres, degrees, % and cm/s.

export const LINEAR = "linear";
export const JOINT = "joint";

const round = (value, digits) => Number(value.toFixed(digits));
const MM_DIGITS = 4; // metres to 0.1 mm
const DEG_DIGITS = 2;

// The program text of `steps` (a list of step mappings) with `repeat` and an optional `name`:
// JSON, which is YAML too (the server's reader takes either), one step a line so that a
// person can read the saved file, and the page can read it back (readProgram).
export function programText(steps, repeat = 1, name = "") {
  const head = [];
  if (name) head.push(`  "name": ${JSON.stringify(name)},`);
  head.push(`  "repeat": ${JSON.stringify(repeat)},`);
  const lines = steps.map((step, i) => `    ${JSON.stringify(step)}${i < steps.length - 1 ? "," : ""}`);
  return ["{", ...head, '  "steps": [', ...lines, "  ]", "}", ""].join("\n");
}

// {name, repeat, steps} of a program text the page can edit (the JSON it writes, or any JSON
// program), or {error} for one it cannot (YAML written by hand: it runs by its name).
export function readProgram(text) {
  let document;
  try {
    document = JSON.parse(text);
  } catch {
    return { error: "it is YAML written by hand, which the page does not edit: run it by its name, or edit its file" };
  }
  const steps = document && document.steps;
  if (!Array.isArray(steps) || steps.some((s) => !s || typeof s !== "object" || Array.isArray(s))) {
    return { error: "it has no list of steps the page can show" };
  }
  return { name: typeof document.name === "string" ? document.name : "", repeat: Number.isInteger(document.repeat) ? document.repeat : 1, steps };
}

// A move step: to a named pose (`to`) or a typed `pose`, `mode` LINEAR or JOINT, `speed` as the
// page takes it (JOINT: % of the joint limits, LINEAR: cm/s; null: the node's default).
export function moveStep({ mode, to = null, pose = null, speed = null, name = "" }) {
  const step = name ? { name } : {};
  step.move = mode;
  if (to) step.to = to;
  else step.pose = pose;
  if (speed !== null) step[mode === JOINT ? "speed_fraction" : "speed_m_s"] = round(speed / 100, 6);
  return step;
}

// A gripper step: "open", "close", or a position in the gripper's unit (gripper.js: metres
// between the fingers for opening_m, the joint's radians for angle_rad).
export function gripperStep(command, unit = null, position = null, name = "") {
  const step = name ? { name } : {};
  if (command === "open" || command === "close") step.gripper = command;
  else if (unit === "opening_m") step.gripper_opening_m = round(position, MM_DIGITS);
  else step.gripper_deg = round((position * 180) / Math.PI, DEG_DIGITS);
  return step;
}

export function waitStep(seconds, name = "") {
  return { ...(name ? { name } : {}), wait_s: seconds };
}

// The tool's axes (unit vectors in the base frame) of a quaternion {x, y, z, w}.
function axes({ x, y, z, w }) {
  return {
    x: [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)],
    y: [2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)],
  };
}

// The typed pose of a tool pose (compute_fk's tip: position m, orientation in the base frame),
// in the program's keys. `arm` = {spatial, pitch, roll, heading}: which angles the arm can
// choose (a pose names only those). The inverse of orientation.js's toolQuaternion for a
// spatial arm (docs/spatial_arms.md: R = Rz(psi) Ry(-pitch) Rx(roll), psi the tool point's
// direction about z), and a planar arm's heading about z: a change of units, not a solve.
export function typedPose(tip, arm) {
  const { position, orientation } = tip;
  const axis = axes(orientation);
  const deg = (rad) => round((rad * 180) / Math.PI, DEG_DIGITS);
  const pose = { x_m: round(position.x, MM_DIGITS), y_m: round(position.y, MM_DIGITS) };
  if (!arm.spatial) {
    if (arm.heading) pose.heading_deg = deg(Math.atan2(axis.x[1], axis.x[0]));
    return pose;
  }
  pose.z_m = round(position.z, MM_DIGITS);
  if (!arm.pitch) return pose;
  const psi = Math.hypot(position.x, position.y) > 0 ? Math.atan2(position.y, position.x) : 0;
  const [c, s] = [Math.cos(psi), Math.sin(psi)];
  const outward = axis.x[0] * c + axis.x[1] * s; // the tool's x along the plane, away from the base
  const pitch = Math.atan2(axis.x[2], outward);
  pose.pitch_deg = deg(pitch);
  if (arm.roll) {
    // The tool's y axis turned back by psi: (-sin r sin p, cos r, sin r cos p).
    const [yx, yy, yz] = [axis.y[0] * c + axis.y[1] * s, -axis.y[0] * s + axis.y[1] * c, axis.y[2]];
    pose.roll_deg = deg(Math.atan2(yz * Math.cos(pitch) - yx * Math.sin(pitch), yy));
  }
  return pose;
}

// --- the page's words of a step ---------------------------------------------------------------

const cm = (m) => (m * 100).toFixed(1);

function poseWords(pose) {
  const position = ["x_m", "y_m", "z_m"].filter((k) => k in pose).map((k) => cm(pose[k]));
  let words = `(${position.join(", ")}) cm`;
  for (const key of ["heading_deg", "pitch_deg", "roll_deg"]) {
    if (key in pose) words += `, ${key.replace("_deg", "")} ${Number(pose[key]).toFixed(1)}°`;
  }
  return words;
}

// "joint to above_box at 50 %", "linear to (16.0, 6.0, 10.0) cm, pitch -90.0° at 3 cm/s",
// "close the gripper", "gripper to 20.0 mm", "wait 0.5 s"; a named step: `"name": words`.
export function stepWords(step) {
  let words;
  if ("move" in step) {
    words = `${step.move} to ${"to" in step ? step.to : poseWords(step.pose || {})}`;
    if ("speed_fraction" in step) words += ` at ${(step.speed_fraction * 100).toFixed(0)} %`;
    if ("speed_m_s" in step) words += ` at ${(step.speed_m_s * 100).toFixed(1)} cm/s`;
  } else if ("gripper" in step) words = `${step.gripper} the gripper`;
  else if ("gripper_opening_m" in step) words = `gripper to ${(step.gripper_opening_m * 1000).toFixed(1)} mm`;
  else if ("gripper_deg" in step) words = `gripper to ${Number(step.gripper_deg).toFixed(1)}°`;
  else if ("wait_s" in step) words = `wait ${step.wait_s} s`;
  else words = JSON.stringify(step);
  return step.name ? `"${step.name}": ${words}` : words;
}

// The list after moving step `index` by `by` (-1 up, +1 down); the same list at either end.
export function moved(steps, index, by) {
  const to = index + by;
  if (to < 0 || to >= steps.length) return steps;
  const out = [...steps];
  [out[index], out[to]] = [out[to], out[index]];
  return out;
}
