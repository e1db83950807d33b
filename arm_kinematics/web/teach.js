// The teach box (docs/page.md, "Teach"): named poses (teach_poses.js) and the sequence
// recorder (teach_recorder.js), both clients of the trajectory node's services and actions
// (docs/sequences.md) through the bridge. This module makes the box and shares what both need:
// the names, the arm's kind, the live pose as a typed pose, the gripper box's position.

import { NamedPosesBox } from "./teach_poses.js";
import { SequenceRecorder } from "./teach_recorder.js";
import { typedPose } from "./teach_program.js";
import { element } from "./jog_panel.js";
import { setStatus } from "./panel.js";


export class TeachPanel {
  // box: an empty element of the panel; ros: the page's Rosbridge; namespace: "" or "/left_arm";
  // live(): the latest joint_states (name -> rad); gripper: the page's GripperControl.
  constructor(box, ros, namespace, { live, gripper }) {
    this.ros = ros;
    this.live = live;
    this.gripper = gripper;
    this.chain = null;
    this.names = {
      savePose: `${namespace}/named_poses/save`,
      listPoses: `${namespace}/named_poses/list`,
      deletePose: `${namespace}/named_poses/delete`,
      saveSequence: `${namespace}/sequences/save`,
      listSequences: `${namespace}/sequences/list`,
      deleteSequence: `${namespace}/sequences/delete`,
      runSequence: `${namespace}/run_sequence`,
      moveArm: `${namespace}/move_arm`,
      computeFk: `${namespace}/compute_fk`,
    };
    box.classList.add("teach");
    this.poses = new NamedPosesBox(element("details", { open: "", id: "named-poses" }, box), this);
    this.recorder = new SequenceRecorder(element("details", { open: "", id: "recorder" }, box), this);
  }

  // The arm's chain (a new session): the lists are read again.
  setArm(chain) {
    this.chain = chain;
    this.poses.refresh();
    this.recorder.refreshSaved();
  }

  // A named pose was saved or deleted: the recorder's choice of poses follows.
  posesChanged(names) {
    this.recorder.setPoseNames(names);
  }

  // A service call's answer: the response's values, or throws the bridge's error text.
  async call(service, type, args) {
    const response = await this.ros.callService(this.names[service], `arm_kinematics_interfaces/srv/${type}`, args);
    if (!response.result) throw new Error(String(response.values));
    return response.values;
  }

  // The same, a failed call said in the status box `box` (setStatus's): the answer or null.
  async ask(box, service, type, args) {
    try {
      return await this.call(service, type, args);
    } catch (error) {
      setStatus(box, "NO ANSWER", error.message);
      return null;
    }
  }

  // A save or a delete: its answer (success and message) said in the status box `box`.
  async change(box, service, type, args) {
    const answer = await this.ask(box, service, type, args);
    if (answer) setStatus(box, answer.success ? "OK" : "REFUSED", answer.message);
    return answer;
  }

  // The arm at the latest joint_states as a typed pose of the program (compute_fk answers where
  // the tool is; typedPose writes it down in the program's keys), or throws why not.
  async livePose() {
    const chain = this.chain;
    const live = this.live();
    if (!chain || chain.movable.some((j) => !live.has(j.name))) throw new Error("no joint_states of the arm yet");
    const joints = { name: chain.movable.map((j) => j.name), position: chain.movable.map((j) => live.get(j.name)) };
    const answer = await this.call("computeFk", "ComputeFK", { joints });
    if (answer.status !== 0) throw new Error(answer.message);
    const pitchJoints = chain.movable.length - 1 - (chain.wristRoll ? 1 : 0);
    const arm = { spatial: chain.spatial, heading: !chain.spatial && chain.movable.length >= 3, pitch: chain.spatial && pitchJoints >= 3, roll: chain.wristRoll && pitchJoints >= 3 };
    return typedPose(answer.tip.pose, arm);
  }

  // The gripper box's gripper and its slider's position (m or rad), or null for none.
  gripperPosition() {
    const gripper = this.gripper.gripper;
    if (!gripper) return null;
    return { unit: gripper.unit, position: Number(document.getElementById("gripper-slider").value) / this.gripper.page().perUnit };
  }
}
