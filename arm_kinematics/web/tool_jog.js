// The tool's jog from the page, and the one STOP. The page sends velocities and draws
// joint_states; the trajectory node's jog (MoveIt Servo's topics, docs/jogging.md) moves the arm
// within its limits and says on servo_node/status what it does and what it dropped.
//
// - Keys (shown on the page as buttons, which a pointer or a finger may hold too): the arrows
//   move the tool in the base frame's x and y (as drawn from above), W/S or PageUp/PageDown up
//   and down, R/F tilt it up and down (pitch), Q/E turn it (a spatial arm's roll about the
//   tool's axis, a planar arm's heading) counter-clockwise and clockwise. A planar arm has
//   arrows and Q/E; a spatial arm all of them (what an arm cannot make the jog drops and says).
//   Keys jog only while the drawing or the jog box has the focus (a click on either gives it),
//   never while typing in a field; holding one moves, releasing it stops.
// - A gamepad (gamepad.js): nothing without its dead-man button held.
// - While anything asks for motion a TwistStamped goes to servo_node/delta_twist_cmds every
//   COMMAND_PERIOD_MS, the newest only (Rosbridge.publishLatest: none queues behind a slow
//   link); when nothing does, one zero twist (the jog decelerates to rest at once and lets the
//   stream go), then nothing.
// - Let go of everything (a zero twist now; keys must be pressed again, the gamepad's dead-man
//   released and pressed again) when the focus leaves the drawing and the box, the window loses
//   focus, the tab is hidden, the page is left, the connection drops, or STOP. Whatever the
//   page does not get to send, the jog's own timeout is the backstop: no command for 0.1 s
//   (moveit_servo.incoming_command_timeout) and the arm decelerates to rest.
// - STOP (the button, Escape anywhere on the page): the `stop` service, which ends every goal,
//   trajectory and jog at once, and the page lets go of its own jog.
//
// Rates: COMMAND_PERIOD_MS is the arm's command period (trajectory.command_rate_hz, 50 Hz), a
// fifth of the timeout, so four commands in a row may be late or lost before the arm brakes.

import { setStatus } from "./panel.js";
import { DEAD_MAN_BUTTON, GamepadReader } from "./gamepad.js";

export const COMMAND_PERIOD_MS = 20;
// 100 % of the speed slider: moveit_servo.scale.linear (m/s) and .rotational (rad/s), the most
// the jog takes by default (it caps a faster command at them).
export const FULL_SPEED = { linear: 0.1, angular: 1.0 };
const DEFAULT_SPEED_PERCENT = 30;

// ServoStatus codes (moveit_msgs) as the box shows them: the name and its tone.
const SERVO_STATUS = new Map([
  [-1, ["INVALID", "refused"]],
  [0, ["NO_WARNING", "ok"]],
  [1, ["DECELERATE_FOR_APPROACHING_SINGULARITY", "singular"]],
  [2, ["HALT_FOR_SINGULARITY", "refused"]],
  [3, ["DECELERATE_FOR_LEAVING_SINGULARITY", "singular"]],
  [4, ["DECELERATE_FOR_COLLISION", "singular"]],
  [5, ["HALT_FOR_COLLISION", "refused"]],
  [6, ["JOINT_BOUND", "singular"]],
]);

