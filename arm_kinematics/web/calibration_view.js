// The calibration page's drawing: the arm from the URDF chain at the joint angles the trial
// values give (name -> rad), to scale. A planar arm seen from above (x, y); a spatial arm in
// its vertical plane (the distance along the yaw's direction, z), the yaw as an arrow from
// above in the corner. It draws what it is given; it solves nothing.

import { element } from "./svg.js";

export class TrialView {
  constructor(svg) {
    this.svg = svg;
    this.chain = null;
    this.spatial = false;
  }

  setChain(chain) {
    this.chain = chain;
    const axes = chain.movable.map((j) => j.axis.map(Math.round).join(" "));
    this.spatial = axes.length > 1 && axes[0] === "0 0 1" && axes[1] !== "0 0 1";
  }

  // joints: name -> rad; highlight: the joint being calibrated.
  draw(joints, highlight) {
    const svg = this.svg;
    svg.replaceChildren();
    if (!this.chain) return;
    const rect = svg.getBoundingClientRect();
    svg.setAttribute("viewBox", `0 0 ${rect.width} ${rect.height}`);
    const yawJoint = this.spatial ? this.chain.movable[0] : null;
    const yaw = yawJoint ? joints.get(yawJoint.name) || 0 : 0;
    const flat = (p) => (this.spatial ? [p.x * Math.cos(yaw) + p.y * Math.sin(yaw), p.z] : [p.x, p.y]);
    const points = this.chain.points(joints).map(flat);
    const reach = Math.max(0.05, this.chain.reach);
    const k = Math.min(rect.width, rect.height) / (2.3 * reach);
    const [cx, cy] = [rect.width / 2, this.spatial ? rect.height * 0.78 : rect.height / 2];
    const screen = ([x, y]) => [cx + k * x, cy - k * y];
    element("line", { class: "trial-ground", x1: 0, y1: cy, x2: rect.width, y2: cy }, svg);
    const pixels = points.map(screen);
    element("polyline", { class: "trial-link", points: pixels.map((p) => p.join(",")).join(" ") }, svg);
    // Each moving joint's circle sits at its frame's origin; the URDF names the child link.
    const names = new Map(this.chain.movable.map((j) => [j.child, j.name]));
    this.chain.points(joints).forEach((p, i) => {
      const joint = names.get(p.name);
      const circle = element("circle", { cx: pixels[i][0], cy: pixels[i][1], r: i === pixels.length - 1 ? 4 : 6, class: joint === highlight ? "trial-joint highlight" : "trial-joint" }, svg);
      if (joint) circle.dataset.joint = joint;
    });
    if (yawJoint) {
      // The yaw from above: an arrow in the top-left corner.
      const [ox, oy, r] = [40, 40, 26];
      element("circle", { cx: ox, cy: oy, r, class: "trial-dial" }, svg);
      element("line", { x1: ox, y1: oy, x2: ox + r * Math.cos(yaw), y2: oy - r * Math.sin(yaw), class: `trial-yaw${yawJoint.name === highlight ? " highlight" : ""}` }, svg);
      element("text", { x: ox + r + 6, y: oy + 4, class: "axis-label" }, svg).textContent = `${yawJoint.name} (from above)`;
    }
    svg.dataset.tip = points.length ? points[points.length - 1].map((v) => v.toFixed(4)).join(",") : "";
  }
}
