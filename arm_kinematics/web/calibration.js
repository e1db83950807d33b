// The calibration page: guided steps, joint by joint and the gripper, driving the hardware
// node's calibration mode over the rosbridge protocol (calibration/enter, jog, release_all,
// heartbeat, preview, save, leave; calibration/state). The servos move only by the node's
// jogs (bounded by each servo's physical range, slewed); the values being found live in
// calibration_model.js until they are saved; the drawing is calibration_view.js.
//
//   calibration.html?ns=/left_arm   a namespaced arm     ?bridge=ws://host:9090   another bridge
//
// window.calibrationStats carries what the tests read (the last state, answers).

import { Rosbridge } from "./rosbridge.js";
import { ArmChain } from "./urdf.js";
import { ArmTrial } from "./calibration_model.js";
import { TrialView } from "./calibration_view.js";

const TRIGGER = "std_srvs/srv/Trigger";
const JOG = "arm_kinematics_interfaces/srv/JogServo";
const FILE = "arm_kinematics_interfaces/srv/CalibrationFile";
const DEGREES = 0;
const PULSE_US = 1;
const STEPS = { [DEGREES]: [-5, -1, -0.5, 0.5, 1, 5], [PULSE_US]: [-50, -10, -5, 5, 10, 50] };
const HEARTBEAT_MS = 1000;

const query = new URLSearchParams(location.search);
const namespace = (query.get("ns") || "").replace(/\/+$/, "").replace(/^([^/])/, "/$1");
const bridgeUrl = query.get("bridge") || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
const name = (n) => `${namespace}/${n}`;

const $ = (id) => document.getElementById(id);
const stats = { state: null, answers: [], previews: 0, saves: 0 };
window.calibrationStats = stats;

const page = {
  state: null, // the latest calibration/state
  trial: null, // ArmTrial: the values being found
  chain: null,
  selected: null, // the joint being calibrated
  preview: null, // {sha256, request} of the diff shown
  note: null, // the state's last message, shown once
};
const view = new TrialView($("trial-view"));

// --- the node's answers ------------------------------------------------------------------

function say(text, tone = "") {
  const box = $("mode-message");
  box.textContent = text;
  box.dataset.tone = tone;
}

async function call(service, type, args = {}) {
  const answer = await ros.callService(name(service), type, args);
  const values = answer.result ? answer.values : { success: false, message: String(answer.values) };
  stats.answers.push({ service, values });
  return values;
}

function servoNow(joint) {
  return page.state ? page.state.servos.find((s) => s.joint === joint) : null;
}

function servoDegrees() {
  return new Map(page.state.servos.map((s) => [s.joint, s.servo_deg]));
}

function onState(state) {
  const first = !page.state;
  page.state = state;
  stats.state = state;
  const mode = $("mode");
  mode.textContent = state.active ? "CALIBRATION MODE ON" : "calibration mode off";
  mode.className = `status ${state.active ? "busy" : "idle"}`;
  mode.dataset.active = String(state.active);
  $("enter").disabled = state.active;
  $("leave").disabled = !state.active;
  $("release-all").disabled = !state.active;
  $("jog").disabled = !state.active;
  if (!state.config_file) $("new-name").textContent = "unknown: the node has no config_file";
  else $("new-name").textContent = state.config_file.replace(/(\.calibrated)?\.ya?ml$/, ".calibrated.yaml").split("/").pop();
  if (first || !page.trial) startTrial();
  showServo();
  draw();
  if (state.message !== page.note) {
    page.note = state.message; // what the node did last (entered, left on a timeout, ...)
    say(state.message, state.active ? "" : "idle");
  }
}

function startTrial() {
  if (!page.state || !page.chain) return;
  const movable = page.chain.movable.map((j) => j.name);
  const spatial = view.spatial;
  const arm = page.state.calibration.filter((c) => c.joint !== page.state.gripper_joint);
  const plane = arm.map((c, i) => i).filter((i) => !spatial || (i > 0 && movable.includes(arm[i].joint) && !isRoll(arm[i].joint)));
  page.trial = new ArmTrial(page.state, plane);
  buildServoList();
  select(page.selected || page.state.calibration[0].joint);
}