// The pad: each button a coordinate and its sign, the keys (KeyboardEvent.key; letters in lower
// case) that hold it, what its cap shows, which kind of arm has it.
const CONTROLS = [
  { id: "y-plus", axis: "y", sign: 1, keys: ["ArrowUp"], cap: "↑", words: "+y" },
  { id: "x-minus", axis: "x", sign: -1, keys: ["ArrowLeft"], cap: "←", words: "−x" },
  { id: "x-plus", axis: "x", sign: 1, keys: ["ArrowRight"], cap: "→", words: "+x" },
  { id: "y-minus", axis: "y", sign: -1, keys: ["ArrowDown"], cap: "↓", words: "−y" },
  { id: "z-plus", axis: "z", sign: 1, keys: ["w", "PageUp"], cap: "W", words: "up", spatial: true },
  { id: "z-minus", axis: "z", sign: -1, keys: ["s", "PageDown"], cap: "S", words: "down", spatial: true },
  { id: "pitch-plus", axis: "pitch", sign: 1, keys: ["r"], cap: "R", words: "up", spatial: true },
  { id: "pitch-minus", axis: "pitch", sign: -1, keys: ["f"], cap: "F", words: "down", spatial: true },
  { id: "turn-plus", axis: "turn", sign: 1, keys: ["q"], cap: "Q", words: "ccw" },
  { id: "turn-minus", axis: "turn", sign: -1, keys: ["e"], cap: "E", words: "cw" },
];
const GROUPS = [
  { name: "move", label: () => "move x, y", ids: ["y-plus", "x-minus", "x-plus", "y-minus"] },
  { name: "z", label: () => "z", ids: ["z-plus", "z-minus"], spatial: true },
  { name: "pitch", label: () => "pitch", ids: ["pitch-plus", "pitch-minus"], spatial: true },
  { name: "turn", label: (spatial) => (spatial ? "roll" : "heading"), ids: ["turn-plus", "turn-minus"] },
];
const AXES = ["x", "y", "z", "pitch", "turn"];
const ZERO_TWIST = { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } };
const KEPT_REASONS = 20; // stats.jog.letGo keeps the newest reasons

const keyName = (key) => (key.length === 1 ? key.toLowerCase() : key);
const clamp = (v) => Math.max(-1, Math.min(1, v));

// A vector's parts scaled so that its length is at most 1 (a diagonal is no faster).
function capped(values) {
  const length = Math.hypot(...values);
  return length > 1 ? values.map((v) => v / length) : values;
}

// The axes a twist's turns are about, from the live tool (the URDF chain at joint_states: the
// tip frame's origin and x axis, base frame). A spatial arm's pitch turns about its vertical
// plane's lateral axis (sin psi, -cos psi, 0), psi the tool's direction from the yaw axis, and
// its roll about the tool's x axis: the axes the jog reads a twist's angular velocity by
// (kinematics/jog/axes.py). A planar arm's heading turns about z.
export function turnAxes(chain, live) {
  if (!chain.spatial) return { pitch: [0, 0, 0], turn: [0, 0, 1] };
  const frames = chain.frames(live);
  const m = frames[frames.length - 1];
  const toolX = [m[0], m[4], m[8]];
  const psi = Math.hypot(m[3], m[7]) > 0 ? Math.atan2(m[7], m[3]) : Math.atan2(toolX[1], toolX[0]);
  return { pitch: [Math.sin(psi), -Math.cos(psi), 0], turn: toolX };
}

// The twist (base frame: linear m/s, angular rad/s) of the coordinates `axes` ({x, y, z,
// pitch, turn}, each -1..1) at `speed` ({linear, angular}) about `turns` (turnAxes).
export function twistOf(axes, speed, turns) {
  const [x, y, z] = capped([axes.x, axes.y, axes.z]).map((v) => v * speed.linear);
  const [pitch, turn] = capped([axes.pitch, axes.turn]).map((v) => v * speed.angular);
  const angular = [0, 1, 2].map((i) => pitch * turns.pitch[i] + turn * turns.turn[i]);
  return { linear: { x, y, z }, angular: { x: angular[0], y: angular[1], z: angular[2] } };
}

const BOX_HTML = `
  <fieldset class="tool-jog">
    <legend>Jog the tool</legend>
    <div id="jog-pad" class="jog-pad" tabindex="0" aria-label="jog keys: hold a key or a button to move the tool"></div>
    <div id="jog-keys-state" class="jog-help" role="status"></div>
    <label class="slider">speed <input type="range" id="jog-speed" min="5" max="100" step="5" value="${DEFAULT_SPEED_PERCENT}" aria-label="jog speed, percent"><span id="jog-speed-value" class="unit"></span></label>
    <div id="jog-gamepad" class="jog-help"></div>
    <div id="jog-status" class="status" data-status=""></div>
    <div id="jog-message" class="message short" tabindex="0"></div>
  </fieldset>`;

