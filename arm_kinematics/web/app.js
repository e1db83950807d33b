// The arm in the browser: a client of the ROS graph over the rosbridge v2 protocol.
// Everything shown comes from the graph: the arm from robot_description and joint_states,
// solutions from solve_ik, the region from ik_markers, plans from move_arm and
// trajectory_markers, faults from /diagnostics. JavaScript only draws (transforms to pixels).
// This module is the wiring: the connection and its sessions, the target and its IK requests,
// the moves. The drawing: planar_view.js for a planar arm (one view), or for a spatial arm (the
// URDF says which) three spatial_view.js views, from above, from the side and in 3D, driven
// alike; the panel's widgets panel.js, the request's orientation orientation.js, the gripper
// gripper.js, the tool's jog and the STOP tool_jog.js, named poses and the sequence recorder
// teach.js.
//
//   /?bridge=ws://host:9090   a rosbridge server elsewhere (default: this page's own /ws)
//   /?ns=/left_arm            a namespaced arm: every name of the arm is prefixed
//
// window.armStats carries timestamps (performance.now(), ms) for the benchmark.

import { Rosbridge } from "./rosbridge.js";
import { ArmChain, jointMap } from "./urdf.js";
import { PlanarView } from "./planar_view.js";
import { SpatialView } from "./spatial_view.js";
import { OrbitProjection, SideProjection, TopProjection } from "./projections.js";
import { MOVE_STATUS, TargetFields, buildReadouts, degrees, setStatus, showLive, showSolution, statusTone } from "./panel.js";
import { headingRequest, spatialRequest, toolDirection } from "./orientation.js";
import { GripperControl } from "./gripper.js";
import { JogPanel } from "./jog_panel.js";
import { ToolJog } from "./tool_jog.js";
import { TeachPanel } from "./teach.js";

const IK_STATUS = ["OK", "SINGULAR", "TOO_FAR", "TOO_CLOSE", "JOINT_LIMIT", "ORIENTATION_UNREACHABLE",
  "INVALID_INPUT", "WRONG_FRAME", "OFF_PLANE", "INVALID_ORIENTATION", "YAW_LIMIT",
  "OUTSIDE_WORKSPACE"];
const MOVE_LINEAR = 0;
const MOVE_JOINT = 1;
const LATENCY_SAMPLES = 5000;
const MARKER_DELETE = 2;
const MARKER_DELETEALL = 3;
// ik_markers' latched part: the ring (or a spatial arm's horizontal reach), the region (a
// spatial arm's in its vertical plane), the directions a spatial arm's yaw can face, the
// workspace envelope (its table, keep-out boxes and the cells it removes).
const REGION_NAMESPACES = ["workspace", "reachable_region", "near_singular", "yaw_range", "yaw_range_back",
  "envelope_table", "keep_out_boxes", "envelope_removed"];

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
  gripperAction: `${namespace}/gripper_controller/gripper_cmd`,
  hardwareParameters: `${namespace}/hardware_node/get_parameters`,
  jog: { twist: `${namespace}/servo_node/delta_twist_cmds`, status: `${namespace}/servo_node/status`, stop: `${namespace}/stop` },
  diagnostics: "/diagnostics", // the hardware node publishes it at the root, as ROS tools expect
};

const stats = {
  ik: { requests: 0, responses: 0, inFlight: 0, maxInFlight: 0, latenciesMs: [], roundTripsMs: [], lastPointer: null, lastDrawn: null },
  live: { messages: 0, draws: 0, drawTimes: [] },
  plans: { drawn: 0, ignored: 0 }, // trajectory_markers messages, by the rule of onPlanMarkers
  connected: false,
  sessions: 0, // connections that came up
};
window.armStats = stats;

// --- state ------------------------------------------------------------------------------------

const state = {
  chain: null,
  baseFrame: "base_link",
  live: new Map(),
  spatial: false, // the layout, from the URDF
  target: null, // {x, y} metres; a spatial arm's {x, y, z}
  heading: 0, // the tool heading a 3R arm may be asked for, rad
  tool: { mode: "position", pitch: -Math.PI / 2, roll: 0 }, // a spatial arm's (orientation.js), rad
  region: new Map(), // "ns/id" -> marker
  plan: new Map(),
  failed: null, // the failing step of this page's last goal
  goal: null, // {id, target, mode}
  faults: new Map(),
};
// A session is one connection. `since`: the ROS time (s) of its first joint_states, against
// which a plan's stamp says whether it was published while the page was connected.
const session = { open: false, since: null, heldPlan: null };
const ik = { inFlight: false, pending: null };

