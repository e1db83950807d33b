// One view of the arm: the base frame's x-y plane seen from above, drawn to scale in two
// stacked SVGs. It draws what it is given (the URDF chain, joint positions, marker points, the
// target) and reports where the pointer puts the target; it holds no panel state and solves
// nothing. Another view (a side view, a 3D view) offers the same methods:
//
//   setChain(chain)               the arm to draw (urdf.js ArmChain), then fit()
//   fit()                         after a resize: the scale, then everything again
//   drawRegion(markers)           ik_markers' region and ring (Marker messages)
//   drawPlan(markers, failed)     trajectory_markers' lines, and the failed step {x, y, step, label}
//   drawTarget(target, tone, headingRad)  the target mark in a status tone; an arrow for a heading
//   drawSolution(joints, alternative)     the ghost arm and its other branch (name -> rad), or null
//   drawLive(joints)              the live arm (name -> rad)
//
// Metres in the base frame (y up) inside; pixels only here.

const SVG_NS = "http://www.w3.org/2000/svg";
const GRID_STEP_M = 0.05;
const MARKER_LINE_STRIP = 4;
const PLAN_CLASSES = { planned_path: "plan-path", feasible_path: "plan-feasible", infeasible_path: "plan-infeasible" };
const HEADING_ARROW_PX = 34;

