// The arm's kinematic chain from its URDF (robot_description), for drawing only: joint
// origins (xyz, rpy), axes and limits, composed as 4x4 transforms. Metres and radians.

function numbers(text, count) {
  const values = (text || "").trim().split(/\s+/).filter(Boolean).map(Number);
  while (values.length < count) values.push(0);
  return values;
}

// 4x4 row-major matrices as flat arrays of 16.
function multiply(a, b) {
  const out = new Array(16).fill(0);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++)
      for (let k = 0; k < 4; k++) out[r * 4 + c] += a[r * 4 + k] * b[k * 4 + c];
  return out;
}

function originTransform([x, y, z], [roll, pitch, yaw]) {
  // URDF: R = Rz(yaw) * Ry(pitch) * Rx(roll), then the translation.
  const [cr, sr, cp, sp, cy, sy] = [Math.cos(roll), Math.sin(roll), Math.cos(pitch), Math.sin(pitch), Math.cos(yaw), Math.sin(yaw)];
  return [
    cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, x,
    sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr, y,
    -sp, cp * sr, cp * cr, z,
    0, 0, 0, 1,
  ];
}

function axisRotation([ax, ay, az], angle) {
  const norm = Math.hypot(ax, ay, az) || 1;
  const [x, y, z] = [ax / norm, ay / norm, az / norm];
  const c = Math.cos(angle), s = Math.sin(angle), t = 1 - c;
  return [
    t * x * x + c, t * x * y - s * z, t * x * z + s * y, 0,
    t * x * y + s * z, t * y * y + c, t * y * z - s * x, 0,
    t * x * z - s * y, t * y * z + s * x, t * z * z + c, 0,
    0, 0, 0, 1,
  ];
}

export class ArmChain {
  // joints: from the root link to the last link, each {name, type, origin, axis, lower, upper}.
  constructor(rootLink, joints) {
    this.rootLink = rootLink;
    this.joints = joints;
    this.movable = joints.filter((j) => j.type !== "fixed");
    // Drawing scale: the sum of the distances between consecutive joint frames at zero.
    const points = this.points(new Map());
    let reach = 0;
    for (let i = 1; i < points.length; i++) reach += Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
    this.reach = reach;
    this.planeZ = joints.length ? joints[0].xyz[2] : 0; // joint 1 sits on the arm's plane
  }

  static parse(text) {
    const doc = new DOMParser().parseFromString(text, "application/xml");
    if (doc.querySelector("parsererror")) throw new Error("robot_description is not valid XML");
    const joints = [...doc.querySelectorAll("robot > joint")].map((element) => {
      const origin = element.querySelector("origin");
      const limit = element.querySelector("limit");
      const type = element.getAttribute("type");
      return {
        name: element.getAttribute("name"),
        type,
        parent: element.querySelector("parent").getAttribute("link"),
        child: element.querySelector("child").getAttribute("link"),
        xyz: numbers(origin && origin.getAttribute("xyz"), 3),
        rpy: numbers(origin && origin.getAttribute("rpy"), 3),
        axis: numbers(element.querySelector("axis") ? element.querySelector("axis").getAttribute("xyz") : "1 0 0", 3),
        lower: limit && type !== "continuous" ? Number(limit.getAttribute("lower")) : -Math.PI,
        upper: limit && type !== "continuous" ? Number(limit.getAttribute("upper")) : Math.PI,
      };
    });
    const children = new Set(joints.map((j) => j.child));
    const links = [...doc.querySelectorAll("robot > link")].map((l) => l.getAttribute("name"));
    const root = links.find((name) => !children.has(name));
    if (root === undefined) throw new Error("the URDF has no root link");
    // Follow the chain from the root (the arm is serial: one child joint per link).
    const chain = [];
    let link = root;
    for (;;) {
      const next = joints.find((j) => j.parent === link);
      if (!next) break;
      chain.push(next);
      link = next.child;
    }
    // With a mount the root is the frame the arm stands in (e.g. world): the page draws the
    // arm in its own base frame, the parent of the first moving joint (prefixed, e.g.
    // left_arm/base_link), where the IK node takes targets.
    const first = chain.findIndex((j) => j.type !== "fixed");
    const arm = first > 0 ? chain.slice(first) : chain;
    return new ArmChain(arm.length ? arm[0].parent : root, arm);
  }

  // Every joint frame's origin and the tip, base first: [{x, y, z, name}] in the root frame.
  // `positions` maps joint names to radians (missing joints at 0).
  points(positions) {
    let transform = originTransform([0, 0, 0], [0, 0, 0]);
    const out = [{ x: 0, y: 0, z: 0, name: this.rootLink }];
    for (const joint of this.joints) {
      transform = multiply(transform, originTransform(joint.xyz, joint.rpy));
      if (joint.type !== "fixed") transform = multiply(transform, axisRotation(joint.axis, positions.get(joint.name) || 0));
      out.push({ x: transform[3], y: transform[7], z: transform[11], name: joint.child });
    }
    // The base origin coincides with joint 1 in the plane; keep it once.
    if (out.length > 1 && Math.hypot(out[1].x - out[0].x, out[1].y - out[0].y) < 1e-12) out.shift();
    return out;
  }
}

// name -> position map of a sensor_msgs/JointState (as rosbridge JSON).
export function jointMap(state) {
  const map = new Map();
  if (!state || !state.name) return map;
  state.name.forEach((name, i) => map.set(name, Number(state.position[i])));
  return map;
}
