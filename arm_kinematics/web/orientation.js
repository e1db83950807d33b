// What a request says of the tool's orientation (SolveIK and MoveArm alike), from the page's
// controls: the user's angles (rad) turned into the request's fields. An edge conversion, as
// degrees to radians are; the IK node solves, this only writes down what was asked.

export const POSITION_ONLY = 0; // SolveIK and MoveArm orientation_mode values
export const TOOL_ANGLE = 1;
export const FULL_ORIENTATION = 2;

// The spatial page's choices: its <select id="tool-mode"> values.
export const TOOL_MODES = ["position", "pitch", "pitch_roll"];

// A quaternion {x, y, z, w} as a product of rotations about the base axes, each [axis, angle].
function quaternionOf(...turns) {
  let q = [1, 0, 0, 0]; // w, x, y, z
  for (const [axis, angle] of turns) {
    const [s, c] = [Math.sin(angle / 2), Math.cos(angle / 2)];
    const r = [c, axis === "x" ? s : 0, axis === "y" ? s : 0, axis === "z" ? s : 0];
    q = [
      q[0] * r[0] - q[1] * r[1] - q[2] * r[2] - q[3] * r[3],
      q[0] * r[1] + q[1] * r[0] + q[2] * r[3] - q[3] * r[2],
      q[0] * r[2] - q[1] * r[3] + q[2] * r[0] + q[3] * r[1],
      q[0] * r[3] + q[1] * r[2] - q[2] * r[1] + q[3] * r[0],
    ];
  }
  return { x: q[1], y: q[2], z: q[3], w: q[0] };
}

// A planar arm: the tool heading (rad, about the base's z) as the tool angle when it is used;
// the quaternion of the heading either way (the request ignores it without FULL_ORIENTATION).
export function headingRequest(useHeading, heading) {
  return {
    orientation_mode: useHeading ? TOOL_ANGLE : POSITION_ONLY,
    tool_angle: useHeading ? heading : 0,
    orientation: quaternionOf(["z", heading]),
  };
}

// The direction of a target at (x, y) about the base's z: psi = atan2(y, x), 0 on the yaw axis.
export function targetDirection(target) {
  return Math.hypot(target.x, target.y) > 0 ? Math.atan2(target.y, target.x) : 0;
}

// The tool rotation of a spatial target in the outward convention of docs/spatial_arms.md:
// R = Rz(psi) Ry(-pitch) Rx(roll), psi the target's direction; pitch above the horizontal
// (-pi/2 straight down), roll about the tool's own x axis; rad.
export function toolQuaternion(target, pitch, roll) {
  return quaternionOf(["z", targetDirection(target)], ["y", -pitch], ["x", roll]);
}

// The tool's x axis (a unit vector in the base frame) of that rotation: where the pitch points.
export function toolDirection(target, pitch) {
  const psi = targetDirection(target);
  return [Math.cos(pitch) * Math.cos(psi), Math.cos(pitch) * Math.sin(psi), Math.sin(pitch)];
}

// A spatial arm: `tool` = {mode, pitch, roll} (rad). "position": POSITION_ONLY; "pitch":
// TOOL_ANGLE with the pitch; "pitch_roll": FULL_ORIENTATION with the rotation above.
export function spatialRequest(tool, target) {
  const orientation = toolQuaternion(target, tool.pitch, tool.mode === "pitch_roll" ? tool.roll : 0);
  if (tool.mode === "pitch") return { orientation_mode: TOOL_ANGLE, tool_angle: tool.pitch, orientation };
  if (tool.mode === "pitch_roll") return { orientation_mode: FULL_ORIENTATION, tool_angle: 0, orientation };
  return { orientation_mode: POSITION_ONLY, tool_angle: 0, orientation: { x: 0, y: 0, z: 0, w: 1 } };
}