export class ToolJog {
  // box: an empty element of the panel; ros: the page's Rosbridge; names: {twist, status,
  // stop} in the page's namespace; drawings: the elements whose focus lets keys jog (the
  // views); stopButton: the page's STOP; live(): the latest joint_states (name -> rad);
  // stats: window.armStats (this adds `jog`).
  constructor(box, ros, names, { drawings, stopButton, live, stats }) {
    this.ros = ros;
    this.names = names;
    this.drawings = drawings;
    this.live = live;
    this.chain = null;
    this.keys = new Set(); // held keys (keyName)
    this.pointers = new Map(); // pointerId -> the pad control it holds
    this.gamepad = new GamepadReader();
    this.sending = false; // the last twist sent asked for motion
    this.wasConnected = false;
    // For the tests and the benchmark (performance.now(), ms): pressedAt, the last key or button
    // pressed; firstSentAt, the first twist asking for motion sent after it. stops: STOPs asked,
    // stopAnswers: the stop service's answers shown,
    // stopMessage: the last one's words.
    this.stats = { ticks: 0, sent: 0, zeros: 0, skipped: 0, stops: 0, stopAnswers: 0, stopMessage: null, letGo: [], pressedAt: null, firstSentAt: null, last: null, pad: "none" };
    stats.jog = this.stats;
    box.innerHTML = BOX_HTML;
    this.pad = box.querySelector("#jog-pad");
    this.speed = box.querySelector("#jog-speed");
    this.box = box;
    this.speed.addEventListener("input", () => this.showSpeed());
    this.showSpeed();
    for (const drawing of drawings) {
      drawing.tabIndex = -1; // focusable by a click, not a tab stop
      drawing.addEventListener("pointerdown", () => drawing.focus({ preventScroll: true }));
    }
    stopButton.addEventListener("click", () => this.stop());
    window.addEventListener("keydown", (event) => this.onKeyDown(event), true);
    window.addEventListener("keyup", (event) => this.onKeyUp(event), true);
    document.addEventListener("focusin", () => this.onFocusChange());
    document.addEventListener("focusout", () => setTimeout(() => this.onFocusChange()));
    window.addEventListener("blur", () => this.letGo("the window lost focus"));
    document.addEventListener("visibilitychange", () => document.hidden && this.letGo("the page was hidden"));
    window.addEventListener("pagehide", () => this.letGo("the page was left"));
    ros.subscribe(names.status, "moveit_msgs/msg/ServoStatus", (msg) => this.showServoStatus(msg));
    setInterval(() => this.tick(), COMMAND_PERIOD_MS);
    this.onFocusChange();
  }

  // The arm (an ArmChain): which keys it has.
  setArm(chain) {
    this.chain = chain;
    this.letGo("a new arm");
    this.pad.replaceChildren();
    for (const group of GROUPS.filter((g) => !g.spatial || chain.spatial)) {
      const column = document.createElement("div");
      column.className = `jog-group jog-group-${group.name}`;
      for (const id of group.ids) column.appendChild(this.padButton(CONTROLS.find((c) => c.id === id)));
      const label = document.createElement("span");
      label.className = "jog-group-label";
      label.textContent = group.label(chain.spatial);
      column.appendChild(label);
      this.pad.appendChild(column);
    }
    this.onFocusChange();
  }

