// The gripper's controls: open, close and a slider sending goals on the hardware node's
// gripper action (control_msgs/GripperCommand, `gripper_controller/gripper_cmd`), its result
// (reached, stalled, ...) and the gripper's joint from joint_states. Its unit and ends come from
// the hardware node's own read-only parameters (`gripper.*` through its get_parameters service,
// as the `gripper` command reads them): metres between the fingers (`opening_m`, shown in mm) or
// the joint's angle (`angle_rad`, shown in degrees). Radians and metres on the wire.

import { degrees, setStatus } from "./panel.js";

// Asked in two requests (config/schema.py, GRIPPER_KIND_PARAMETERS): which gripper and its unit,
// then that unit's ends. A get_parameters request naming a parameter the node has not declared
// gets no value at all: no answer to the first means no gripper, and a gripper in angle_rad
// has no gripper.open_m. No action client is made for an arm without a gripper.
export const GRIPPER_KIND = ["gripper.joint", "gripper.position_unit"];
export const GRIPPER_ENDS = { opening_m: ["gripper.open_m", "gripper.closed_m"], angle_rad: ["gripper.open_deg", "gripper.closed_deg"] };
const GOAL_SUCCEEDED = 4; // action_msgs/GoalStatus
const GOAL_CANCELED = 5;
const PARAMETER_DOUBLE = 3; // rcl_interfaces/ParameterType
const PARAMETER_INTEGER = 2;
const PARAMETER_STRING = 4;

// The page's unit of each configured unit: shown per the action's unit.
const UNITS = {
  opening_m: { unit: "mm", perUnit: 1000, digits: 1, step: 0.5, words: "opening" },
  angle_rad: { unit: "°", perUnit: 180 / Math.PI, digits: 1, step: 1, words: "angle" },
};

function parameterValue(value) {
  if (!value) return null;
  if (value.type === PARAMETER_STRING) return value.string_value;
  if (value.type === PARAMETER_DOUBLE) return Number(value.double_value);
  if (value.type === PARAMETER_INTEGER) return Number(value.integer_value);
  return null; // not set: this hardware node has no such parameter
}

// The named values of a get_parameters answer (null where the answer has none).
export function namedValues(names, values) {
  return Object.fromEntries(names.map((name, i) => [name, parameterValue(values[i])]));
}

// {joint, unit, open, closed} (open and closed in the action's unit: m or rad) from the named
// values of both requests, or the reason there is none.
export function gripperOf(named) {
  if (!named["gripper.joint"]) return { none: "this arm has no gripper" };
  const unit = named["gripper.position_unit"];
  const ends =
    unit === "opening_m"
      ? [named["gripper.open_m"], named["gripper.closed_m"]]
      : unit === "angle_rad"
        ? [named["gripper.open_deg"], named["gripper.closed_deg"]].map((d) => (d === null ? null : (d * Math.PI) / 180))
        : [null, null];
  if (!UNITS[unit] || ends.some((v) => v === null || !Number.isFinite(v))) return { none: `the hardware node's gripper unit ${unit} is not known here` };
  return { joint: named["gripper.joint"], unit, open: ends[0], closed: ends[1] };
}

export class GripperControl {
  // names: {parameters, action} (resolved in the page's namespace); the elements by id:
  // #gripper (the section), #gripper-open, #gripper-close, #gripper-slider, #gripper-value,
  // #gripper-live, #gripper-status and #gripper-message.
  constructor(ros, names) {
    this.ros = ros;
    this.names = names;
    this.gripper = null;
    this.goal = null; // the rosbridge id of this page's running goal
    this.loads = 0;
    const $ = (id) => document.getElementById(id);
    this.elements = { section: $("gripper"), open: $("gripper-open"), close: $("gripper-close"), slider: $("gripper-slider"), value: $("gripper-value"), live: $("gripper-live"), unit: $("gripper-unit"), joint: $("gripper-joint") };
    this.elements.open.addEventListener("click", () => this.gripper && this.send(this.gripper.open));
    this.elements.close.addEventListener("click", () => this.gripper && this.send(this.gripper.closed));
    this.elements.slider.addEventListener("input", () => this.showSlider());
    this.elements.slider.addEventListener("change", () => this.gripper && this.send(Number(this.elements.slider.value) / this.page().perUnit));
  }