const $ = (id) => document.getElementById(id);
const view = new PlanarView($("static-view"), $("arm-view"), { onTarget: (x, y) => setTarget({ x, y }) });
let views = [view];
let spatial = null; // {top, side, orbit}: a spatial arm's views, made when its URDF comes
const fields = new TargetFields($("target-fields"), $("target-error"), onFieldsCommit);
fields.setArm({ joints: 0 }); // the heading field waits for the URDF

function fitViews() {
  for (const v of views) v.fit();
  describeViews();
}

// The pixels of the drawings, for the tests and the benchmark. Planar: x_px = cx + k x,
// y_px = cy - k y. Spatial, per view: the same of the projection's (u, v), and the projection.
function describeViews() {
  stats.view = { ...view.transform };
  if (spatial) stats.views = Object.fromEntries(Object.entries(spatial).map(([name, v]) => [name, v.describe()]));
}

// The layout the URDF says: a spatial arm's three views replace the planar one, and its panel
// gets z, the tool's pitch and roll; a planar arm's page is as it always was.
function useLayout(chain) {
  state.spatial = chain.spatial;
  $("view").hidden = state.spatial;
  $("spatial-views").hidden = !state.spatial;
  $("tool-control").hidden = !state.spatial;
  $("roll-control").hidden = !chain.wristRoll;
  $("tool-mode-roll").hidden = !chain.wristRoll;
  $("tool-mode-roll").disabled = !chain.wristRoll;
  if (!chain.wristRoll && state.tool.mode === "pitch_roll") setToolMode("pitch");
  $("arm-kind").textContent = state.spatial ? "Spatial" : "Planar";
  for (const item of document.querySelectorAll(".spatial-only")) item.hidden = !state.spatial;
  if (state.spatial && !spatial) {
    const side = new SideProjection();
    spatial = {
      top: new SpatialView($("top-view"), "top", new TopProjection(), { onPointer: (u, v) => dragTarget("top", u, v), plane: () => side.direction }),
      side: new SpatialView($("side-view"), "side", side, { onPointer: (u, v) => dragTarget("side", u, v) }),
      orbit: new SpatialView($("orbit-view"), "orbit", new OrbitProjection(), { onTurn: describeViews }),
    };
  }
  views = state.spatial ? Object.values(spatial) : [view];
  for (const v of views) {
    v.setChain(chain);
    v.drawRegion([...state.region.values()]);
  }
}

// --- the live arm -----------------------------------------------------------------------------

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
  for (const v of views) v.drawLive(state.live);
  showLive(state.chain, state.live);
  gripper.showLive(state.live);
  const now = performance.now();
  stats.live.draws += 1;
  stats.live.drawTimes.push(now);
  if (stats.live.drawTimes.length > 1000) stats.live.drawTimes.shift();
}

// --- target, IK as the pointer moves (latest wins) -------------------------------------------

function hasHeading() {
  return Boolean(state.chain) && !state.chain.spatial && state.chain.movable.length >= 3;
}

function useHeading() {
  return hasHeading() && $("use-heading").checked;
}

// The request fields of the target's orientation (SolveIK and MoveArm alike): a planar arm's
// heading as the tool angle, or a spatial arm's pitch and roll (orientation.js), or neither.
function orientation(target) {
  return state.spatial ? spatialRequest(state.tool, target) : headingRequest(useHeading(), state.heading);
}

function requestArgs(target) {
  const { orientation_mode, tool_angle, orientation: quaternion } = orientation(target);
  const z = state.spatial ? target.z : state.chain ? state.chain.planeZ : 0;
  return {
    target: { header: { frame_id: state.baseFrame }, pose: { position: { x: target.x, y: target.y, z }, orientation: quaternion } },
    orientation_mode,
    tool_angle,
  };
}

// target: {x, y} m (a spatial arm's {x, y, z}). source: the view that set it ("top", "side"),
// or none (typed, or solved again): the side view turns to the target's plane unless it was
// dragged in that plane.
function setTarget(target, source = null) {
  const now = performance.now();
  state.target = { ...target, t: now };
  stats.ik.lastPointer = { ...target, t: now };
  fields.show(target);
  if (spatial && state.spatial && source !== "side") {
    const yaw = state.chain.movable[0];
    spatial.side.projection.face(target.x, target.y, yaw.lower, yaw.upper);
    spatial.side.redraw();
    describeViews();
  }
  drawTarget();
  ik.pending = state.target;
  pumpIk();
}

// A press or drag at (u, v) m of a spatial view's plane: from above it sets x and y (z kept),
// from the side the reach along the plane and z (the direction kept).
function dragTarget(name, u, v) {
  setTarget(spatial[name].projection.target(u, v, state.target || { z: startHeight() }), name);
}