function isRoll(joint) {
  const urdfJoint = page.chain.movable.find((j) => j.name === joint);
  return urdfJoint && urdfJoint.axis.map(Math.round).join(" ") === "1 0 0";
}

// --- the servo list and the selected servo -----------------------------------------------

function buildServoList() {
  const list = $("servo-list");
  list.replaceChildren();
  for (const servo of page.trial.servos) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.joint = servo.joint;
    const gripper = servo.joint === page.trial.gripperJoint ? " (gripper)" : "";
    button.textContent = `${servo.joint}${gripper}, ch ${servo.file.channel}`;
    button.addEventListener("click", () => select(servo.joint));
    list.appendChild(button);
  }
}

function select(joint) {
  page.selected = joint;
  for (const button of $("servo-list").children) button.setAttribute("aria-pressed", String(button.dataset.joint === joint));
  const servo = page.trial.servo(joint);
  $("jog-joint").textContent = `${joint} (channel ${servo.file.channel})`;
  $("gripper-step").hidden = joint !== page.trial.gripperJoint;
  $("actuation").value = String(servo.actuation);
  $("margin").value = String(servo.marginDeg);
  const parallelogram = servo.linkage === "parallelogram";
  $("zero-words").textContent = parallelogram
    ? "This servo drives its link through a parallelogram: jog until the link is level (its angle in the arm's plane is 0)."
    : joint === page.trial.gripperJoint
      ? "Jog until the gripper joint is at its zero (for most claws: the fingers touching)."
      : "Jog until the joint is at its zero (the link in line with the one before).";
  $("positive-words").textContent = view.spatial && joint !== page.state.calibration[0].joint ? "a pitch joint raises its link, a roll turns right-handed about the tool" : "counter-clockwise seen from above";
  buildSteps();
  showServo();
  draw();
}

function jogMode() {
  return Number($("jog-mode").value);
}

function buildSteps() {
  const box = $("jog-steps");
  box.replaceChildren();
  const unit = jogMode() === DEGREES ? "°" : " µs";
  for (const step of STEPS[jogMode()]) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.step = String(step);
    button.textContent = `${step > 0 ? "+" : "−"}${Math.abs(step)}${unit}`;
    button.addEventListener("click", () => jog(step, true));
    box.appendChild(button);
  }
  $("jog-unit").textContent = unit.trim();
  const servo = page.trial.servo(page.selected);
  const slider = $("jog-slider");
  slider.max = String(servo.file.actuation_range_deg);
}

function showServo() {
  if (!page.trial || !page.selected) return;
  const servo = page.trial.servo(page.selected);
  const now = servoNow(page.selected);
  if (now) {
    $("servo-deg").textContent = now.servo_deg.toFixed(1);
    $("servo-deg").dataset.value = now.servo_deg;
    $("pulse-us").textContent = now.pulse_us.toFixed(0);
    $("pulse-us").dataset.value = now.pulse_us;
    $("driven").textContent = now.driven ? (now.target_deg !== now.servo_deg ? "moving" : "driven") : "released (PWM off)";
    const joint = page.trial.jointAngles(servoDegrees()).get(page.selected);
    $("joint-deg").textContent = joint.toFixed(1);
    $("joint-deg").dataset.value = joint;
    if (document.activeElement !== $("jog-slider")) $("jog-slider").value = String(now.target_deg);
  }
  const [low, high] = servo.travel;
  $("value-offset").textContent = `offset ${servo.offset.toFixed(2)}°${servo.done.has("zero") ? " ✓" : " (file)"}`;
  $("value-sign").textContent = `sign ${servo.sign > 0 ? "+1" : "−1"}${servo.done.has("sign") ? " ✓" : " (file)"}`;
  $("value-travel").textContent = `travel ${low.toFixed(1)}…${high.toFixed(1)} servo °${servo.stopsMarked ? " ✓" : servo.done.has("low") || servo.done.has("high") ? " (one end marked)" : " (file)"}`;
  $("value-pulse").textContent = `${servo.minPulse}…${servo.maxPulse} µs over ${servo.actuation}°`;
  if (document.activeElement !== $("joint-min")) $("joint-min").value = String(servo.jointMin);
  if (document.activeElement !== $("joint-max")) $("joint-max").value = String(servo.jointMax);
  const [jLow, jHigh] = servo.travelJointRange();
  $("value-limits").textContent = servo.linkage === "direct" ? `the travel allows ${jLow.toFixed(1)}…${jHigh.toFixed(1)}°` : "a parallelogram servo's travel bounds its link";
  $("value-home").textContent = page.trial.servos.map((s) => `${s.joint} ${s.home.toFixed(1)}°`).join(", ");
  if (page.trial.gripperJoint) $("value-gripper").textContent = `open ${page.trial.gripperOpen.toFixed(1)}°, closed ${page.trial.gripperClosed.toFixed(1)}°`;
  for (const item of $("steps").children) {
    const step = item.dataset.step;
    const done = { zero: servo.done.has("zero"), sign: servo.done.has("sign"), stops: servo.stopsMarked, pulse: servo.done.has("pulse-min") || servo.done.has("pulse-max"), limits: false, gripper: servo.done.has("gripper-open") && servo.done.has("gripper-closed") }[step];
    item.classList.toggle("done", Boolean(done));
  }
}

