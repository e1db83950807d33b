// The arm in the browser: a client of the ROS graph over the rosbridge v2 protocol.
// Everything shown comes from the graph: the arm from robot_description and joint_states,
// solutions from solve_ik, the region from ik_markers, plans from move_arm and
// trajectory_markers, faults from /diagnostics. JavaScript only draws (transforms to pixels).
//
//   /?bridge=ws://host:9090   a rosbridge server elsewhere (default: this page's own /ws)
//   /?ns=/left_arm            a namespaced arm: every name of the arm is prefixed
//
// window.armStats carries timestamps (performance.now(), ms) for the benchmark.

import { Rosbridge } from "./rosbridge.js";
import { ArmChain, jointMap } from "./urdf.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const IK_STATUS = ["OK", "SINGULAR", "TOO_FAR", "TOO_CLOSE", "JOINT_LIMIT", "ORIENTATION_UNREACHABLE",
  "INVALID_INPUT", "WRONG_FRAME", "OFF_PLANE", "INVALID_ORIENTATION"];
const MOVE_STATUS = ["SUCCEEDED", "INVALID_GOAL", "IK_FAILED", "JOINT_JUMP", "CANCELED", "PREEMPTED",
  "IK_UNAVAILABLE", "HARDWARE_FAULT", "NO_JOINT_STATE"];
const MOVE_LINEAR = 0;
const MOVE_JOINT = 1;
const GRID_STEP_M = 0.05;
const LATENCY_SAMPLES = 5000;
const MARKER_DELETE = 2;
const MARKER_DELETEALL = 3;
const REGION_NAMESPACES = ["workspace", "reachable_region", "near_singular"];

// --- where to connect, which names -----------------------------------------------------------

const query = new URLSearchParams(location.search);
const namespace = (query.get("ns") || "").replace(/\/+$/, "").replace(/^([^/])/, "/$1");
const bridgeUrl = query.get("bridge") || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
const names = {
  robotDescription: `${namespace}/robot_description`,
  jointStates: `${namespace}/joint_states`,
  ikMarkers: `${namespace}/ik_markers`,
  trajectoryMarkers: `${namespace}/trajectory_markers`,
  solveIk: `${namespace}/solve_ik`,
  moveArm: `${namespace}/move_arm`,
  diagnostics: "/diagnostics", // the hardware node publishes it at the root, as ROS tools expect
};

const stats = {
  ik: { requests: 0, responses: 0, inFlight: 0, maxInFlight: 0, latenciesMs: [], roundTripsMs: [], lastPointer: null, lastDrawn: null },
  live: { messages: 0, draws: 0, drawTimes: [] },
  connected: false,
};
window.armStats = stats;

// --- state ------------------------------------------------------------------------------------

const state = {
  chain: null,
  baseFrame: "base_link",
  live: new Map(),
  target: null, // {x, y} metres
  solution: null, // the last drawn solve_ik answer
  region: new Map(), // "ns/id" -> marker
  plan: new Map(),
  goal: null, // {id, target}
  faults: new Map(),
  view: { cx: 0, cy: 0, k: 1 },
};
const ik = { inFlight: false, pending: null };

const $ = (id) => document.getElementById(id);
const svg = $("arm-view");

