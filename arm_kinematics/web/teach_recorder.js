// The sequence recorder: steps added from the live pose (a typed pose, through compute_fk) or
// a named pose, LINEAR or JOINT with a speed, the gripper (open, close, the gripper box's
// position) and waits; reordered, deleted, repeated; saved under a name (sequences/save),
// loaded (sequences/list), deleted (sequences/delete); run (run_sequence) with its progress
// and cancel. The trajectory node checks, plans and refuses (naming the step); the page shows it.

import { setStatus } from "./panel.js";
import { element } from "./jog_panel.js";
import { JOINT, LINEAR, gripperStep, moveStep, moved, programText, readProgram, stepWords, waitStep } from "./teach_program.js";

export const RUN_STATUS = ["SUCCEEDED", "INVALID_SEQUENCE", "PLAN_FAILED", "STEP_FAILED", "CANCELED", "PREEMPTED",
  "SHUTDOWN", "CALIBRATING"];
const LIVE = ""; // the step source "the live pose"
const SPEED_UNITS = { [JOINT]: ["%", "of the joint speed limits"], [LINEAR]: ["cm/s", "tool speed"] };

// A number typed in `input`: null when empty, NaN when not a number.
function typed(input) {
  const text = input.value.trim();
  return text === "" ? null : Number(text);
}

export class SequenceRecorder {
  constructor(details, teach) {
    this.teach = teach;
    this.steps = []; // the program's step mappings (teach_program.js)
    this.saved = new Map(); // name -> program text, from sequences/list
    this.byName = null; // a loaded program the page cannot edit: run by this name
    this.run = null; // {id, mine}: the running goal; mine: the recorder's own steps
    element("summary", {}, details, "Sequence");
    this.build(details);
    this.render();
  }

  build(details) {
    const $ = (tag, attributes, parent, text) => element(tag, attributes, parent, text);
    const move = $("div", { class: "teach-row" }, details);
    this.source = $("select", { id: "step-source", "aria-label": "where the move goes" }, move);
    this.mode = $("select", { id: "step-mode", "aria-label": "how it moves" }, move);
    for (const mode of [JOINT, LINEAR]) $("option", { value: mode }, this.mode, mode);
    const speed = $("span", { class: "teach-speed" }, move);
    this.speed = $("input", { id: "step-speed", type: "number", min: "0", step: "any", placeholder: "default", class: "teach-number" }, speed);
    this.speedUnit = $("span", { class: "unit", id: "step-speed-unit" }, speed);
    this.addMove = $("button", { id: "add-move", type: "button" }, move, "Add move");
    this.gripperRow = $("div", { class: "teach-row", id: "gripper-steps", hidden: "" }, details);
    for (const [id, text] of [["add-open", "Add open"], ["add-close", "Add close"], ["add-grip", "Add gripper position"]]) {
      $("button", { id, type: "button" }, this.gripperRow, text).addEventListener("click", () => this.addGripper(id.slice(4)));
    }
    const wait = $("div", { class: "teach-row" }, details);
    this.wait = $("input", { id: "wait-seconds", type: "number", min: "0", step: "0.1", value: "0.5", class: "teach-number", "aria-label": "wait, seconds" }, wait);
    $("span", { class: "unit" }, wait, "s");
    $("button", { id: "add-wait", type: "button" }, wait, "Add wait").addEventListener("click", () => this.addWait());
    this.stepName = $("input", { id: "step-name", type: "text", placeholder: "step name", "aria-label": "the next step's name" }, wait);
    this.list = $("ol", { id: "steps", class: "teach-list" }, details);
    const save = $("div", { class: "teach-row" }, details);
    const repeat = $("label", { class: "inline" }, save, "repeat ");
    this.repeat = $("input", { id: "repeat", type: "number", min: "1", max: "1000", step: "1", value: "1", class: "teach-number" }, repeat);
    this.name = $("input", { id: "sequence-name", type: "text", maxlength: "64", placeholder: "sequence name", "aria-label": "the sequence's name" }, save);
    this.saveButton = $("button", { id: "sequence-save", type: "button" }, save, "Save");
    const replace = $("label", { class: "inline small" }, details);
    this.replace = $("input", { id: "sequence-replace", type: "checkbox" }, replace);
    replace.append(" replace a sequence of that name");
    const load = $("div", { class: "teach-row" }, details);
    this.savedList = $("select", { id: "saved-sequences", "aria-label": "saved sequences" }, load);
    this.loadButton = $("button", { id: "sequence-load", type: "button" }, load, "Load");
    this.deleteButton = $("button", { id: "sequence-delete", type: "button" }, load, "Delete");
    $("button", { id: "sequence-refresh", type: "button", title: "read the saved sequences again", "aria-label": "refresh the saved sequences" }, load, "↻")
      .addEventListener("click", () => this.refreshSaved());
    const run = $("div", { class: "buttons" }, details);
    this.runButton = $("button", { id: "sequence-run", type: "button" }, run, "Run");
    this.cancelButton = $("button", { id: "sequence-cancel", type: "button", disabled: "" }, run, "Cancel");
    this.progress = $("progress", { id: "sequence-progress", max: "1", value: "0" }, details);
    $("div", { id: "sequence-status", class: "status", "data-status": "" }, details);
    $("div", { id: "sequence-message", class: "message", tabindex: "0" }, details);
    const text = $("details", { id: "sequence-text-box" }, details);
    $("summary", {}, text, "Program text");
    this.text = $("pre", { id: "sequence-text" }, text);

    this.mode.addEventListener("change", () => this.showSpeedUnit());
    this.addMove.addEventListener("click", () => this.addMoveStep());
    this.repeat.addEventListener("change", () => this.render());
    this.name.addEventListener("change", () => this.render());
    this.saveButton.addEventListener("click", () => this.save());
    this.loadButton.addEventListener("click", () => this.load());
    this.deleteButton.addEventListener("click", () => this.deleteSaved());
    this.runButton.addEventListener("click", () => this.start());
    this.cancelButton.addEventListener("click", () => this.run && this.teach.ros.cancelGoal(this.teach.names.runSequence, this.run.id));
    // The gripper box shows itself for an arm with a gripper: so do the gripper steps.
    const gripper = document.getElementById("gripper");
    const followGripper = () => (this.gripperRow.hidden = gripper.hidden);
    new MutationObserver(followGripper).observe(gripper, { attributes: true, attributeFilter: ["hidden"] });
    followGripper();
    this.setPoseNames([]);
    this.showSpeedUnit();
  }

