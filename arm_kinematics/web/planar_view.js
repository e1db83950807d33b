// One view of the arm: the base frame's x-y plane seen from above, drawn to scale in two
// stacked SVGs. It draws what it is given (the URDF chain, joint positions, marker points, the
// target) and reports where the pointer puts the target; it holds no panel state and solves
// nothing. A spatial arm's views (spatial_view.js) offer the same methods; the SVG pieces
// both draw are svg.js's:
//
//   setChain(chain)               the arm to draw (urdf.js ArmChain), then fit()
//   fit()                         after a resize: the scale, then everything again
//   drawRegion(markers)           ik_markers' region and ring (Marker messages), the cells the
//                                 workspace envelope removes and its keep-out boxes from above
//   drawPlan(markers, failed)     trajectory_markers' lines, and the failed step {x, y, step, label}
//   drawTarget(target, tone, headingRad)  the target mark in a status tone; an arrow for a heading
//   drawSolution(joints, alternative)     the ghost arm and its other branch (name -> rad), or null
//   drawLive(joints)              the live arm (name -> rad)
//
// Metres in the base frame (y up) inside; pixels only here.

import { ArmView, GRID_STEP_M, MARKER_LINE_STRIP, PLAN_CLASSES, arrow, drawChain, drawEnvelope, element, failedStep, polylinePoints, regionGroup, targetMark } from "./svg.js";

const HEADING_ARROW_PX = 34;

export class PlanarView extends ArmView {
  // staticSvg: the region, ring and grid (repainted only with the view); armSvg: the arm, the
  // plan and the target, on top, taking the pointer. onTarget(x, y) gets metres.
  constructor(staticSvg, armSvg, { onTarget }) {
    super();
    this.staticSvg = staticSvg;
    this.svg = armSvg;
    const layer = (id) => armSvg.querySelector(`#${id}`) || staticSvg.querySelector(`#${id}`);
    this.layers = Object.fromEntries(
      ["region", "ring", "grid", "plan", "alt", "ghost", "live", "target"].map((name) => [name, layer(`layer-${name}`)]),
    );
    const setTarget = ([x, y]) => onTarget(x, y);
    this.listenToPointer(setTarget, setTarget);
  }

  // The base frame's x-y plane is the view's plane.
  toScreen(x, y) {
    return this.planeToScreen(x, y);
  }

  setChain(chain) {
    this.chain = chain;
    this.fit();
  }

  fit() {
    const rect = this.svg.getBoundingClientRect();
    for (const svg of [this.svg, this.staticSvg]) svg.setAttribute("viewBox", `0 0 ${rect.width} ${rect.height}`);
    const reach = this.chain ? this.chain.reach : 0.2;
    this.transform = { cx: rect.width / 2, cy: rect.height / 2, k: Math.min(rect.width, rect.height) / (2.25 * reach) };
    this.redraw();
  }

  drawGrid() {
    const layer = this.layers.grid;
    layer.replaceChildren();
    const rect = this.svg.getBoundingClientRect();
    const [xMin, yMax] = this.toPlane(0, 0);
    const [xMax, yMin] = this.toPlane(rect.width, rect.height);
    for (let x = Math.ceil(xMin / GRID_STEP_M) * GRID_STEP_M; x <= xMax; x += GRID_STEP_M) {
      const [px] = this.toScreen(x, 0);
      element("line", { class: "grid-line", x1: px, y1: 0, x2: px, y2: rect.height }, layer);
      element("text", { class: "axis-label", x: px + 2, y: 14 }, layer).textContent = `${Math.round(x * 100)} cm`;
    }
    for (let y = Math.ceil(yMin / GRID_STEP_M) * GRID_STEP_M; y <= yMax; y += GRID_STEP_M) {
      const [, py] = this.toScreen(0, y);
      element("line", { class: "grid-line", x1: 0, y1: py, x2: rect.width, y2: py }, layer);
      if (py > 30 && py < rect.height - 30) element("text", { class: "axis-label", x: 4, y: py - 2 }, layer).textContent = `${Math.round(y * 100)} cm`;
    }
  }

  // Draws `joints` (name -> rad) with the URDF chain into `layer`; the tip's id is `${prefix}-tip`
  // (a planar arm's page draws no fingers).
  drawArm(layer, joints, prefix) {
    if (!this.chain) return;
    const points = this.chain.points(joints).map((p) => ({ ...p, screen: this.toScreen(p.x, p.y) }));
    drawChain(layer, points, `${prefix}-tip`, { base: 9, joint: 5, tip: 4 });
  }

  // target {x, y} m or null; tone: the status tone of the mark (ok, singular, refused, ...);
  // headingRad: the requested tool heading (an arrow from the target), or null.
  drawTarget(target, tone, headingRad) {
    this.last.target = target ? [target, tone, headingRad] : null;
    const layer = this.layers.target;
    layer.replaceChildren();
    if (!target) return;
    const [px, py] = this.toScreen(target.x, target.y);
    targetMark(layer, "target-mark", `target-${tone}`, [px, py], target);
    if (headingRad === null || headingRad === undefined) return;
    // The heading as an arrow from the target, in the base frame's angle (y up, so -sin on screen).
    const direction = [HEADING_ARROW_PX * Math.cos(headingRad), -HEADING_ARROW_PX * Math.sin(headingRad)];
    const heading = arrow(layer, "heading-arrow", `heading-arrow target-${tone}`, [px, py], direction);
    heading.dataset.headingRad = headingRad;
  }

  drawRegion(markers) {
    this.last.region = markers;
    const region = this.layers.region;
    const ring = this.layers.ring;
    region.replaceChildren();
    ring.replaceChildren();
    const path = (points) => polylinePoints(points.map((p) => this.toScreen(p.x, p.y)));
    let near = null;
    for (const marker of markers) {
      if (["reachable_region", "near_singular", "envelope_removed"].includes(marker.ns)) {
        const pixels = marker.points.map((p) => this.toScreen(p.x, p.y));
        const group = regionGroup(region, `region-${marker.ns}`, marker, pixels);
        if (marker.ns === "near_singular") near = group;
      } else if (marker.ns === "workspace" && marker.type === MARKER_LINE_STRIP) {
        element("polyline", { class: "ring", id: `ring-${marker.id}`, points: path(marker.points) }, ring);
      }
    }
    if (near) region.appendChild(near); // near-singular cells on top of the reachable ones
    // The boxes from above, over the ring (a planar arm's table is its plane: not drawn).
    drawEnvelope(ring, markers, "planar", (p) => this.toScreen(p.x, p.y));
  }

  drawPlan(markers, failed) {
    this.last.plan = markers;
    this.last.failed = failed;
    const layer = this.layers.plan;
    layer.replaceChildren();
    for (const marker of markers) {
      if (marker.type !== MARKER_LINE_STRIP || !PLAN_CLASSES[marker.ns]) continue;
      const points = polylinePoints(marker.points.map((p) => this.toScreen(p.x, p.y)));
      element("polyline", { class: PLAN_CLASSES[marker.ns], id: `plan-${marker.ns}`, points }, layer);
    }
    if (!failed) return;
    failedStep(layer, "failed-step", this.toScreen(failed.x, failed.y), failed, this.svg.getBoundingClientRect().width);
  }
}
