// Named poses on the page: save the current pose under a name (named_poses/save), the list
// (named_poses/list: `home` first, each with where it puts the tool and why it cannot be used,
// if it cannot), and per pose "Move to" (a JOINT move_arm goal to the named pose) and "Delete"
// (named_poses/delete). The trajectory node keeps and checks them (docs/sequences.md).

import { MOVE_STATUS, setStatus } from "./panel.js";
import { element } from "./jog_panel.js";

const JOINT = 1; // MoveArm.Goal.JOINT
const GOAL_SUCCEEDED = 4;

export class NamedPosesBox {
  constructor(details, teach) {
    this.teach = teach;
    this.goal = null; // this box's running move_arm goal id
    element("summary", {}, details, "Named poses");
    const row = element("div", { class: "teach-row" }, details);
    this.name = element("input", { id: "pose-name", type: "text", maxlength: "64", placeholder: "name, e.g. above_box", "aria-label": "name of the pose to save" }, row);
    this.saveButton = element("button", { id: "pose-save", type: "button" }, row, "Save the current pose");
    const replace = element("label", { class: "inline small" }, details);
    this.replace = element("input", { id: "pose-replace", type: "checkbox" }, replace);
    replace.append(" replace a pose of that name");
    this.list = element("ul", { id: "pose-list", class: "teach-list" }, details);
    const buttons = element("div", { class: "buttons" }, details);
    this.refreshButton = element("button", { id: "pose-refresh", type: "button" }, buttons, "Refresh");
    this.cancelButton = element("button", { id: "pose-cancel", type: "button", disabled: "" }, buttons, "Cancel the move");
    element("div", { id: "pose-status", class: "status", "data-status": "" }, details);
    element("div", { id: "pose-message", class: "message short", tabindex: "0" }, details);
    this.saveButton.addEventListener("click", () => this.save());
    this.name.addEventListener("keydown", (event) => event.key === "Enter" && this.save());
    this.refreshButton.addEventListener("click", () => this.refresh());
    this.cancelButton.addEventListener("click", () => this.goal && teach.ros.cancelGoal(teach.names.moveArm, this.goal));
  }

  async save() {
    const name = this.name.value.trim();
    if (!name) {
      setStatus("pose-status", "NO NAME", "type a name for the pose first");
      return;
    }
    const answer = await this.teach.change("pose-status", "savePose", "SaveNamedPose", { name, overwrite: this.replace.checked });
    if (answer && answer.success) this.name.value = "";
    this.refresh();
  }

  // Reads the list again and shows it; the recorder's choice of poses follows.
  async refresh() {
    const answer = await this.teach.ask("pose-status", "listPoses", "ListNamedPoses", {});
    if (!answer) return;
    if (!answer.success) setStatus("pose-status", "REFUSED", answer.message);
    this.list.replaceChildren();
    answer.poses.forEach((pose, i) => this.show(pose, answer.problems[i] || ""));
    this.teach.posesChanged(answer.poses.filter((p, i) => !answer.problems[i]).map((p) => p.name));
  }

  show(pose, problem) {
    const item = element("li", { "data-pose": pose.name }, this.list);
    element("span", { class: "pose-name" }, item, pose.name);
    const p = pose.tool.pose.position;
    const where = [p.x, p.y, ...(this.teach.chain && this.teach.chain.spatial ? [p.z] : [])].map((v) => (v * 100).toFixed(1));
    element("span", { class: "small" }, item, ` (${where.join(", ")}) cm`);
    const move = element("button", { type: "button", class: "pose-move" }, item, "Move to");
    move.addEventListener("click", () => this.moveTo(pose.name));
    if (pose.name !== "home") {
      const remove = element("button", { type: "button", class: "pose-delete" }, item, "Delete");
      remove.addEventListener("click", () => this.remove(pose.name));
    }
    if (problem) {
      move.disabled = true;
      element("div", { class: "pose-problem small" }, item, problem);
    }
    item.title = pose.saved_at ? `saved ${pose.saved_at}` : "the params file's home";
  }

  async remove(name) {
    await this.teach.change("pose-status", "deletePose", "DeleteNamedPose", { name });
    this.refresh();
  }

  // A JOINT move to the named pose; a newer one from this box replaces it (the node's rule).
  moveTo(name) {
    const teach = this.teach;
    const id = teach.ros.sendGoal(
      teach.names.moveArm,
      "arm_kinematics_interfaces/action/MoveArm",
      { named_pose: name, mode: JOINT },
      (feedback) => this.goal === id && setStatus("pose-status", "MOVING", `to ${name}: ${(100 * feedback.fraction).toFixed(0)} %`),
      (message) => this.goal === id && this.ended(name, message),
    );
    if (id === null) {
      setStatus("pose-status", "NOT CONNECTED", "the bridge is not connected: nothing was sent");
      return;
    }
    this.goal = id;
    this.cancelButton.disabled = false;
    setStatus("pose-status", "PLANNING", `a joint move to ${name}`);
  }

  ended(name, message) {
    this.goal = null;
    this.cancelButton.disabled = true;
    if (!message.result) {
      setStatus("pose-status", "NO RESULT", String(message.values));
      return;
    }
    const status = MOVE_STATUS[message.values.status] || `status ${message.values.status}`;
    const words = message.status === GOAL_SUCCEEDED ? `at ${name}` : message.values.message;
    setStatus("pose-status", status, words);
  }
}