  showSpeedUnit() {
    const [unit, words] = SPEED_UNITS[this.mode.value];
    this.speedUnit.textContent = unit;
    this.speed.setAttribute("aria-label", `speed, ${unit} ${words} (empty: the default)`);
  }

  // The named poses a move can go to (those valid for this arm), after "the live pose".
  setPoseNames(names) {
    const chosen = this.source.value;
    this.source.replaceChildren();
    element("option", { value: LIVE }, this.source, "the live pose");
    for (const name of names) element("option", { value: name }, this.source, `pose ${name}`);
    this.source.value = names.includes(chosen) ? chosen : LIVE;
  }

  // --- adding, moving and deleting steps ----------------------------------------------------

  takeName() {
    const name = this.stepName.value.trim();
    this.stepName.value = "";
    return name;
  }

  add(step) {
    this.byName = null;
    this.steps = [...this.steps, step];
    this.render();
  }

  async addMoveStep() {
    const speed = typed(this.speed);
    if (speed !== null && !(speed > 0)) {
      setStatus("sequence-status", "INVALID_INPUT", `speed ${this.speed.value}: a number above 0 (or empty: the default)`);
      return;
    }
    const step = { mode: this.mode.value, speed, name: this.takeName() };
    if (this.source.value !== LIVE) {
      this.add(moveStep({ ...step, to: this.source.value }));
      return;
    }
    this.addMove.disabled = true;
    try {
      this.add(moveStep({ ...step, pose: await this.teach.livePose() }));
    } catch (error) {
      setStatus("sequence-status", "NO POSE", `the live pose: ${error.message}`);
    } finally {
      this.addMove.disabled = false;
    }
  }

  addGripper(command) {
    const gripper = this.teach.gripperPosition();
    if (!gripper) return;
    this.add(gripperStep(command === "grip" ? "position" : command, gripper.unit, gripper.position, this.takeName()));
  }

  addWait() {
    const seconds = typed(this.wait);
    if (seconds === null || !(seconds >= 0)) {
      setStatus("sequence-status", "INVALID_INPUT", `wait ${this.wait.value}: seconds, 0 or more`);
      return;
    }
    this.add(waitStep(seconds, this.takeName()));
  }

  edit(steps) {
    this.steps = steps;
    this.render();
  }

  // The list, the program text, which buttons work.
  render() {
    this.list.replaceChildren();
    this.steps.forEach((step, i) => {
      const item = element("li", { "data-step": String(i + 1) }, this.list);
      element("span", { class: "step-words" }, item, stepWords(step));
      const buttons = element("span", { class: "step-buttons" }, item);
      const button = (text, label, action, disabled) => {
        const b = element("button", { type: "button", "aria-label": `${label} step ${i + 1}`, title: label }, buttons, text);
        b.disabled = disabled;
        b.addEventListener("click", action);
      };
      button("↑", "move up", () => this.edit(moved(this.steps, i, -1)), i === 0);
      button("↓", "move down", () => this.edit(moved(this.steps, i, 1)), i === this.steps.length - 1);
      button("✕", "delete", () => this.edit(this.steps.filter((_, j) => j !== i)), false);
    });
    if (this.byName === null) this.text.textContent = this.steps.length ? this.program() : "";
    const running = this.run !== null;
    this.runButton.disabled = running || (this.steps.length === 0 && this.byName === null);
    this.saveButton.disabled = this.steps.length === 0;
    this.cancelButton.disabled = !running;
  }