// The height of a first target dragged from above: the live tool's (the URDF's tip at the
// latest joint_states), else the shoulder's.
function startHeight() {
  const points = state.chain.points(state.live);
  return state.live.size ? points[points.length - 1].z : spatial.top.extent.shoulder.z;
}

// The number fields: a typed target is solved exactly like a dragged one.
function onFieldsCommit(values, changed) {
  if (!state.chain) return;
  if (changed.has("heading")) setHeading(values.heading, true); // a typed heading is meant
  if (changed.has("pitch")) setPitch(values.pitch, state.tool.mode === "position" ? "pitch" : null);
  if (changed.has("roll")) setRoll(values.roll, "pitch_roll"); // a typed roll is meant with the pitch
  setTarget(state.spatial ? { x: values.x, y: values.y, z: values.z } : { x: values.x, y: values.y });
}

// pitch, roll: rad; the sliders show whole degrees. mode: a tool mode to switch to, or null.
function setPitch(pitch, mode) {
  state.tool.pitch = pitch;
  $("pitch").value = String(Math.round(degrees(pitch)));
  $("pitch-value").textContent = `${Math.round(degrees(pitch))}°`;
  fields.show({ pitch });
  if (mode) setToolMode(mode);
}

function setRoll(roll, mode) {
  state.tool.roll = roll;
  $("roll").value = String(Math.round(degrees(roll)));
  $("roll-value").textContent = `${Math.round(degrees(roll))}°`;
  fields.show({ roll });
  if (mode) setToolMode(mode);
}

function setToolMode(mode) {
  state.tool.mode = mode;
  $("tool-mode").value = mode;
}

// heading: rad; the slider shows whole degrees.
function setHeading(heading, use) {
  state.heading = heading;
  $("heading").value = String(Math.round((heading * 180) / Math.PI));
  if (use) $("use-heading").checked = true;
  fields.show({ heading });
}

async function pumpIk() {
  if (ik.inFlight || !ik.pending || !ros.connected) return; // a new session solves the target again
  const target = ik.pending;
  ik.pending = null;
  ik.inFlight = true;
  stats.ik.requests += 1;
  stats.ik.inFlight += 1;
  stats.ik.maxInFlight = Math.max(stats.ik.maxInFlight, stats.ik.inFlight);
  const sentAt = performance.now();
  const response = await ros.callService(names.solveIk, "arm_kinematics_interfaces/srv/SolveIK", {
    ...requestArgs(target),
    branch: Number($("branch").value),
  });
  const answeredAt = performance.now();
  ik.inFlight = false;
  stats.ik.inFlight -= 1;
  stats.ik.responses += 1;
  if (!ros.connected) return; // lost with the connection: the panel says NOT CONNECTED
  // A newer target is waiting: it is sent first, then this answer is drawn.
  if (ik.pending) pumpIk();
  showAnswer(response);
  const drawnAt = performance.now();
  stats.ik.lastDrawn = { x: target.x, y: target.y, z: target.z, tPointer: target.t, tSent: sentAt, tAnswered: answeredAt, tDrawn: drawnAt, status: $("status").dataset.status };
  stats.ik.latenciesMs.push(drawnAt - target.t);
  stats.ik.roundTripsMs.push(answeredAt - sentAt);
  if (stats.ik.latenciesMs.length > LATENCY_SAMPLES) stats.ik.latenciesMs.shift();
  if (stats.ik.roundTripsMs.length > LATENCY_SAMPLES) stats.ik.roundTripsMs.shift();
}

// The target mark, and what is asked of the tool: a planar arm's heading (rad) or a spatial
// arm's pitch as the tool's x axis.
function drawTarget() {
  const tone = statusTone($("status").dataset.status);
  let tool = null;
  if (state.spatial && state.target && state.tool.mode !== "position") tool = toolDirection(state.target, state.tool.pitch);
  else if (!state.spatial && useHeading()) tool = state.heading;
  for (const v of views) v.drawTarget(state.target, tone, tool);
}

// A solve_ik answer (or the bridge's failure) in the panel and on the drawing. A refused target
// draws no ghost and shows no angles: never a pose the service did not return.
function showAnswer(response) {
  const values = response.result ? response.values : null;
  if (!values) setStatus("status", "NO ANSWER", String(response.values));
  else setStatus("status", IK_STATUS[values.status] || `status ${values.status}`, values.message);
  const solved = values && (values.status === 0 || values.status === 1);
  const joints = solved ? jointMap(values.solution) : null;
  const alternative = solved && values.alternative && values.alternative.name && values.alternative.name.length ? jointMap(values.alternative) : null;
  for (const v of views) v.drawSolution(joints, alternative);
  showSolution(state.chain, joints, solved ? values.manipulability : 0);
  drawTarget();
}

