// The main page's joint controls: a slider per arm joint and a "home" button (each a timed
// joint_trajectory that trajectory_node checks as any planner's), the link to the calibration
// page, and, on the simulated backend only, a button that makes the simulated bus fail (the
// fault banner shows what a real I2C fault looks like). It reads the joints' limits, speeds
// and home from the hardware node's calibration/state, and says so while calibration mode is
// on (then trajectory_node refuses every motion).

const JOINT_SPEED_FRACTION = 0.5; // of each joint's max_velocity_deg_s and max_acceleration_deg_s2
const SHORTEST_MOVE_S = 0.3;
const ACCELERATION_TIME_S = 0.25; // without an acceleration limit: full speed in this time (the config's rule)

// Seconds the fastest move over `distance` takes from rest to rest at most at `speed` and within
// `acceleration` (degrees): a trapezoid, or a triangle where it never reaches the speed.
function restToRestSeconds(distance, speed, acceleration) {
  if (distance * acceleration >= speed * speed) return distance / speed + speed / acceleration;
  return 2 * Math.sqrt(distance / acceleration);
}

export function element(tag, attributes, parent, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}

export class JogPanel {
  // box: an empty element of the panel; ros: the page's Rosbridge; namespace: "" or "/left_arm".
  constructor(box, ros, namespace) {
    this.box = box;
    this.ros = ros;
    this.namespace = namespace;
    this.names = {
      state: `${namespace}/calibration/state`,
      jointStates: `${namespace}/joint_states`,
      trajectory: `${namespace}/joint_trajectory`,
      fault: `${namespace}/simulate_fault`,
    };
    this.joints = []; // {joint, min, max, home, velocity} in degrees, the arm's joints
    this.live = new Map(); // name -> rad
    this.speeds = new Map(); // name -> rad/s, from the last two joint_states
    this.sent = new Map(); // name -> rad: where this panel's last move goes
    this.stamp = null; // the latest joint_states' stamp (s)
    this.faulted = false;
    this.built = false;
    box.classList.add("jog-panel");
    const details = element("details", { open: "" }, box);
    element("summary", {}, details, "Joints");
    this.rows = element("div", { id: "jog-rows" }, details);
    const buttons = element("div", { class: "buttons" }, details);
    this.homeButton = element("button", { id: "home", type: "button" }, buttons, "Home");
    this.homeButton.addEventListener("click", () => this.send(new Map(this.joints.map((j) => [j.joint, j.home]))));
    this.faultButton = element("button", { id: "simulate-fault", type: "button", hidden: "" }, buttons, "Simulate a bus fault");
    this.faultButton.addEventListener("click", () => this.toggleFault());
    this.note = element("div", { id: "jog-note", class: "message", role: "status" }, details);
    const link = element("a", { id: "calibration-link", href: `calibration.html${location.search}` }, details, "Calibrate the servos…");
    link.title = "the calibration page: zero, direction, stops, pulse range, gripper, home";
    ros.subscribe(this.names.state, "arm_kinematics_interfaces/msg/CalibrationState", (msg) => this.onState(msg));
    ros.subscribe(this.names.jointStates, "sensor_msgs/msg/JointState", (msg) => this.onJointStates(msg), { throttle_rate: 0, queue_length: 1 });
    ros.subscribe("/diagnostics", "diagnostic_msgs/msg/DiagnosticArray", (msg) => this.onDiagnostics(msg));
  }

  onState(msg) {
    if (!this.built) this.build(msg);
    this.calibrating = msg.active;
    for (const input of this.rows.querySelectorAll("input")) input.disabled = msg.active;
    this.homeButton.disabled = msg.active;
    this.note.textContent = msg.active ? "Calibration mode is on (calibration page): the arm does not move from here until it ends." : "";
  }