function element(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

export class PlanarView {
  // staticSvg: the region, ring and grid (repainted only with the view); armSvg: the arm, the
  // plan and the target, on top, taking the pointer. onTarget(x, y) gets metres.
  constructor(staticSvg, armSvg, { onTarget }) {
    this.staticSvg = staticSvg;
    this.svg = armSvg;
    this.chain = null;
    this.transform = { cx: 0, cy: 0, k: 1 }; // x_px = cx + k x, y_px = cy - k y
    this.last = { region: [], plan: [], failed: null, target: null, solution: null, live: null };
    const layer = (id) => armSvg.querySelector(`#${id}`) || staticSvg.querySelector(`#${id}`);
    this.layers = Object.fromEntries(
      ["region", "ring", "grid", "plan", "alt", "ghost", "live", "target"].map((name) => [name, layer(`layer-${name}`)]),
    );
    const pointerTarget = (event) => {
      const rect = this.svg.getBoundingClientRect();
      onTarget(...this.toWorld(event.clientX - rect.left, event.clientY - rect.top));
    };
    armSvg.addEventListener("pointerdown", (event) => {
      if (!this.chain) return;
      armSvg.setPointerCapture(event.pointerId);
      pointerTarget(event);
    });
    armSvg.addEventListener("pointermove", (event) => {
      if (this.chain && event.buttons & 1) pointerTarget(event);
    });
  }

  toScreen(x, y) {
    const { cx, cy, k } = this.transform;
    return [cx + x * k, cy - y * k];
  }

  toWorld(px, py) {
    const { cx, cy, k } = this.transform;
    return [(px - cx) / k, (cy - py) / k];
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
    const { region, plan, failed, target, solution, live } = this.last;
    this.drawGrid();
    this.drawRegion(region);
    this.drawPlan(plan, failed);
    if (target) this.drawTarget(...target);
    if (solution) this.drawSolution(...solution);
    if (live) this.drawLive(live);
  }

  drawGrid() {
    const layer = this.layers.grid;
    layer.replaceChildren();
    const rect = this.svg.getBoundingClientRect();
    const [xMin, yMax] = this.toWorld(0, 0);
    const [xMax, yMin] = this.toWorld(rect.width, rect.height);
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

  // Draws `joints` (name -> rad) with the URDF chain into `layer`; the tip's id is `${prefix}-tip`.
  drawArm(layer, joints, prefix) {
    if (!this.chain) return;
    const points = this.chain.points(joints).map((p) => ({ ...p, screen: this.toScreen(p.x, p.y) }));
    if (layer.childElementCount !== points.length + 1) {
      layer.replaceChildren();
      element("polyline", { class: "link" }, layer);
      points.forEach((_, i) => {
        const last = i === points.length - 1;
        element("circle", { class: last ? "tip" : i === 0 ? "base" : "joint", "data-index": i, ...(last ? { id: `${prefix}-tip` } : {}) }, layer);
      });
    }
    layer.firstChild.setAttribute("points", points.map((p) => p.screen.join(",")).join(" "));
    points.forEach((p, i) => {
      const circle = layer.children[i + 1];
      const last = i === points.length - 1;
      circle.setAttribute("cx", p.screen[0]);
      circle.setAttribute("cy", p.screen[1]);
      circle.setAttribute("r", last ? 4 : i === 0 ? 9 : 5);
      circle.dataset.xM = p.x;
      circle.dataset.yM = p.y;
    });
    layer.hidden = false;
  }

  clearArm(layer) {
    layer.replaceChildren();
    layer.hidden = true;
  }

  drawLive(joints) {
    this.last.live = joints;
    if (joints.size) this.drawArm(this.layers.live, joints, "live");
  }

  // The IK answer's pose and its other branch (null: none). A refused target draws no ghost.
  drawSolution(joints, alternative) {
    this.last.solution = [joints, alternative];
    if (joints) this.drawArm(this.layers.ghost, joints, "ghost");
    else this.clearArm(this.layers.ghost);
    if (joints && alternative) this.drawArm(this.layers.alt, alternative, "alt");
    else this.clearArm(this.layers.alt);
  }

  // target {x, y} m or null; tone: the status tone of the mark (ok, singular, refused, ...);
  // headingRad: the requested tool heading (an arrow from the target), or null.
  drawTarget(target, tone, headingRad) {
    this.last.target = target ? [target, tone, headingRad] : null;
    const layer = this.layers.target;
    layer.replaceChildren();
    if (!target) return;
    const [px, py] = this.toScreen(target.x, target.y);
    const mark = element("g", { id: "target-mark", class: `target-${tone}` }, layer);
    element("circle", { cx: px, cy: py, r: 9 }, mark);
    element("line", { x1: px - 14, y1: py, x2: px + 14, y2: py }, mark);
    element("line", { x1: px, y1: py - 14, x2: px, y2: py + 14 }, mark);
    mark.dataset.xM = target.x;
    mark.dataset.yM = target.y;
    if (headingRad === null || headingRad === undefined) return;
    // The heading as an arrow from the target, in the base frame's angle (y up, so -sin on screen).
    const [dx, dy] = [Math.cos(headingRad), -Math.sin(headingRad)];
    const [ex, ey] = [px + HEADING_ARROW_PX * dx, py + HEADING_ARROW_PX * dy];
    const arrow = element("g", { id: "heading-arrow", class: `heading-arrow target-${tone}` }, layer);
    element("line", { x1: px, y1: py, x2: ex, y2: ey }, arrow);
    const [nx, ny] = [-dy, dx]; // normal, for the arrowhead
    const head = [[ex + 9 * dx, ey + 9 * dy], [ex + 5 * nx, ey + 5 * ny], [ex - 5 * nx, ey - 5 * ny]];
    element("polygon", { points: head.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" ") }, arrow);
    arrow.dataset.headingRad = headingRad;
  }

  drawRegion(markers) {
    this.last.region = markers;
    const region = this.layers.region;
    const ring = this.layers.ring;
    region.replaceChildren();
    ring.replaceChildren();
    const path = (points) => points.map((p) => this.toScreen(p.x, p.y).map((v) => v.toFixed(1)).join(",")).join(" ");
    let near = null;
    for (const marker of markers) {
      if (marker.ns === "reachable_region" || marker.ns === "near_singular") {
        // Opaque fill and edge inside a translucent group: the row runs overlap by the edge's
        // width without seams or darker stripes.
        const colour = rgba(marker.color, 1);
        const group = element("g", { id: `region-${marker.ns}`, opacity: marker.color.a }, region);
        element("path", { d: this.trianglePath(marker.points), fill: colour, stroke: colour, "stroke-width": 0.8 }, group);
        if (marker.ns === "near_singular") near = group;
      } else if (marker.ns === "workspace" && marker.type === MARKER_LINE_STRIP) {
        element("polyline", { class: "ring", id: `ring-${marker.id}`, points: path(marker.points) }, ring);
      }
    }
    if (near) region.appendChild(near); // near-singular cells on top of the reachable ones
  }

  trianglePath(points) {
    let d = "";
    for (let i = 0; i + 2 < points.length; i += 3) {
      const corners = [points[i], points[i + 1], points[i + 2]].map((p) => this.toScreen(p.x, p.y).map((v) => v.toFixed(1)).join(" "));
      d += `M${corners[0]}L${corners[1]}L${corners[2]}Z`;
    }
    return d;
  }

  drawPlan(markers, failed) {
    this.last.plan = markers;
    this.last.failed = failed;
    const layer = this.layers.plan;
    layer.replaceChildren();
    for (const marker of markers) {
      if (marker.type !== MARKER_LINE_STRIP || !PLAN_CLASSES[marker.ns]) continue;
      const points = marker.points.map((p) => this.toScreen(p.x, p.y).map((v) => v.toFixed(1)).join(",")).join(" ");
      element("polyline", { class: PLAN_CLASSES[marker.ns], id: `plan-${marker.ns}`, points }, layer);
    }
    if (!failed) return;
    const [px, py] = this.toScreen(failed.x, failed.y);
    const dot = element("circle", { id: "failed-step", class: "failed-step", cx: px, cy: py, r: 7 }, layer);
    dot.dataset.step = failed.step;
    dot.dataset.xM = failed.x;
    dot.dataset.yM = failed.y;
    // The label on the side of the point with more room.
    const left = px > this.svg.getBoundingClientRect().width / 2;
    const label = element("text", { class: "failed-label", x: left ? px - 10 : px + 10, y: py - 10, "text-anchor": left ? "end" : "start" }, layer);
    label.textContent = failed.label;
  }
}

function rgba(color, alpha = color.a) {
  return `rgba(${Math.round(color.r * 255)}, ${Math.round(color.g * 255)}, ${Math.round(color.b * 255)}, ${alpha})`;
}