function clearAnswer() {
  for (const v of views) v.drawSolution(null, null);
  if (state.chain) showSolution(state.chain, null, 0);
}

// --- moves (move_arm) and their plan (trajectory_markers) -------------------------------------

function sendMove(mode) {
  if (!state.target) {
    setStatus("move-status", "NO TARGET", "drag a target or type one first");
    return;
  }
  if (!ros.connected) {
    setStatus("move-status", "NOT CONNECTED", "the bridge is not connected: nothing was sent");
    return;
  }
  const target = { ...state.target };
  // The plan shown is the new goal's from now on (none until trajectory_markers draws it).
  state.failed = null;
  state.plan.clear();
  drawPlan();
  const id = ros.sendGoal(
    names.moveArm,
    "arm_kinematics_interfaces/action/MoveArm",
    { ...requestArgs(target), mode, speed: 0, max_step: 0 },
    (feedback) => {
      if (!state.goal || state.goal.id !== id) return;
      $("progress").value = feedback.fraction;
      setStatus("move-status", "MOVING", `step ${feedback.step} of ${feedback.total_steps} (${(100 * feedback.fraction).toFixed(0)} %)`);
    },
    (result) => onMoveResult(id, result),
  );
  if (id === null) {
    setStatus("move-status", "NOT CONNECTED", "the bridge is not connected: nothing was sent");
    return;
  }
  state.goal = { id, target, mode };
  $("cancel").disabled = false;
  $("progress").value = 0;
  const where = [target.x, target.y, ...(state.spatial ? [target.z] : [])].map((v) => (v * 100).toFixed(1)).join(", ");
  setStatus("move-status", "PLANNING", `${mode === MOVE_LINEAR ? "straight line" : "joint move"} to (${where}) cm`);
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
  if (result.status === 2 || result.status === 3) {
    // The message says the step, the IK status and the feasible part already.
    const ikName = IK_STATUS[result.ik_status] || result.ik_status;
    state.failed = { x: result.failed_point.x, y: result.failed_point.y, z: result.failed_point.z, step: result.failed_step, label: `${name}${result.status === 2 ? ` (${ikName})` : ""} at step ${result.failed_step}/${result.total_steps}, feasible ${(100 * result.feasible_fraction).toFixed(0)} %` };
  }
  if (result.status === 0) $("progress").value = 1;
  setStatus("move-status", name, result.message);
  drawPlan();
}

function drawPlan() {
  for (const v of views) v.drawPlan([...state.plan.values()], state.failed);
}

function applyMarkers(store, markers) {
  for (const marker of markers) {
    const key = `${marker.ns}/${marker.id}`;
    if (marker.action === MARKER_DELETEALL) store.clear();
    else if (marker.action === MARKER_DELETE) store.delete(key);
    else store.set(key, marker);
  }
}

const seconds = (stamp) => (stamp ? Number(stamp.sec) + Number(stamp.nanosec) * 1e-9 : 0);

// trajectory_markers is latched: a page that connects gets the last plan ever published, maybe
// hours old. It draws a plan only when it was stamped after the session began (its first
// joint_states: one clock, the graph's), so this page's goals and the ones that ran since.
function onPlanMarkers(msg) {
  if (session.since === null) {
    session.heldPlan = msg; // decided at the first joint_states
    return;
  }
  const stamp = Math.max(0, ...msg.markers.map((m) => seconds(m.header && m.header.stamp)));
  if (stamp < session.since) {
    stats.plans.ignored += 1;
    return;
  }
  stats.plans.drawn += 1;
  applyMarkers(state.plan, msg.markers);
  drawPlan();
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
  showFaults();
}

function showFaults() {
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
  if (connected) startSession();
  else if (session.open) endSession();
}

// The stack went away: nothing shown may pass for its answer any more.
function endSession() {
  session.open = false;
  ik.pending = null;
  clearAnswer();
  gripper.clear();
  setStatus("status", "NOT CONNECTED", "waiting for the arm; the target is solved again when it is back");
  drawTarget();
}

// A new connection (the first, or the stack back after a restart): a new session with none of
// the dead one's plan, goal or progress; the target is solved again once the arm's URDF comes.
function startSession() {
  session.open = true;
  session.since = null;
  session.heldPlan = null;
  stats.sessions += 1;
  state.goal = null;
  state.failed = null;
  state.plan.clear();
  state.faults.clear();
  showFaults();
  $("cancel").disabled = true;
  $("progress").value = 0;
  setStatus("move-status", "");
  drawPlan();
  if (state.chain) setStatus("status", state.target ? "SOLVING…" : "READY", state.target ? "the arm is back: solving the target again" : "drag the target or type it");
}

