// The arm in the browser: a client of the ROS graph over the rosbridge v2 protocol.
// Everything shown comes from the graph: the arm from robot_description and joint_states,
// solutions from solve_ik, the region from ik_markers, plans from move_arm and
// trajectory_markers, faults from /diagnostics. JavaScript only draws (transforms to pixels).
// This module is the wiring: the connection and its sessions, the target and its IK requests,
// the moves; the drawing is planar_view.js (one view; others would be driven alike), the panel's
// widgets panel.js.
//
//   /?bridge=ws://host:9090   a rosbridge server elsewhere (default: this page's own /ws)
//   /?ns=/left_arm            a namespaced arm: every name of the arm is prefixed
//
// window.armStats carries timestamps (performance.now(), ms) for the benchmark.

import { Rosbridge } from "./rosbridge.js";
import { ArmChain, jointMap } from "./urdf.js";
import { PlanarView } from "./planar_view.js";
import { TargetFields, buildReadouts, setStatus, showLive, showSolution, statusTone } from "./panel.js";
import { JogPanel } from "./jog_panel.js";

const IK_STATUS = ["OK", "SINGULAR", "TOO_FAR", "TOO_CLOSE", "JOINT_LIMIT", "ORIENTATION_UNREACHABLE",
  "INVALID_INPUT", "WRONG_FRAME", "OFF_PLANE", "INVALID_ORIENTATION"];
const MOVE_STATUS = ["SUCCEEDED", "INVALID_GOAL", "IK_FAILED", "JOINT_JUMP", "CANCELED", "PREEMPTED",
  "IK_UNAVAILABLE", "HARDWARE_FAULT", "NO_JOINT_STATE", "SHUTDOWN", "CALIBRATING"];
const POSITION_ONLY = 0; // SolveIK and MoveArm orientation_mode values
const TOOL_ANGLE = 1;
const MOVE_LINEAR = 0;
const MOVE_JOINT = 1;
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
  target: null, // {x, y} metres
  heading: 0, // the tool heading a 3R arm may be asked for, rad
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
const view = new PlanarView($("static-view"), $("arm-view"), { onTarget: (x, y) => setTarget(x, y) });
const views = [view];
const fields = new TargetFields($("target-fields"), $("target-error"), onFieldsCommit);
fields.setArm({ joints: 0 }); // the heading field waits for the URDF

function fitViews() {
  for (const v of views) v.fit();
  stats.view = { ...view.transform }; // pixels of the SVG: x_px = cx + k x, y_px = cy - k y
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
  const now = performance.now();
  stats.live.draws += 1;
  stats.live.drawTimes.push(now);
  if (stats.live.drawTimes.length > 1000) stats.live.drawTimes.shift();
}

// --- target, IK as the pointer moves (latest wins) -------------------------------------------

function hasHeading() {
  return Boolean(state.chain) && state.chain.movable.length >= 3;
}

function headingArgs() {
  const useHeading = hasHeading() && $("use-heading").checked;
  const heading = state.heading;
  return { useHeading, heading, orientation: { x: 0, y: 0, z: Math.sin(heading / 2), w: Math.cos(heading / 2) } };
}

// The request fields of the target's orientation (SolveIK and MoveArm alike): the heading as the
// tool angle (rad), or the position only.
function orientationArgs() {
  const { useHeading, heading } = headingArgs();
  return useHeading ? { orientation_mode: TOOL_ANGLE, tool_angle: heading } : { orientation_mode: POSITION_ONLY, tool_angle: 0 };
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
  fields.show({ x, y });
  drawTarget();
  ik.pending = state.target;
  pumpIk();
}

// The number fields: a typed target is solved exactly like a dragged one.
function onFieldsCommit(values, changed) {
  if (!state.chain) return;
  if (changed.has("heading")) setHeading(values.heading, true); // a typed heading is meant
  setTarget(values.x, values.y);
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
    target: targetPose(target),
    ...orientationArgs(),
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
  stats.ik.lastDrawn = { x: target.x, y: target.y, tPointer: target.t, tSent: sentAt, tAnswered: answeredAt, tDrawn: drawnAt, status: $("status").dataset.status };
  stats.ik.latenciesMs.push(drawnAt - target.t);
  stats.ik.roundTripsMs.push(answeredAt - sentAt);
  if (stats.ik.latenciesMs.length > LATENCY_SAMPLES) stats.ik.latenciesMs.shift();
  if (stats.ik.roundTripsMs.length > LATENCY_SAMPLES) stats.ik.roundTripsMs.shift();
}

function drawTarget() {
  const { useHeading, heading } = headingArgs();
  const tone = statusTone($("status").dataset.status);
  for (const v of views) v.drawTarget(state.target, tone, useHeading ? heading : null);
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
    { target: targetPose(target), ...orientationArgs(), mode, speed: 0, max_step: 0 },
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
  if (result.status === 2 || result.status === 3) {
    // The message says the step, the IK status and the feasible part already.
    const ikName = IK_STATUS[result.ik_status] || result.ik_status;
    state.failed = { x: result.failed_point.x, y: result.failed_point.y, step: result.failed_step, label: `${name}${result.status === 2 ? ` (${ikName})` : ""} at step ${result.failed_step}/${result.total_steps}, feasible ${(100 * result.feasible_fraction).toFixed(0)} %` };
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
  buildReadouts(state.chain, `${joints}R${namespace ? `, ${namespace}` : ""}`);
  $("heading-control").hidden = !hasHeading();
  fields.setArm({ joints });
  fields.show({ heading: state.heading });
  for (const v of views) v.setChain(state.chain);
  stats.view = { ...view.transform };
  if (state.target) setTarget(state.target.x, state.target.y); // a new session: solved again
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
ros.subscribe(names.trajectoryMarkers, "visualization_msgs/msg/MarkerArray", onPlanMarkers);
ros.subscribe(names.diagnostics, "diagnostic_msgs/msg/DiagnosticArray", onDiagnostics);

const resolve = () => state.target && setTarget(state.target.x, state.target.y);
$("branch").addEventListener("change", resolve);
$("use-heading").addEventListener("change", resolve);
$("heading").addEventListener("input", () => {
  setHeading((Number($("heading").value) * Math.PI) / 180, false);
  resolve();
});
$("move-line").addEventListener("click", () => sendMove(MOVE_LINEAR));
$("move-joints").addEventListener("click", () => sendMove(MOVE_JOINT));
$("cancel").addEventListener("click", () => state.goal && ros.cancelGoal(names.moveArm, state.goal.id));
window.addEventListener("resize", fitViews);
fitViews();
