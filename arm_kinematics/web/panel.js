// The panel: status boxes, the joint readouts, the target's number fields. It shows what it is
// given and reports what the user typed; it knows nothing of ROS or of the drawing.
// Units on the page: centimetres for positions, degrees for angles (radians and metres inside).

const $ = (id) => document.getElementById(id);
export const degrees = (rad) => (rad * 180) / Math.PI;
// MoveArm's result statuses by value (arm_kinematics_interfaces/action/MoveArm.action).
export const MOVE_STATUS = ["SUCCEEDED", "INVALID_GOAL", "IK_FAILED", "JOINT_JUMP", "CANCELED", "PREEMPTED",
  "IK_UNAVAILABLE", "HARDWARE_FAULT", "NO_JOINT_STATE", "SHUTDOWN", "CALIBRATING"];

// --- status boxes ---------------------------------------------------------------------------

// The tone (colour class) of a status word. A stop the user (or a newer goal) asked for is
// neutral, not an error; "nothing asked yet" and "no connection" are grey.
export function statusTone(name) {
  if (name === "OK" || name === "SUCCEEDED" || name === "REACHED" || name === "LOADED") return "ok";
  if (name === "SINGULAR") return "singular";
  if (name === "SOLVING…" || name === "PLANNING" || name === "MOVING") return "busy";
  if (name === "CANCELED" || name === "PREEMPTED") return "stopped";
  if (name === "READY" || name === "NOT CONNECTED" || name === "") return "idle";
  return "refused";
}

// The nodes' messages start with their status word for logs and the command line
// ("TOO_FAR: target ..."); next to a box that already shows the word, it is said once.
export function withoutStatusWord(name, message) {
  const text = String(message ?? "");
  return text.startsWith(`${name}: `) ? text.slice(name.length + 2) : text;
}

// box: "status" (the IK answer), "move-status" (the last goal), "gripper-status" (the
// gripper's last goal) or "jog-status" (the jog's); its message box is "status-message",
// "move-message", "gripper-message", "jog-message". An empty name clears the box (its place is
// kept, so nothing below it moves). tone: the name's own unless given (statusTone's classes).
export function setStatus(box, name, message = "", tone = statusTone(name)) {
  const element = $(box);
  element.textContent = name;
  element.dataset.status = name;
  element.className = `status ${tone}`;
  const text = withoutStatusWord(name, message);
  const messageBox = $(box === "status" ? "status-message" : box.replace(/-status$/, "-message"));
  messageBox.textContent = text;
  messageBox.title = text; // the whole text on hover, when the box has to scroll
  messageBox.scrollTop = 0;
}

// --- joint readouts ---------------------------------------------------------------------------

export function buildReadouts(chain, label) {
  const body = $("joint-readouts").querySelector("tbody");
  body.replaceChildren();
  for (const joint of chain.movable) {
    const row = document.createElement("tr");
    row.dataset.joint = joint.name;
    row.innerHTML = `<td class="name"></td><td class="solution" data-rad="">–<div class="bar"><i hidden></i></div></td>
      <td class="limits"></td><td class="live">–</td>`;
    row.querySelector(".name").textContent = joint.name;
    row.querySelector(".limits").textContent = `${degrees(joint.lower).toFixed(0)}…${degrees(joint.upper).toFixed(0)}°`;
    body.appendChild(row);
  }
  $("arm-name").textContent = `(${label})`;
}

// joints: name -> rad of the solution, or null (a refused target: no angles, no ticks).
export function showSolution(chain, joints, manipulability) {
  for (const row of document.querySelectorAll("#joint-readouts tbody tr")) {
    const cell = row.querySelector(".solution");
    const tick = cell.querySelector(".bar i");
    const rad = joints ? joints.get(row.dataset.joint) : undefined;
    if (rad === undefined) {
      cell.firstChild.textContent = "–";
      cell.dataset.rad = "";
      tick.hidden = true;
      continue;
    }
    const joint = chain.movable.find((j) => j.name === row.dataset.joint);
    cell.firstChild.textContent = `${degrees(rad).toFixed(2)}°`;
    cell.dataset.rad = rad;
    const fraction = (rad - joint.lower) / (joint.upper - joint.lower);
    tick.style.left = `calc(${(100 * Math.min(1, Math.max(0, fraction))).toFixed(1)}% - 1px)`;
    tick.hidden = false;
  }
  const shown = $("manipulability");
  shown.textContent = joints ? `${(manipulability * 1e4).toFixed(2)} cm²` : "–";
  shown.dataset.value = joints ? manipulability : ""; // m^2
}

export function showLive(chain, joints) {
  for (const joint of chain.movable) {
    const cell = document.querySelector(`#joint-readouts tr[data-joint="${CSS.escape(joint.name)}"] td.live`);
    if (cell && joints.has(joint.name)) cell.textContent = `${degrees(joints.get(joint.name)).toFixed(1)}°`;
  }
}

// --- the target's number fields ---------------------------------------------------------------

