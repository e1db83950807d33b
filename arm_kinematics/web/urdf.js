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

function apply(matrix, [x, y, z]) {
  return {
    x: matrix[0] * x + matrix[1] * y + matrix[2] * z + matrix[3],
    y: matrix[4] * x + matrix[5] * y + matrix[6] * z + matrix[7],
    z: matrix[8] * x + matrix[9] * y + matrix[10] * z + matrix[11],
  };
}

function parseJoint(element) {
  const origin = element.querySelector("origin");
  const limit = element.querySelector("limit");
  const mimic = element.querySelector("mimic");
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
    // <mimic>: this joint follows another (position = multiplier * that one's + offset), as
    // robot_state_publisher computes it; joint_states does not name it.
    mimic: mimic
      ? { joint: mimic.getAttribute("joint"), multiplier: Number(mimic.getAttribute("multiplier") ?? 1), offset: Number(mimic.getAttribute("offset") ?? 0) }
      : null,
  };
}

// The box visuals of a link as segments along each box's own x axis (a finger's length), in
// the link's frame: [[start xyz, end xyz], ...].
function boxSegments(link) {
  const segments = [];
  for (const visual of link.querySelectorAll(":scope > visual")) {
    const box = visual.querySelector("geometry > box");
    if (!box) continue;
    const origin = visual.querySelector("origin");
    const frame = originTransform(numbers(origin && origin.getAttribute("xyz"), 3), numbers(origin && origin.getAttribute("rpy"), 3));
    const half = numbers(box.getAttribute("size"), 3)[0] / 2;
    segments.push([apply(frame, [-half, 0, 0]), apply(frame, [half, 0, 0])].map((p) => [p.x, p.y, p.z]));
  }
  return segments;
}

export class ArmChain {
  // joints: from the root link to the last link, each {name, type, origin, axis, lower, upper};
  // hand: the branches where the serial chain ends (a gripper's fingers), each a list of joints
  // from that link on, with the box visuals of their links (`segments`, link name -> segments).
  constructor(rootLink, joints, hand = [], segments = new Map()) {
    this.rootLink = rootLink;
    this.joints = joints;
    this.hand = hand;
    this.segments = segments;
    this.movable = joints.filter((j) => j.type !== "fixed");
    // Drawing scale: the sum of the distances between consecutive joint frames at zero.
    const points = this.points(new Map());
    let reach = 0;
    for (let i = 1; i < points.length; i++) reach += Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y, points[i].z - points[i - 1].z);
    this.reach = reach;
    this.planeZ = joints.length ? joints[0].xyz[2] : 0; // joint 1 sits on the arm's plane
    // A spatial arm (docs/spatial_arms.md): some joint turns about an axis other than the base's
    // z (at the zero pose), so the arm leaves the plane. Its first joint is then the yaw, and a
    // last joint about its own x axis is the wrist roll.
    const frames = this.frames(new Map());
    this.spatial = this.movable.some((joint) => {
      const m = frames[this.joints.indexOf(joint)];
      const [ax, ay, az] = joint.axis;
      const zOfAxis = (m[8] * ax + m[9] * ay + m[10] * az) / (Math.hypot(ax, ay, az) || 1);
      return Math.abs(Math.abs(zOfAxis) - 1) > 1e-9;
    });
    const last = this.movable[this.movable.length - 1];
    this.wristRoll = this.spatial && this.movable.length > 1 && last && Math.abs(last.axis[0]) > 0 && last.axis[1] === 0 && last.axis[2] === 0;
  }

  static parse(text) {
    const doc = new DOMParser().parseFromString(text, "application/xml");
    if (doc.querySelector("parsererror")) throw new Error("robot_description is not valid XML");
    const joints = [...doc.querySelectorAll("robot > joint")].map(parseJoint);
    const children = new Set(joints.map((j) => j.child));
    const linkElements = [...doc.querySelectorAll("robot > link")];
    const links = linkElements.map((l) => l.getAttribute("name"));
    const root = links.find((name) => !children.has(name));
    if (root === undefined) throw new Error("the URDF has no root link");
    const childJoints = (link) => joints.filter((j) => j.parent === link);
    // Follow the chain from the root while each link has one child joint (the arm is serial);
    // a link with several (the tool with a gripper's two fingers) ends it, and each of those
    // joints starts a branch of the hand, followed the same way.
    const follow = (first) => {
      const out = [first];
      for (let next = childJoints(first.child); next.length === 1; next = childJoints(next[0].child)) out.push(next[0]);
      return out;
    };
    const chain = [];
    let link = root;
    for (let next = childJoints(link); next.length === 1; next = childJoints(link)) {
      chain.push(next[0]);
      link = next[0].child;
    }
    const hand = childJoints(link).length > 1 ? childJoints(link).map(follow) : [];
    const segments = new Map();
    for (const joint of hand.flat()) {
      const element = linkElements.find((l) => l.getAttribute("name") === joint.child);
      if (element) segments.set(joint.child, boxSegments(element));
    }
    // With a mount the root is the frame the arm stands in (e.g. world): the page draws the
    // arm in its own base frame, the parent of the first moving joint (prefixed, e.g.
    // left_arm/base_link), where the IK node takes targets.
    const first = chain.findIndex((j) => j.type !== "fixed");
    const arm = first > 0 ? chain.slice(first) : chain;
    return new ArmChain(arm.length ? arm[0].parent : root, arm, hand, segments);
  }

  // A joint's position: from `positions` (name -> rad; missing joints at 0), a mimic joint's
  // from the joint it follows.
  static position(joint, positions) {
    if (joint.mimic) return joint.mimic.multiplier * (positions.get(joint.mimic.joint) || 0) + joint.mimic.offset;
    return positions.get(joint.name) || 0;
  }

  static step(transform, joint, positions) {
    const placed = multiply(transform, originTransform(joint.xyz, joint.rpy));
    return joint.type === "fixed" ? placed : multiply(placed, axisRotation(joint.axis, ArmChain.position(joint, positions)));
  }

  // The transform (4x4, root frame) of each joint's child link, in chain order.
  frames(positions) {
    let transform = originTransform([0, 0, 0], [0, 0, 0]);
    return this.joints.map((joint) => (transform = ArmChain.step(transform, joint, positions)));
  }

  // Every joint frame's origin and the tip, base first: [{x, y, z, name}] in the root frame.
  // `positions` maps joint names to radians (missing joints at 0).
  points(positions) {
    const out = [{ x: 0, y: 0, z: 0, name: this.rootLink }];
    this.frames(positions).forEach((transform, i) => out.push({ x: transform[3], y: transform[7], z: transform[11], name: this.joints[i].child }));
    // The base origin coincides with joint 1 in the plane; keep it once.
    if (out.length > 1 && Math.hypot(out[1].x - out[0].x, out[1].y - out[0].y) < 1e-12) out.shift();
    return out;
  }

  // The hand's links (a gripper's fingers) as their box visuals' segments in the root frame,
  // at `positions`: [[{x, y, z}, {x, y, z}], ...]; empty without a hand.
  fingers(positions) {
    if (this.hand.length === 0) return [];
    const frames = this.frames(positions);
    const end = frames.length ? frames[frames.length - 1] : originTransform([0, 0, 0], [0, 0, 0]);
    const out = [];
    for (const branch of this.hand) {
      let transform = end;
      for (const joint of branch) {
        transform = ArmChain.step(transform, joint, positions);
        for (const segment of this.segments.get(joint.child) || []) out.push(segment.map((p) => apply(transform, p)));
      }
    }
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