function element(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// --- view: metres (base frame, y up) <-> pixels -------------------------------------------------

function toScreen(x, y) {
  const { cx, cy, k } = state.view;
  return [cx + x * k, cy - y * k];
}

function toWorld(px, py) {
  const { cx, cy, k } = state.view;
  return [(px - cx) / k, (cy - py) / k];
}

function fitView() {
  const rect = svg.getBoundingClientRect();
  svg.setAttribute("viewBox", `0 0 ${rect.width} ${rect.height}`);
  $("static-view").setAttribute("viewBox", `0 0 ${rect.width} ${rect.height}`);
  const reach = state.chain ? state.chain.reach : 0.2;
  state.view = { cx: rect.width / 2, cy: rect.height / 2, k: Math.min(rect.width, rect.height) / (2.25 * reach) };
  stats.view = { ...state.view }; // pixels of the SVG: x_px = cx + k x, y_px = cy - k y
  drawGrid();
  drawRegion();
  drawPlan();
  drawTarget();
  drawSolution();
  drawLive();
}

function drawGrid() {
  const layer = $("layer-grid");
  layer.replaceChildren();
  const rect = svg.getBoundingClientRect();
  const [xMin, yMax] = toWorld(0, 0);
  const [xMax, yMin] = toWorld(rect.width, rect.height);
  for (let x = Math.ceil(xMin / GRID_STEP_M) * GRID_STEP_M; x <= xMax; x += GRID_STEP_M) {
    const [px] = toScreen(x, 0);
    element("line", { class: "grid-line", x1: px, y1: 0, x2: px, y2: rect.height }, layer);
    element("text", { class: "axis-label", x: px + 2, y: 14 }, layer).textContent = `${Math.round(x * 100)} cm`;
  }
  for (let y = Math.ceil(yMin / GRID_STEP_M) * GRID_STEP_M; y <= yMax; y += GRID_STEP_M) {
    const [, py] = toScreen(0, y);
    element("line", { class: "grid-line", x1: 0, y1: py, x2: rect.width, y2: py }, layer);
    if (py > 30 && py < rect.height - 30) element("text", { class: "axis-label", x: 4, y: py - 2 }, layer).textContent = `${Math.round(y * 100)} cm`;
  }
}

// --- the arm: one drawing for the live arm and for the ghosts ---------------------------------

// Draws `positions` (joint name -> rad) with the URDF chain into `layer`; ids prefixed `prefix`.
function drawArm(layer, positions, prefix) {
  if (!state.chain) return;
  const points = state.chain.points(positions).map((p) => ({ ...p, screen: toScreen(p.x, p.y) }));
  if (layer.childElementCount !== points.length + 1) {
    layer.replaceChildren();
    element("polyline", { class: "link" }, layer);
    points.forEach((_, i) => {
      const last = i === points.length - 1;
      element("circle", { class: last ? "tip" : i === 0 ? "base" : "joint", "data-index": i, ...(last ? { id: `${prefix}-tip` } : {}) }, layer);
    });
  }
  layer.firstChild.setAttribute("points", points.map((p) => p.screen.join(",")).join(" "));
  points.forEach((p, i) => {
    const circle = layer.children[i + 1];
    const last = i === points.length - 1;
    circle.setAttribute("cx", p.screen[0]);
    circle.setAttribute("cy", p.screen[1]);
    circle.setAttribute("r", last ? 4 : i === 0 ? 9 : 5);
    circle.dataset.xM = p.x;
    circle.dataset.yM = p.y;
  });
  layer.hidden = false;
}

let liveFrameRequested = false;
function scheduleLiveDraw() {
  if (liveFrameRequested) return;
  liveFrameRequested = true;
  requestAnimationFrame(() => {
    liveFrameRequested = false;
    drawLive();
  });
}

function drawLive() {
  if (!state.chain || state.live.size === 0) return;
  drawArm($("layer-live"), state.live, "live");
  for (const joint of state.chain.movable) {
    const cell = document.querySelector(`#joint-readouts tr[data-joint="${CSS.escape(joint.name)}"] td.live`);
    if (cell && state.live.has(joint.name)) cell.textContent = `${degrees(state.live.get(joint.name)).toFixed(1)}°`;
  }
  const now = performance.now();
  stats.live.draws += 1;
  stats.live.drawTimes.push(now);
  if (stats.live.drawTimes.length > 1000) stats.live.drawTimes.shift();
}

const degrees = (rad) => (rad * 180) / Math.PI;

function buildReadouts() {
  const body = $("joint-readouts").querySelector("tbody");
  body.replaceChildren();
  for (const joint of state.chain.movable) {
    const row = document.createElement("tr");
    row.dataset.joint = joint.name;
    row.innerHTML = `<td class="name"></td><td class="solution" data-rad="">–<div class="bar"><i></i></div></td>
      <td class="limits"></td><td class="live">–</td>`;
    row.querySelector(".name").textContent = joint.name;
    row.querySelector(".limits").textContent = `${degrees(joint.lower).toFixed(0)}…${degrees(joint.upper).toFixed(0)}°`;
    body.appendChild(row);
  }
  $("heading-control").hidden = state.chain.movable.length < 3;
  $("arm-name").textContent = `(${state.chain.movable.length}R${namespace ? `, ${namespace}` : ""})`;
}

// --- reachable region and ring (ik_markers) ---------------------------------------------------

function applyMarkers(store, markers) {
  for (const marker of markers) {
    const key = `${marker.ns}/${marker.id}`;
    if (marker.action === MARKER_DELETEALL) store.clear();
    else if (marker.action === MARKER_DELETE) store.delete(key);
    else store.set(key, marker);
  }
}

function trianglePath(points) {
  let d = "";
  for (let i = 0; i + 2 < points.length; i += 3) {
    const corners = [points[i], points[i + 1], points[i + 2]].map((p) => toScreen(p.x, p.y).map((v) => v.toFixed(1)).join(" "));
    d += `M${corners[0]}L${corners[1]}L${corners[2]}Z`;
  }
  return d;
}

function rgba(color, alpha = color.a) {
  return `rgba(${Math.round(color.r * 255)}, ${Math.round(color.g * 255)}, ${Math.round(color.b * 255)}, ${alpha})`;
}

function drawRegion() {
  const region = $("layer-region");
  const ring = $("layer-ring");
  region.replaceChildren();
  ring.replaceChildren();
  for (const marker of state.region.values()) {
    if (marker.ns === "reachable_region" || marker.ns === "near_singular") {
      // Opaque fill and edge inside a translucent group: the row runs overlap by the edge's
      // width without seams or darker stripes.
      const colour = rgba(marker.color, 1);
      const group = element("g", { id: `region-${marker.ns}`, opacity: marker.color.a }, region);
      element("path", { d: trianglePath(marker.points), fill: colour, stroke: colour, "stroke-width": 0.8 }, group);
    } else if (marker.ns === "workspace" && marker.type === 4 /* LINE_STRIP */) {
      const points = marker.points.map((p) => toScreen(p.x, p.y).map((v) => v.toFixed(1)).join(",")).join(" ");
      element("polyline", { class: "ring", id: `ring-${marker.id}`, points }, ring);
    }
  }
  // The region drawn first: near-singular cells on top of the reachable ones.
  const near = $("region-near_singular");
  if (near) region.appendChild(near);
}

// --- target, IK as the pointer moves (latest wins) -------------------------------------------

function statusClass(name) {
  if (name === "OK" || name === "SUCCEEDED") return "ok";
  if (name === "SINGULAR") return "singular";
  if (name === "SOLVING…" || name === "PLANNING" || name === "MOVING") return "busy";
  if (name === "READY") return "idle"; // nothing asked yet: not a refusal
  return "refused";
}

function setStatus(id, name, message) {
  const box = $(id);
  box.textContent = name;
  box.dataset.status = name;
  box.className = `status ${statusClass(name)}`;
  $(id === "status" ? "status-message" : "move-message").textContent = message;
}

function headingArgs() {
  const useHeading = !$("heading-control").hidden && $("use-heading").checked;
  const heading = (Number($("heading").value) * Math.PI) / 180;
  return { useHeading, orientation: { x: 0, y: 0, z: Math.sin(heading / 2), w: Math.cos(heading / 2) } };
}

function targetPose(target) {
  const { orientation } = headingArgs();
  return {
    header: { frame_id: state.baseFrame },
    pose: { position: { x: target.x, y: target.y, z: state.chain ? state.chain.planeZ : 0 }, orientation },
  };
}

function setTarget(x, y) {
  const now = performance.now();
  state.target = { x, y, t: now };
  stats.ik.lastPointer = { x, y, t: now };
  $("target-readout").textContent = `target (${(x * 100).toFixed(1)}, ${(y * 100).toFixed(1)}) cm`;
  drawTarget();
  ik.pending = state.target;
  pumpIk();
}

async function pumpIk() {
  if (ik.inFlight || !ik.pending) return;
  const target = ik.pending;
  ik.pending = null;
  ik.inFlight = true;
  stats.ik.requests += 1;
  stats.ik.inFlight += 1;
  stats.ik.maxInFlight = Math.max(stats.ik.maxInFlight, stats.ik.inFlight);
  const { useHeading } = headingArgs();
  const sentAt = performance.now();
  const response = await ros.callService(names.solveIk, "arm_kinematics_interfaces/srv/SolveIK", {
    target: targetPose(target),
    use_heading: useHeading,
    branch: Number($("branch").value),
  });
  const answeredAt = performance.now();
  ik.inFlight = false;
  stats.ik.inFlight -= 1;
  stats.ik.responses += 1;
  // A newer target is waiting: it is sent first, then this answer is drawn.
  if (ik.pending) pumpIk();
  state.solution = { target, response };
  drawSolution();
  const drawnAt = performance.now();
  stats.ik.lastDrawn = { x: target.x, y: target.y, tPointer: target.t, tSent: sentAt, tAnswered: answeredAt, tDrawn: drawnAt, status: $("status").dataset.status };
  stats.ik.latenciesMs.push(drawnAt - target.t);
  stats.ik.roundTripsMs.push(answeredAt - sentAt);
  if (stats.ik.latenciesMs.length > LATENCY_SAMPLES) stats.ik.latenciesMs.shift();
  if (stats.ik.roundTripsMs.length > LATENCY_SAMPLES) stats.ik.roundTripsMs.shift();
}

function drawTarget() {
  const layer = $("layer-target");
  layer.replaceChildren();
  if (!state.target) return;
  const [px, py] = toScreen(state.target.x, state.target.y);
  const name = $("status").dataset.status;
  const mark = element("g", { id: "target-mark", class: `target-${statusClass(name)}` }, layer);
  element("circle", { cx: px, cy: py, r: 9 }, mark);
  element("line", { x1: px - 14, y1: py, x2: px + 14, y2: py }, mark);
  element("line", { x1: px, y1: py - 14, x2: px, y2: py + 14 }, mark);
  mark.dataset.xM = state.target.x;
  mark.dataset.yM = state.target.y;
}

function drawSolution() {
  const ghost = $("layer-ghost");
  const alt = $("layer-alt");
  const rows = document.querySelectorAll("#joint-readouts tbody tr");
  if (!state.solution) return;
  const { response } = state.solution;
  if (!response.result) {
    setStatus("status", "NO ANSWER", String(response.values));
  } else {
    const values = response.values;
    const name = IK_STATUS[values.status] || `status ${values.status}`;
    setStatus("status", name, values.message);
  }
  const values = response.result ? response.values : null;
  const solved = values && (values.status === 0 || values.status === 1);
  if (!solved) {
    // A refused target draws no ghost: never a pose the service did not return.
    ghost.replaceChildren();
    alt.replaceChildren();
    ghost.hidden = alt.hidden = true;
    rows.forEach((row) => {
      const cell = row.querySelector(".solution");
      cell.firstChild.textContent = "–";
      cell.dataset.rad = "";
    });
    $("manipulability").textContent = "–";
    $("manipulability").dataset.value = "";
    drawTarget();
    return;
  }
  const solution = jointMap(values.solution);
  drawArm(ghost, solution, "ghost");
  if (values.alternative && values.alternative.name && values.alternative.name.length) {
    drawArm(alt, jointMap(values.alternative), "alt");
  } else {
    alt.replaceChildren();
    alt.hidden = true;
  }
  rows.forEach((row) => {
    const joint = state.chain.movable.find((j) => j.name === row.dataset.joint);
    const rad = solution.get(row.dataset.joint);
    const cell = row.querySelector(".solution");
    cell.firstChild.textContent = `${degrees(rad).toFixed(2)}°`;
    cell.dataset.rad = rad;
    const fraction = (rad - joint.lower) / (joint.upper - joint.lower);
    cell.querySelector(".bar i").style.left = `calc(${(100 * Math.min(1, Math.max(0, fraction))).toFixed(1)}% - 1px)`;
  });
  $("manipulability").textContent = `${(values.manipulability * 1e4).toFixed(2)} cm²`;
  $("manipulability").dataset.value = values.manipulability; // m^2
  drawTarget();
}

// --- moves (move_arm) and their plan (trajectory_markers) -------------------------------------

function sendMove(mode) {
  if (!state.target) {
    setStatus("move-status", "NO TARGET", "drag a target first");
    return;
  }
  const { useHeading } = headingArgs();
  const target = { ...state.target };
  state.failed = null;
  drawPlan();
  const id = ros.sendGoal(
    names.moveArm,
    "arm_kinematics_interfaces/action/MoveArm",
    { target: targetPose(target), use_heading: useHeading, mode, speed: 0, max_step: 0 },
    (feedback) => {
      if (!state.goal || state.goal.id !== id) return;
      $("progress").value = feedback.fraction;
      setStatus("move-status", "MOVING", `step ${feedback.step} of ${feedback.total_steps} (${(100 * feedback.fraction).toFixed(0)} %)`);
    },
    (result) => onMoveResult(id, result),
  );
  if (id === null) {
    setStatus("move-status", "NOT CONNECTED", "the bridge is not connected");
    return;
  }
  state.goal = { id, target, mode };
  $("cancel").disabled = false;
  $("progress").value = 0;
  setStatus("move-status", "PLANNING", `${mode === MOVE_LINEAR ? "straight line" : "joint move"} to (${(target.x * 100).toFixed(1)}, ${(target.y * 100).toFixed(1)}) cm`);
}

function onMoveResult(id, message) {
  if (!state.goal || state.goal.id !== id) return;
  state.goal = null;
  $("cancel").disabled = true;
  if (!message.result) {
    setStatus("move-status", "NO RESULT", String(message.values));
    return;
  }
  const result = message.values;
  const name = MOVE_STATUS[result.status] || `status ${result.status}`;
  let text = result.message;
  if (result.status === 2 || result.status === 3) {
    const ikName = IK_STATUS[result.ik_status] || result.ik_status;
    text = `failed at step ${result.failed_step} of ${result.total_steps}${result.status === 2 ? ` (${ikName})` : ""}, feasible ${(100 * result.feasible_fraction).toFixed(0)} %: ${result.message}`;
    state.failed = { x: result.failed_point.x, y: result.failed_point.y, step: result.failed_step, label: `${name}${result.status === 2 ? ` (${ikName})` : ""} at step ${result.failed_step}/${result.total_steps}, feasible ${(100 * result.feasible_fraction).toFixed(0)} %` };
  }
  $("progress").value = result.status === 0 ? 1 : $("progress").value;
  setStatus("move-status", name, text);
  drawPlan();
}

function drawPlan() {
  const layer = $("layer-plan");
  layer.replaceChildren();
  const classes = { planned_path: "plan-path", feasible_path: "plan-feasible", infeasible_path: "plan-infeasible" };
  for (const marker of state.plan.values()) {
    if (marker.type === 4 && classes[marker.ns]) {
      const points = marker.points.map((p) => toScreen(p.x, p.y).map((v) => v.toFixed(1)).join(",")).join(" ");
      element("polyline", { class: classes[marker.ns], id: `plan-${marker.ns}`, points }, layer);
    }
  }
  if (state.failed) {
    const [px, py] = toScreen(state.failed.x, state.failed.y);
    const dot = element("circle", { id: "failed-step", class: "failed-step", cx: px, cy: py, r: 7 }, layer);
    dot.dataset.step = state.failed.step;
    dot.dataset.xM = state.failed.x;
    dot.dataset.yM = state.failed.y;
    // The label on the side of the point with more room.
    const left = px > svg.getBoundingClientRect().width / 2;
    const label = element("text", { class: "failed-label", x: left ? px - 10 : px + 10, y: py - 10, "text-anchor": left ? "end" : "start" }, layer);
    label.textContent = state.failed.label;
  }
}

// --- diagnostics and connection -------------------------------------------------------------

function levelOf(value) {
  // diagnostic_msgs level is a `byte`: a number, a one-character string or base64, by bridge.
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.length === 1) return value.charCodeAt(0);
  if (typeof value === "string") return atob(value).charCodeAt(0) || 0;
  if (Array.isArray(value)) return Number(value[0]) || 0;
  return 0;
}