function draw() {
  if (!page.trial || !page.state || !page.chain) return;
  const degrees = page.trial.jointAngles(servoDegrees());
  view.draw(new Map([...degrees].map(([joint, deg]) => [joint, (deg * Math.PI) / 180])), page.selected);
}

// --- jogging --------------------------------------------------------------------------------

async function jog(value, relative) {
  $("jog-error").textContent = "";
  const answer = await call("calibration/jog", JOG, { joint: page.selected, mode: jogMode(), relative, value });
  if (!answer.success) $("jog-error").textContent = answer.message;
  return answer;
}

function typedNumber(id) {
  const value = Number(String($(id).value).replace(",", "."));
  return $(id).value.trim() !== "" && Number.isFinite(value) ? value : null;
}

// --- the steps ------------------------------------------------------------------------------

function current() {
  const now = servoNow(page.selected);
  return { servo: page.trial.servo(page.selected), us: now.pulse_us };
}

function changed() {
  page.preview = null; // a new value: the diff shown is out of date
  $("save").disabled = true;
  showServo();
  draw();
}

function mark(id, action) {
  $(id).addEventListener("click", () => {
    if (!page.trial || !servoNow(page.selected)) return;
    const problem = action();
    say(problem || "", problem ? "refused" : "");
    changed();
  });
}

mark("mark-zero", () => {
  const { servo, us } = current();
  servo.markZero(us);
});
mark("mark-sign", () => {
  const { servo, us } = current();
  return servo.markPositive(us);
});
for (const which of ["low", "high"]) {
  mark(`mark-${which}`, () => {
    const { servo, us } = current();
    const margin = typedNumber("margin");
    if (margin === null || margin < 0) return "the margin must be a number of degrees, 0 or more";
    servo.marginDeg = margin;
    servo.markStop(which, us);
    return null;
  });
}
for (const which of ["min", "max"]) {
  mark(`mark-pulse-${which}`, () => {
    const { servo, us } = current();
    const actuation = typedNumber("actuation");
    if (actuation === null || actuation <= 0) return "say how many degrees the servo turns between the two pulse ends";
    servo.markPulse(which, us, actuation);
    return null;
  });
}
for (const which of ["open", "closed"]) mark(`mark-${which}`, () => page.trial.markGripper(which, servoDegrees()));
mark("mark-home", () => page.trial.markHome(servoDegrees()));
for (const [id, key] of [["joint-min", "jointMin"], ["joint-max", "jointMax"]]) {
  $(id).addEventListener("change", () => {
    const value = typedNumber(id);
    if (value === null) {
      say(`the joint limit must be a number of degrees (${$(id).value})`, "refused");
      return;
    }
    page.trial.servo(page.selected)[key] = value;
    changed();
  });
}

// --- saving ---------------------------------------------------------------------------------

function saveMode() {
  return Number(document.querySelector('input[name="save-mode"]:checked').value);
}