  padButton(control) {
    const button = document.createElement("button");
    button.type = "button";
    button.id = `jog-${control.id}`;
    button.className = "jog-key";
    button.dataset.axis = control.axis;
    button.innerHTML = "<kbd></kbd><small></small>";
    button.querySelector("kbd").textContent = control.cap;
    button.querySelector("small").textContent = control.words;
    button.title = `${control.keys.join(" or ")}: ${control.axis} ${control.words}`;
    const release = (event) => {
      if (this.pointers.delete(event.pointerId)) this.changed();
    };
    button.addEventListener("pointerdown", (event) => {
      button.setPointerCapture(event.pointerId);
      this.pointers.set(event.pointerId, control);
      this.pressed(event);
    });
    for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) button.addEventListener(type, release);
    button.addEventListener("contextmenu", (event) => event.preventDefault()); // a long touch
    return button;
  }

  showSpeed() {
    const percent = Number(this.speed.value);
    const { linear, angular } = this.speedNow();
    this.speed.nextElementSibling.textContent = `${percent} %`;
    this.speed.title = `${(linear * 100).toFixed(1)} cm/s, ${((angular * 180) / Math.PI).toFixed(0)}°/s at most`;
  }

  speedNow() {
    const fraction = Number(this.speed.value) / 100;
    return { linear: FULL_SPEED.linear * fraction, angular: FULL_SPEED.angular * fraction };
  }

  // --- keys --------------------------------------------------------------------------------

  // The pad control a key holds on this arm, or null.
  controlOf(key) {
    if (!this.chain) return null;
    return CONTROLS.find((c) => c.keys.includes(key) && (!c.spatial || this.chain.spatial)) || null;
  }

  // Keys jog while the drawing or the jog box (but not its speed slider, whose arrows are its
  // own) has the focus.
  keysActive() {
    const focused = document.activeElement;
    if (!focused || focused === this.speed) return false;
    return this.box.contains(focused) || this.drawings.some((d) => d.contains(focused));
  }

  onKeyDown(event) {
    if (event.key === "Escape") {
      event.preventDefault();
      if (!event.repeat) this.stop(); // once per press, however long it is held
      return;
    }
    if (event.ctrlKey || event.altKey || event.metaKey) return; // the browser's shortcuts
    const key = keyName(event.key);
    if (!this.controlOf(key) || !this.keysActive()) return;
    event.preventDefault(); // no scrolling, no slider moved
    if (event.repeat) return; // a key held since the page let go stays let go until pressed again
    this.keys.add(key);
    this.pressed(event);
  }

  onKeyUp(event) {
    if (this.keys.delete(keyName(event.key))) this.changed();
  }

  pressed(event) {
    this.stats.pressedAt = event.timeStamp;
    this.stats.firstSentAt = null;
    this.changed();
  }

  // A key or button went down or up: shown, and sent at once (not at the next period).
  changed() {
    this.showHeld();
    this.tick();
  }

  onFocusChange() {
    const active = this.keysActive();
    if (!active && this.keys.size) this.letGo("the focus left the drawing and the jog box");
    this.box.firstElementChild.classList.toggle("keys-active", active);
    this.box.querySelector("#jog-keys-state").textContent = active
      ? `Keys on: ${this.keysWords()}; Esc stops everything.`
      : "Keys off: click the drawing or this box to jog with the keys (Esc stops everything).";
  }

  keysWords() {
    const spatial = this.chain && this.chain.spatial;
    return spatial ? "arrows move x, y; W/S up, down; R/F pitch; Q/E roll" : "arrows move x, y; Q/E heading";
  }

  // --- the stream ----------------------------------------------------------------------------

  // The pad controls held by keys and pointers.
  held() {
    return [...[...this.keys].map((k) => this.controlOf(k)), ...this.pointers.values()].filter(Boolean);
  }

  // The buttons of the held controls are shown pressed.
  showHeld() {
    const held = new Set(this.held().map((c) => c.id));
    for (const button of this.pad.querySelectorAll(".jog-key")) button.classList.toggle("held", held.has(button.id.slice(4)));
  }

  // What the keys, the pad's buttons and the gamepad ask for now: {x, y, z, pitch, turn}.
  wanted() {
    const axes = Object.fromEntries(AXES.map((a) => [a, 0]));
    for (const control of this.held()) axes[control.axis] += control.sign;
    // A page without the focus reads no gamepad (the browser may hand it another page's input).
    const pad = !document.hidden && document.hasFocus() ? this.gamepad.read() : { state: "unfocused", axes: {} };
    this.showGamepad(pad);
    for (const a of AXES) axes[a] += pad.axes[a] || 0;
    if (!this.chain.spatial) Object.assign(axes, { z: 0, pitch: 0 });
    for (const a of AXES) axes[a] = clamp(axes[a]);
    return axes;
  }

  tick() {
    this.stats.ticks += 1;
    if (this.wasConnected && !this.ros.connected) this.letGo("the connection was lost");
    // Advertised as the page connects, so that the jog's subscription has matched the bridge's
    // publisher before the first key press (a publisher made by the first twist would lose it).
    if (!this.wasConnected && this.ros.connected) this.ros.send({ op: "advertise", topic: this.names.twist, type: "geometry_msgs/msg/TwistStamped" });
    this.wasConnected = this.ros.connected;
    if (!this.chain || !this.ros.connected) return;
    const axes = this.wanted();
    const moving = AXES.some((a) => axes[a] !== 0);
    if (!moving && !this.sending) return;
    this.send(moving ? twistOf(axes, this.speedNow(), turnAxes(this.chain, this.live())) : ZERO_TWIST, moving);
  }

  // One twist, stamped by the bridge on arrival (the jog times a command by its arrival).
  send(twist, moving) {
    const msg = { header: { frame_id: this.chain.rootLink }, twist };
    if (!this.ros.publishLatest(this.names.twist, msg)) {
      this.stats.skipped += 1;
      return; // the newest goes next period; an unsent zero is sent again then too
    }
    const now = performance.now();
    this.sending = moving;
    this.stats.sent += 1;
    if (!moving) this.stats.zeros += 1;
    if (moving && this.stats.firstSentAt === null && this.stats.pressedAt !== null) this.stats.firstSentAt = now;
    this.stats.last = { ...twist, t: now };
  }

  // Forget every key and button held, make the gamepad wait for its dead-man again, and send
  // the zero twist now if a jog was asked for.
  letGo(reason) {
    const held = this.keys.size + this.pointers.size;
    this.keys.clear();
    this.pointers.clear();
    this.gamepad.disarm();
    this.showHeld();
    if (held || this.sending) this.stats.letGo = [...this.stats.letGo.slice(1 - KEPT_REASONS), reason];
    if (this.sending && this.chain && this.ros.connected) this.send(ZERO_TWIST, false);
  }

  showGamepad(pad) {
    this.stats.pad = pad.state;
    const line = this.box.querySelector("#jog-gamepad");
    const hold = `hold LB (the left shoulder button, ${DEAD_MAN_BUTTON}) to jog`;
    const words = {
      none: "Gamepad: none (connect one and press a button).",
      unfocused: "Gamepad: not read while the page does not have the focus.",
      "not standard": `Gamepad ${pad.pad}: not in the standard mapping, not used.`,
      released: `Gamepad: ${hold}; left stick x, y; right stick z and ${this.chain && this.chain.spatial ? "roll" : "heading"}; triggers pitch.`,
      waiting: "Gamepad: release LB and press it again to jog.",
      held: "Gamepad: jogging (release LB to stop).",
    }[pad.state];
    if (line.textContent !== words) line.textContent = words;
  }

  // --- status and STOP -----------------------------------------------------------------------

  showServoStatus(msg) {
    const [name, tone] = SERVO_STATUS.get(msg.code) || [`status ${msg.code}`, "refused"];
    setStatus("jog-status", name, msg.message, tone);
    document.getElementById("jog-status").title = name;
  }

  // The one STOP: every goal, trajectory and jog of the arm, then this page's own jog let go.
  async stop() {
    this.stats.stops += 1;
    if (!this.ros.connected) {
      this.letGo("STOP");
      setStatus("jog-status", "NOT CONNECTED", "nothing was sent: the bridge is not connected (a jog stops by itself without commands)");
      return;
    }
    setStatus("jog-status", "STOPPING", "", "busy");
    const call = this.ros.callService(this.names.stop, "std_srvs/srv/Trigger", {});
    this.letGo("STOP"); // after the call: its zero twist follows the request on the socket
    const answer = await call;
    this.stats.stopAnswers += 1;
    this.stats.stopMessage = answer.result ? answer.values.message : null;
    if (answer.result) setStatus("jog-status", "STOPPED", answer.values.message, "stopped");
    else setStatus("jog-status", "NO ANSWER", `stop: ${answer.values}`);
  }
}