function onRobotDescription(msg) {
  try {
    state.chain = ArmChain.parse(msg.data);
    state.baseFrame = state.chain.rootLink; // the arm's base frame, with its TF prefix
  } catch (error) {
    setStatus("status", "NO ARM", String(error));
    return;
  }
  const joints = state.chain.movable.length;
  const kind = state.chain.spatial ? `yaw, ${joints - 1 - (state.chain.wristRoll ? 1 : 0)} pitch${state.chain.wristRoll ? ", roll" : ""}` : `${joints}R`;
  buildReadouts(state.chain, `${kind}${namespace ? `, ${namespace}` : ""}`);
  $("heading-control").hidden = !hasHeading();
  fields.setArm({ joints, spatial: state.chain.spatial, roll: state.chain.wristRoll });
  toolJog.setArm(state.chain);
  fields.show({ heading: state.heading, pitch: state.tool.pitch, roll: state.tool.roll });
  useLayout(state.chain);
  describeViews();
  gripper.load();
  teach.setArm(state.chain);
  if (state.target && state.spatial !== ("z" in state.target)) state.target = null; // another arm
  if (state.target) setTarget(state.target); // a new session: solved again
  else setStatus("status", "READY", "drag the target or type it");
}

function onJointStates(msg) {
  stats.live.messages += 1;
  state.live = jointMap(msg);
  if (session.since === null) {
    session.since = seconds(msg.header && msg.header.stamp);
    if (session.heldPlan) onPlanMarkers(session.heldPlan);
    session.heldPlan = null;
  }
  scheduleLiveDraw();
}

// --- start ---------------------------------------------------------------------------------

const ros = new Rosbridge(bridgeUrl, { onConnection });
new JogPanel($("jog-panel"), ros, namespace);
const drawings = [$("view"), $("spatial-views")]; // their focus lets the keys jog
const toolJog = new ToolJog($("tool-jog"), ros, names.jog, { drawings, stopButton: $("stop"), live: () => state.live, stats });
$("bridge-url").textContent = `bridge ${bridgeUrl}${namespace ? `, namespace ${namespace}` : ""}`;

ros.subscribe(names.robotDescription, "std_msgs/msg/String", onRobotDescription);
ros.subscribe(names.jointStates, "sensor_msgs/msg/JointState", onJointStates, { throttle_rate: 0, queue_length: 1 });
ros.subscribe(names.ikMarkers, "visualization_msgs/msg/MarkerArray", (msg) => {
  // The ring and the region come once (latched); the IK node's per-request markers are
  // RViz's business: the page draws its own ghost from the solve_ik answer.
  const region = msg.markers.filter((m) => REGION_NAMESPACES.includes(m.ns));
  if (region.length === 0) return;
  applyMarkers(state.region, region);
  for (const v of views) v.drawRegion([...state.region.values()]);
});
const gripper = new GripperControl(ros, { parameters: names.hardwareParameters, action: names.gripperAction });
const teach = new TeachPanel($("teach"), ros, namespace, { live: () => state.live, gripper });
ros.subscribe(names.trajectoryMarkers, "visualization_msgs/msg/MarkerArray", onPlanMarkers);
ros.subscribe(names.diagnostics, "diagnostic_msgs/msg/DiagnosticArray", onDiagnostics);

const resolve = () => state.target && setTarget(state.target);
$("branch").addEventListener("change", resolve);
$("use-heading").addEventListener("change", resolve);
$("heading").addEventListener("input", () => {
  setHeading((Number($("heading").value) * Math.PI) / 180, false);
  resolve();
});
$("tool-mode").addEventListener("change", () => {
  setToolMode($("tool-mode").value);
  resolve();
});
$("pitch").addEventListener("input", () => {
  setPitch((Number($("pitch").value) * Math.PI) / 180, state.tool.mode === "position" ? "pitch" : null);
  resolve();
});
$("roll").addEventListener("input", () => {
  setRoll((Number($("roll").value) * Math.PI) / 180, "pitch_roll");
  resolve();
});
$("move-line").addEventListener("click", () => sendMove(MOVE_LINEAR));
$("move-joints").addEventListener("click", () => sendMove(MOVE_JOINT));
$("cancel").addEventListener("click", () => state.goal && ros.cancelGoal(names.moveArm, state.goal.id));
window.addEventListener("resize", fitViews);
fitViews();