function onDiagnostics(array) {
  for (const status of array.status || []) {
    if (namespace && !String(status.name).startsWith(`${namespace}/`)) continue;
    const fault = (status.values || []).some((kv) => kv.key === "fault" && kv.value === "true");
    state.faults.set(status.name, levelOf(status.level) >= 2 || fault ? status.message : null);
  }
  const active = [...state.faults.entries()].filter(([, message]) => message);
  const banner = $("fault-banner");
  banner.hidden = active.length === 0;
  banner.textContent = active.map(([name, message]) => `Hardware fault: ${name}: ${message}`).join(" · ");
}

function onConnection(connected, reason) {
  stats.connected = connected;
  const banner = $("connection-banner");
  banner.hidden = connected;
  banner.textContent = connected ? "" : `Not connected to the arm (${bridgeUrl}): ${reason}`;
}

// --- start ---------------------------------------------------------------------------------

const ros = new Rosbridge(bridgeUrl, { onConnection });
$("bridge-url").textContent = `bridge ${bridgeUrl}${namespace ? `, namespace ${namespace}` : ""}`;

ros.subscribe(names.robotDescription, "std_msgs/msg/String", (msg) => {
  try {
    state.chain = ArmChain.parse(msg.data);
    state.baseFrame = state.chain.rootLink; // the arm's base frame, with its TF prefix
  } catch (error) {
    setStatus("status", "NO ARM", String(error));
    return;
  }
  buildReadouts();
  if (!state.target) setStatus("status", "READY", "drag the target");
  fitView();
});
ros.subscribe(names.jointStates, "sensor_msgs/msg/JointState", (msg) => {
  stats.live.messages += 1;
  state.live = jointMap(msg);
  scheduleLiveDraw();
}, { throttle_rate: 0, queue_length: 1 });
ros.subscribe(names.ikMarkers, "visualization_msgs/msg/MarkerArray", (msg) => {
  // The ring and the region come once (latched); the IK node's per-request markers are
  // RViz's business: the page draws its own ghost from the solve_ik answer.
  const region = msg.markers.filter((m) => REGION_NAMESPACES.includes(m.ns));
  if (region.length === 0) return;
  applyMarkers(state.region, region);
  drawRegion();
});
ros.subscribe(names.trajectoryMarkers, "visualization_msgs/msg/MarkerArray", (msg) => {
  applyMarkers(state.plan, msg.markers);
  drawPlan();
});
ros.subscribe(names.diagnostics, "diagnostic_msgs/msg/DiagnosticArray", onDiagnostics);

svg.addEventListener("pointerdown", (event) => {
  if (!state.chain) return;
  svg.setPointerCapture(event.pointerId);
  const rect = svg.getBoundingClientRect();
  setTarget(...toWorld(event.clientX - rect.left, event.clientY - rect.top));
});
svg.addEventListener("pointermove", (event) => {
  if (!state.chain || !(event.buttons & 1)) return;
  const rect = svg.getBoundingClientRect();
  setTarget(...toWorld(event.clientX - rect.left, event.clientY - rect.top));
});
const resolve = () => state.target && setTarget(state.target.x, state.target.y);
$("branch").addEventListener("change", resolve);
$("use-heading").addEventListener("change", resolve);
$("heading").addEventListener("input", () => {
  $("heading-value").textContent = `${$("heading").value}°`;
  resolve();
});
$("move-line").addEventListener("click", () => sendMove(MOVE_LINEAR));
$("move-joints").addEventListener("click", () => sendMove(MOVE_JOINT));
$("cancel").addEventListener("click", () => state.goal && ros.cancelGoal(names.moveArm, state.goal.id));
window.addEventListener("resize", fitView);
fitView();