  // The program text; a repeat that is not a whole number 1..1000 goes as typed, for the node
  // to refuse in words.
  program() {
    const repeat = this.repeat.value.trim() === "" ? 1 : Number(this.repeat.value);
    return programText(this.steps, repeat, this.name.value.trim());
  }

  // --- saved sequences ------------------------------------------------------------------------

  async save() {
    const name = this.name.value.trim();
    if (!name) {
      setStatus("sequence-status", "NO NAME", "type a name for the sequence first");
      return;
    }
    await this.teach.change("sequence-status", "saveSequence", "SaveSequence", { name, program: this.program(), overwrite: this.replace.checked });
    await this.refreshSaved(name);
  }

  async refreshSaved(select = null) {
    const answer = await this.teach.ask("sequence-status", "listSequences", "ListSequences", {});
    if (!answer) return;
    if (!answer.success) setStatus("sequence-status", "REFUSED", answer.message);
    const chosen = select ?? this.savedList.value;
    this.saved = new Map(answer.names.map((name, i) => [name, answer.programs[i]]));
    this.savedList.replaceChildren();
    for (const name of this.saved.keys()) element("option", { value: name }, this.savedList, name);
    if (this.saved.size === 0) element("option", { value: "" }, this.savedList, "no saved sequences");
    if (this.saved.has(chosen)) this.savedList.value = chosen;
    this.loadButton.disabled = this.deleteButton.disabled = this.saved.size === 0;
  }

  load() {
    const name = this.savedList.value;
    const text = this.saved.get(name);
    if (text === undefined) return;
    const program = readProgram(text);
    this.name.value = name;
    if (program.error) {
      this.byName = name;
      this.steps = [];
      this.text.textContent = text;
      this.text.parentElement.open = true;
      setStatus("sequence-status", "LOADED", `${name}: ${program.error}`);
    } else {
      this.byName = null;
      this.steps = program.steps;
      this.repeat.value = String(program.repeat);
      setStatus("sequence-status", "LOADED", `${name}: ${program.steps.length} steps, repeat ${program.repeat}`);
    }
    this.render();
  }

  async deleteSaved() {
    const name = this.savedList.value;
    if (!name) return;
    await this.teach.change("sequence-status", "deleteSequence", "DeleteSequence", { name });
    await this.refreshSaved();
  }

  // --- running -------------------------------------------------------------------------------

  start() {
    const mine = this.byName === null;
    const goal = mine ? { program: this.program() } : { name: this.byName };
    const id = this.teach.ros.sendGoal(
      this.teach.names.runSequence,
      "arm_kinematics_interfaces/action/RunSequence",
      goal,
      (feedback) => this.run && this.run.id === id && this.onFeedback(feedback),
      (message) => this.run && this.run.id === id && this.onResult(message),
    );
    if (id === null) {
      setStatus("sequence-status", "NOT CONNECTED", "the bridge is not connected: nothing was sent");
      return;
    }
    this.run = { id, mine };
    this.progress.value = 0;
    this.mark(0, "", mine);
    this.show("PLANNING", "the whole sequence, from the arm's pose, before it moves", 0);
    this.render();
  }

  // Step `number` (1-based; 0: none) of the recorder's list gets the class `kind` when the
  // run is of the recorder's own steps (`mine`).
  mark(number, kind, mine) {
    for (const item of this.list.children) item.classList.remove("running", "failed");
    const item = this.list.children[number - 1];
    if (mine && kind && item) item.classList.add(kind);
  }

  // The status box, and the step it speaks of in its data-step (1-based; 0: none).
  show(name, message, step) {
    setStatus("sequence-status", name, message);
    document.getElementById("sequence-status").dataset.step = String(step);
  }

  onFeedback(feedback) {
    this.progress.value = feedback.fraction;
    const repeat = feedback.total_repeats > 1 ? ` (repeat ${feedback.repeat} of ${feedback.total_repeats})` : "";
    this.show("MOVING", `step ${feedback.step} of ${feedback.total_steps}: ${feedback.step_name}${repeat}`, feedback.step);
    this.mark(feedback.step, "running", this.run.mine);
  }

  onResult(message) {
    const mine = this.run.mine;
    this.run = null;
    this.render();
    if (!message.result) {
      this.show("NO RESULT", String(message.values), 0);
      return;
    }
    const result = message.values;
    if (result.status === 0) this.progress.value = 1;
    this.show(RUN_STATUS[result.status] || `status ${result.status}`, result.message, result.step);
    this.mark(result.step, result.status === 0 ? "" : "failed", mine);
  }
}