// One row of fields, one per coordinate of the target, in the page's units: `perUnit` of them
// make one of the target's unit (100 cm per m, 180/π degrees per rad); `range` bounds what may be
// typed; `shown` says for which arm ({joints, spatial, roll}) a field exists.
export const TARGET_FIELDS = [
  { key: "x", label: "x", unit: "cm", perUnit: 100, digits: 1 },
  { key: "y", label: "y", unit: "cm", perUnit: 100, digits: 1 },
  { key: "z", label: "z", unit: "cm", perUnit: 100, digits: 1, shown: (arm) => Boolean(arm.spatial) },
  { key: "heading", label: "heading", unit: "°", perUnit: 180 / Math.PI, digits: 0, range: [-180, 180], shown: (arm) => !arm.spatial && arm.joints >= 3 },
  { key: "pitch", label: "pitch", unit: "°", perUnit: 180 / Math.PI, digits: 0, range: [-180, 180], shown: (arm) => Boolean(arm.spatial) },
  { key: "roll", label: "roll", unit: "°", perUnit: 180 / Math.PI, digits: 0, range: [-180, 180], shown: (arm) => Boolean(arm.spatial && arm.roll) },
];

const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)(e[+-]?\d+)?$/i;

// A typed value in the field's unit, or the reason it is not one.
export function parseField(field, text) {
  const trimmed = text.trim();
  if (trimmed === "") return { error: `${field.label}: type a number` };
  if (!NUMBER.test(trimmed)) return { error: `${field.label}: "${trimmed}" is not a number` };
  const value = Number(trimmed.replace(",", "."));
  if (!Number.isFinite(value)) return { error: `${field.label}: "${trimmed}" is not a finite number` };
  if (field.range && (value < field.range[0] || value > field.range[1]))
    return { error: `${field.label}: ${value} ${field.unit} is outside ${field.range[0]}…${field.range[1]} ${field.unit}` };
  return { value };
}

export class TargetFields {
  // onCommit(values, changed): values maps each shown field's key to its value in the target's
  // unit (m, rad), changed is the set of keys the user typed; called on Enter, or when a changed
  // field is left, and only when every field holds a valid number.
  constructor(container, errorBox, onCommit) {
    this.errorBox = errorBox;
    this.onCommit = onCommit;
    this.inputs = new Map();
    this.current = {}; // key -> the exact value last shown (a drag's target is not rounded)
    for (const field of TARGET_FIELDS) {
      const label = document.createElement("label");
      label.className = "field";
      label.dataset.key = field.key;
      label.innerHTML = `<span class="field-name"></span><input type="text" inputmode="decimal" autocomplete="off" spellcheck="false"><span class="unit"></span>`;
      label.querySelector(".field-name").textContent = field.label;
      label.querySelector(".unit").textContent = field.unit;
      const input = label.querySelector("input");
      input.id = `target-${field.key}`;
      input.dataset.shown = "";
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") this.commit(true);
      });
      input.addEventListener("change", () => this.commit(false));
      container.appendChild(label);
      this.inputs.set(field.key, { field, input, label });
    }
  }

  // Which fields this arm has ({joints: n}).
  setArm(arm) {
    for (const { field, label } of this.inputs.values()) label.hidden = field.shown ? !field.shown(arm) : false;
  }

  visible() {
    return [...this.inputs.values()].filter(({ label }) => !label.hidden);
  }

  // Shows values (key -> value in the target's unit) without committing them.
  show(values) {
    for (const [key, value] of Object.entries(values)) {
      const entry = this.inputs.get(key);
      if (!entry || value === null || value === undefined) continue;
      this.current[key] = value;
      const text = (value * entry.field.perUnit).toFixed(entry.field.digits);
      entry.input.value = text;
      entry.input.dataset.shown = text;
      this.mark(entry.input, "");
    }
  }

  // An invalid field is marked (red, aria-invalid) and its reason shown under the row.
  mark(input, error) {
    input.dataset.error = error;
    input.classList.toggle("invalid", Boolean(error));
    input.setAttribute("aria-invalid", error ? "true" : "false");
    this.errorBox.textContent = this.visible()
      .map((entry) => entry.input.dataset.error)
      .filter(Boolean)
      .join("; ");
  }

  // force: Enter (solves even an unchanged row); otherwise only when something was changed.
  commit(force) {
    const values = {};
    const changed = new Set();
    let valid = true;
    for (const { field, input } of this.visible()) {
      const parsed = parseField(field, input.value);
      this.mark(input, parsed.error || "");
      if (parsed.error) valid = false;
      else if (input.value.trim() !== input.dataset.shown || !(field.key in this.current)) {
        values[field.key] = parsed.value / field.perUnit;
        changed.add(field.key);
      } else values[field.key] = this.current[field.key];
    }
    if (!valid || !(force || changed.size)) return;
    for (const { field, input } of this.visible()) {
      input.dataset.shown = input.value.trim();
      this.current[field.key] = values[field.key];
    }
    this.onCommit(values, changed);
  }
}
