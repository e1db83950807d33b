// The calibration being found, as plain values: what the page's buttons record and what the
// params file gets. No ROS, no DOM.
//
// Positions the user marks (the zero, the stops, the pulse ends) are recorded as pulse widths
// (us): what the board sends is the physical truth, and it stays true when the pulse range is
// calibrated too. The file's values (servo degrees) come out of them with the trial pulse
// range at the end (fileValues). The servo -> joint arithmetic is the config's
// (servo_deg = offset_deg + sign * angle; a parallelogram servo's angle is its link's, the sum
// of the plane joints up to its own): display arithmetic, no kinematics.

const round2 = (value) => Math.round(value * 100) / 100;

export class ServoTrial {
  // file: the hardware node's ServoCalibration (its file's values).
  constructor(file) {
    this.file = file;
    this.joint = file.joint;
    this.linkage = file.linkage;
    this.sign = file.sign;
    this.actuation = file.actuation_range_deg;
    this.minPulse = file.min_pulse_us;
    this.maxPulse = file.max_pulse_us;
    const pulse = (deg) => this.filePulse(deg);
    this.zeroUs = pulse(file.offset_deg);
    this.lowUs = pulse(file.min_deg);
    this.highUs = pulse(file.max_deg);
    this.stopsMarked = false; // the travel comes from the stops and the margin once both are marked
    this.marginDeg = 3;
    this.jointMin = file.joint_min_deg;
    this.jointMax = file.joint_max_deg;
    this.home = file.home_deg;
    this.done = new Set(); // the steps done on this page: zero, sign, low, high, pulse-min, ...
  }

  // The running calibration's pulse width of a servo angle, and the trial one's inverse.
  filePulse(deg) {
    return this.file.min_pulse_us + (deg / this.file.actuation_range_deg) * (this.file.max_pulse_us - this.file.min_pulse_us);
  }

  degreesAt(us) {
    return ((us - this.minPulse) / (this.maxPulse - this.minPulse)) * this.actuation;
  }

  get offset() {
    return this.degreesAt(this.zeroUs);
  }

  // The servo travel (servo degrees): the marked stops less the margin, else the file's.
  get travel() {
    if (!this.stopsMarked) return [this.degreesAt(this.lowUs), this.degreesAt(this.highUs)];
    const [low, high] = [this.degreesAt(this.lowUs), this.degreesAt(this.highUs)].sort((a, b) => a - b);
    return [low + this.marginDeg, high - this.marginDeg];
  }

  // The angle this servo sets (deg: the joint's, or the link's for a parallelogram) at a
  // servo angle, with the trial offset and sign.
  setAngle(servoDeg) {
    return this.sign * (servoDeg - this.offset);
  }

  // The joint angles the travel allows (a direct servo), sorted.
  travelJointRange() {
    const ends = this.travel.map((deg) => this.setAngle(deg)).sort((a, b) => a - b);
    return ends;
  }

  markZero(us) {
    this.zeroUs = us;
    this.done.add("zero");
  }

  // "This way is positive": the servo stands at `us`, away from the zero. An error text, or null.
  markPositive(us) {
    const moved = this.degreesAt(us) - this.offset;
    if (Math.abs(moved) < 2) return `jog at least 2° away from the zero first (now ${moved.toFixed(1)}°)`;
    this.sign = moved > 0 ? 1 : -1;
    this.done.add("sign");
    return null;
  }

  markStop(which, us) {
    if (which === "low") this.lowUs = us;
    else this.highUs = us;
    this.done.add(which);
    if (this.done.has("low") && this.done.has("high")) {
      this.stopsMarked = true;
      this.narrowLimits();
    }
  }

  // Joint limits that map outside the new travel are narrowed to it (a direct servo).
  narrowLimits() {
    if (this.linkage !== "direct") return;
    const [low, high] = this.travelJointRange();
    this.jointMin = round2(Math.max(this.jointMin, Math.ceil(low * 100) / 100));
    this.jointMax = round2(Math.min(this.jointMax, Math.floor(high * 100) / 100));
  }

  markPulse(which, us, actuation) {
    if (which === "min") this.minPulse = Math.round(us);
    else this.maxPulse = Math.round(us);
    if (actuation > 0) this.actuation = actuation;
    this.done.add(`pulse-${which}`);
  }

  // name -> value of every calibration parameter of this servo, in the file's units (the
  // node writes a value equal to the file's as the file has it, a new one to 0.01°).
  fileValues() {
    const p = `joints.${this.joint}`;
    const [low, high] = this.travel;
    return {
      [`${p}.min_deg`]: this.jointMin,
      [`${p}.max_deg`]: this.jointMax,
      [`${p}.home_deg`]: this.home,
      [`${p}.servo.offset_deg`]: this.offset,
      [`${p}.servo.sign`]: this.sign,
      [`${p}.servo.min_deg`]: low,
      [`${p}.servo.max_deg`]: high,
      [`${p}.servo.actuation_range_deg`]: this.actuation,
      [`${p}.servo.min_pulse_us`]: this.minPulse,
      [`${p}.servo.max_pulse_us`]: this.maxPulse,
    };
  }
}

export class ArmTrial {
  // state: the first calibration/state; planeJoints: indices of the arm joints that turn in
  // the arm's plane (a parallelogram servo sums them up to its own).
  constructor(state, planeJoints) {
    this.servos = state.calibration.map((c) => new ServoTrial(c));
    this.gripperJoint = state.gripper_joint || "";
    this.gripperOpen = state.gripper_open_deg;
    this.gripperClosed = state.gripper_closed_deg;
    this.planeJoints = planeJoints;
  }

  servo(joint) {
    return this.servos.find((s) => s.joint === joint);
  }

  // Joint angles (deg, name -> value) from the servos' angles now (name -> servo deg), by
  // the trial values.
  jointAngles(servoDegrees) {
    const angles = new Map();
    this.servos.forEach((servo, index) => {
      const set = servo.setAngle(servoDegrees.get(servo.joint));
      if (servo.linkage !== "parallelogram") {
        angles.set(servo.joint, set);
        return;
      }
      const before = this.planeJoints.filter((j) => j < index).map((j) => angles.get(this.servos[j].joint));
      angles.set(servo.joint, set - before.reduce((a, b) => a + b, 0));
    });
    return angles;
  }

  markHome(servoDegrees) {
    const angles = this.jointAngles(servoDegrees);
    for (const servo of this.servos) {
      servo.home = round2(angles.get(servo.joint));
      servo.done.add("home");
    }
  }

  markGripper(which, servoDegrees) {
    const angle = round2(this.jointAngles(servoDegrees).get(this.gripperJoint));
    if (which === "open") this.gripperOpen = angle;
    else this.gripperClosed = angle;
    this.servo(this.gripperJoint).done.add(`gripper-${which}`);
  }

  // {names, values} for calibration/preview and calibration/save.
  request() {
    const values = {};
    for (const servo of this.servos) Object.assign(values, servo.fileValues());
    if (this.gripperJoint) {
      values["gripper.open_deg"] = this.gripperOpen;
      values["gripper.closed_deg"] = this.gripperClosed;
    }
    return { names: Object.keys(values), values: Object.values(values).map(Number) };
  }
}