async function preview() {
  const request = { ...page.trial.request(), mode: saveMode(), expected_sha256: "" };
  const answer = await call("calibration/preview", FILE, request);
  stats.previews += 1;
  $("save-message").dataset.path = ""; // set by a save only
  $("save-message").textContent = answer.message;
  $("save-message").dataset.tone = answer.success ? "ok" : "refused";
  showDiff(answer.success ? answer.diff : "");
  page.preview = answer.success && answer.diff ? { sha256: answer.sha256, request } : null;
  $("save").disabled = !page.preview;
}

function showDiff(diff) {
  const box = $("diff");
  box.replaceChildren();
  for (const line of diff.split("\n")) {
    const span = document.createElement("span");
    span.className = line.startsWith("+") && !line.startsWith("+++") ? "added" : line.startsWith("-") && !line.startsWith("---") ? "removed" : "";
    span.textContent = `${line}\n`;
    box.appendChild(span);
  }
}

async function save() {
  if (!page.preview) return;
  const request = { ...page.preview.request, mode: saveMode(), expected_sha256: page.preview.sha256 };
  const answer = await call("calibration/save", FILE, request);
  stats.saves += 1;
  $("save-message").textContent = answer.message;
  $("save-message").dataset.tone = answer.success ? "ok" : "refused";
  $("save-message").dataset.path = answer.success ? answer.path : "";
  page.preview = null;
  $("save").disabled = true;
}

// --- the mode -------------------------------------------------------------------------------

$("enter").addEventListener("click", async () => {
  const answer = await call("calibration/enter", TRIGGER);
  say(answer.message, answer.success ? "" : "refused");
});
$("leave").addEventListener("click", async () => say((await call("calibration/leave", TRIGGER)).message));
$("release-all").addEventListener("click", async () => say((await call("calibration/release_all", TRIGGER)).message));
$("jog-mode").addEventListener("change", buildSteps);
$("jog-slider").addEventListener("change", () => {
  const degrees = Number($("jog-slider").value);
  const servo = page.trial.servo(page.selected);
  jog(jogMode() === DEGREES ? degrees : servo.file.min_pulse_us + (degrees / servo.file.actuation_range_deg) * (servo.file.max_pulse_us - servo.file.min_pulse_us), false);
});
$("jog-go").addEventListener("click", () => {
  const value = typedNumber("jog-value");
  if (value === null) $("jog-error").textContent = "type a number";
  else jog(value, false);
});
$("jog-value").addEventListener("keydown", (event) => event.key === "Enter" && $("jog-go").click());
$("preview").addEventListener("click", preview);
$("save").addEventListener("click", save);
for (const radio of document.querySelectorAll('input[name="save-mode"]')) radio.addEventListener("change", () => page.preview && preview());
document.addEventListener("keydown", (event) => {
  if (!page.state || !page.state.active || event.target.closest("input, select, textarea")) return;
  const steps = STEPS[jogMode()];
  const key = { "[": steps[2], "]": steps[3], "{": steps[0], "}": steps[5] }[event.key];
  if (key !== undefined) {
    event.preventDefault();
    jog(key, true);
  }
});

// The page is there: a heartbeat while the mode is on (the node leaves it without one).
setInterval(() => {
  if (ros.connected && page.state && page.state.active) call("calibration/heartbeat", TRIGGER);
}, HEARTBEAT_MS);

const ros = new Rosbridge(bridgeUrl, {
  onConnection: (connected, reason) => {
    $("connection-banner").hidden = connected;
    $("connection-banner").textContent = connected ? "" : `Not connected to the arm (${bridgeUrl}): ${reason}`;
  },
});
ros.subscribe(name("robot_description"), "std_msgs/msg/String", (msg) => {
  page.chain = ArmChain.parse(msg.data);
  view.setChain(page.chain);
  $("arm-name").textContent = `(${page.chain.movable.length} joints${namespace ? `, ${namespace}` : ""})`;
  if (!page.trial) startTrial();
  draw();
});
ros.subscribe(name("calibration/state"), "arm_kinematics_interfaces/msg/CalibrationState", onState);
$("main-page").href = `./${location.search}`;
window.addEventListener("resize", draw);