  page() {
    return UNITS[this.gripper.unit];
  }

  // A position in the action's unit (m or rad) as the page shows it.
  words(position) {
    const page = this.page();
    return `${(position * page.perUnit).toFixed(page.digits)} ${page.unit}`;
  }

  // Reads the gripper's parameters (a new session: the hardware node may be another one) and
  // shows the section only for an arm that has a gripper.
  async load() {
    const load = ++this.loads;
    const ask = async (names) => {
      const response = await this.ros.callService(this.names.parameters, "rcl_interfaces/srv/GetParameters", { names });
      if (!response.result) throw new Error(String(response.values));
      return namedValues(names, response.values.values || []);
    };
    let found;
    try {
      const named = await ask(GRIPPER_KIND);
      const ends = named["gripper.joint"] ? GRIPPER_ENDS[named["gripper.position_unit"]] : null;
      if (ends && load === this.loads) Object.assign(named, await ask(ends));
      found = gripperOf(named);
    } catch (error) {
      found = { none: error.message };
    }
    if (load !== this.loads) return; // a newer session asked again
    this.gripper = found.none ? null : found;
    this.elements.section.hidden = !this.gripper;
    if (!this.gripper) return;
    const page = this.page();
    const [low, high] = [this.gripper.open, this.gripper.closed].sort((a, b) => a - b).map((v) => v * page.perUnit);
    Object.assign(this.elements.slider, { min: String(low), max: String(high), step: String(page.step) });
    this.elements.slider.setAttribute("aria-label", `gripper ${page.words}, ${page.unit}`);
    this.elements.unit.textContent = page.words;
    this.elements.joint.textContent = `(${this.gripper.joint})`;
    if (!this.goal) this.elements.slider.value = String(this.gripper.open * page.perUnit); // until a goal says
    this.showSlider();
  }

  showSlider() {
    if (this.gripper) this.elements.value.textContent = `${Number(this.elements.slider.value).toFixed(this.page().digits)} ${this.page().unit}`;
  }

  // The gripper's joint from joint_states (name -> rad), in degrees.
  showLive(joints) {
    if (!this.gripper || !joints.has(this.gripper.joint)) return;
    const rad = joints.get(this.gripper.joint);
    this.elements.live.textContent = `${degrees(rad).toFixed(1)}°`;
    this.elements.live.dataset.rad = rad;
  }

  // Sends a goal to `position` (m or rad); a newer goal replaces this page's running one.
  send(position) {
    this.elements.slider.value = String(position * this.page().perUnit);
    this.showSlider();
    const id = this.ros.sendGoal(
      this.names.action,
      "control_msgs/action/GripperCommand",
      { command: { position, max_effort: 0 } },
      (feedback) => this.goal === id && setStatus("gripper-status", "MOVING", `at ${this.words(feedback.position)}`),
      (result) => this.goal === id && this.showResult(position, result),
    );
    if (id === null) {
      setStatus("gripper-status", "NOT CONNECTED", "the bridge is not connected: nothing was sent");
      return;
    }
    this.goal = id;
    setStatus("gripper-status", "MOVING", `to ${this.words(position)}`);
  }

  showResult(position, message) {
    this.goal = null;
    if (!message.result) {
      setStatus("gripper-status", "REJECTED", String(message.values));
      return;
    }
    const result = message.values;
    const at = `at ${this.words(result.position)}`;
    if (message.status === GOAL_SUCCEEDED && result.reached_goal) setStatus("gripper-status", "REACHED", `${at} (goal ${this.words(position)})`);
    else if (result.stalled) setStatus("gripper-status", "STALLED", `${at}, short of ${this.words(position)}: the fingers hold something`);
    else if (message.status === GOAL_CANCELED) setStatus("gripper-status", "CANCELED", at);
    else setStatus("gripper-status", "ABORTED", `${at}: a joint command, another client's goal or a fault ended it`);
  }

  // A session ended: nothing of the old one passes for an answer.
  clear() {
    this.goal = null;
    setStatus("gripper-status", "");
  }
}