  build(msg) {
    const gripper = msg.gripper_joint;
    this.joints = msg.calibration
      .filter((c) => c.joint !== gripper)
      .map((c) => ({
        joint: c.joint,
        min: c.joint_min_deg,
        max: c.joint_max_deg,
        home: c.home_deg,
        velocity: c.max_velocity_deg_s,
        acceleration: c.max_acceleration_deg_s2 || c.max_velocity_deg_s / ACCELERATION_TIME_S,
      }));
    for (const joint of this.joints) {
      const row = element("label", { class: "jog-row", "data-joint": joint.joint }, this.rows);
      element("span", { class: "jog-name" }, row, joint.joint);
      const input = element("input", { type: "range", min: joint.min, max: joint.max, step: 0.5, value: joint.home, "aria-label": `${joint.joint}, degrees` }, row);
      const value = element("span", { class: "jog-value" }, row, `${joint.home.toFixed(1)}°`);
      input.addEventListener("input", () => (value.textContent = `${Number(input.value).toFixed(1)}°`));
      input.addEventListener("change", () => this.send(new Map([[joint.joint, Number(input.value)]])));
      joint.input = input;
      joint.value = value;
    }
    this.built = true;
  }

  onJointStates(msg) {
    const stamp = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9;
    msg.name.forEach((n, i) => {
      const rad = Number(msg.position[i]);
      const before = this.live.get(n);
      const dt = stamp - (this.stamp ?? stamp);
      if (before !== undefined && dt > 0) this.speeds.set(n, (rad - before) / dt);
      this.live.set(n, rad);
    });
    this.stamp = stamp;
    for (const joint of this.joints) {
      const rad = this.live.get(joint.joint);
      if (rad === undefined || document.activeElement === joint.input) continue;
      joint.input.value = String((rad * 180) / Math.PI);
      joint.value.textContent = `${((rad * 180) / Math.PI).toFixed(1)}°`;
    }
  }

  // targets: joint -> degrees (the others stay where they are). One point, timed so that from
  // where it is now, starting and ending at rest, no joint needs more than JOINT_SPEED_FRACTION
  // of its speed and acceleration limits (trajectory_node refuses a first point sooner than the
  // limits allow). The arm may be anywhere between where joint_states last said and where this
  // panel's last move goes (the page's view lags), and a moving arm first decelerates along its
  // motion: the farthest of those, and the distance it may still go (v^2 / 2a), both ways.
  send(targets) {
    if (this.calibrating || this.joints.some((j) => !this.live.has(j.joint))) return;
    const positions = this.joints.map((j) => (targets.has(j.joint) ? (targets.get(j.joint) * Math.PI) / 180 : this.live.get(j.joint)));
    const seconds = Math.max(
      SHORTEST_MOVE_S,
      ...this.joints.map((j, i) => {
        const speed = (Math.abs(this.speeds.get(j.joint) ?? 0) * 180) / Math.PI;
        const stopping = (speed * speed) / j.acceleration; // twice v^2 / 2a: there and back
        const from = [this.live.get(j.joint), this.sent.get(j.joint) ?? this.live.get(j.joint)];
        const farthest = Math.max(...from.map((rad) => Math.abs(positions[i] - rad)));
        const distance = (farthest * 180) / Math.PI + stopping;
        return restToRestSeconds(distance, JOINT_SPEED_FRACTION * j.velocity, JOINT_SPEED_FRACTION * j.acceleration);
      }),
    );
    const sec = Math.floor(seconds);
    const msg = {
      joint_names: this.joints.map((j) => j.joint),
      points: [{ positions, time_from_start: { sec, nanosec: Math.round((seconds - sec) * 1e9) } }],
    };
    this.ros.send({ op: "publish", topic: this.names.trajectory, msg });
    this.joints.forEach((j, i) => this.sent.set(j.joint, positions[i]));
    this.note.textContent = `moving ${[...targets.keys()].join(", ")} in ${seconds.toFixed(1)} s`;
  }

  onDiagnostics(array) {
    for (const status of array.status || []) {
      const values = new Map((status.values || []).map((kv) => [kv.key, kv.value]));
      const ours = `${this.namespace}/hardware_node: servos`;
      if (status.name !== ours && status.name !== ours.slice(1)) continue;
      this.faultButton.hidden = values.get("backend") !== "sim";
      this.faulted = values.get("fault") === "true";
      this.faultButton.textContent = this.faulted ? "End the simulated fault" : "Simulate a bus fault";
    }
  }

  async toggleFault() {
    const answer = await this.ros.callService(this.names.fault, "std_srvs/srv/SetBool", { data: !this.faulted });
    this.note.textContent = answer.result ? answer.values.message : String(answer.values);
  }
}
