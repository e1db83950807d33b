// The SVG pieces both kinds of view draw (planar_view.js, spatial_view.js), in screen pixels:
// an element, an arm's chain, the target mark, an arrow, the failed step of a plan, a path of
// triangles; and `ArmView`, what both views do alike with what they are given. Each view
// projects its points to pixels first; nothing here knows the arm.

const SVG_NS = "http://www.w3.org/2000/svg";
export const GRID_STEP_M = 0.05;
export const MARKER_LINE_STRIP = 4; // visualization_msgs/Marker type
export const PLAN_CLASSES = { planned_path: "plan-path", feasible_path: "plan-feasible", infeasible_path: "plan-infeasible" };

export function element(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// A std_msgs/ColorRGBA (0..1) as CSS.
export function rgba(color, alpha = color.a) {
  return `rgba(${Math.round(color.r * 255)}, ${Math.round(color.g * 255)}, ${Math.round(color.b * 255)}, ${alpha})`;
}

// Pixels [[px, py], ...] as a polyline's `points`.
export function polylinePoints(pixels) {
  return pixels.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" ");
}

// Pixels taken three at a time (a Marker TRIANGLE_LIST's corners) as one path's `d`.
export function trianglesPath(pixels) {
  let d = "";
  for (let i = 0; i + 2 < pixels.length; i += 3) {
    const corners = pixels.slice(i, i + 3).map((p) => p.map((v) => v.toFixed(1)).join(" "));
    d += `M${corners[0]}L${corners[1]}L${corners[2]}Z`;
  }
  return d;
}

// A region marker's cells: an opaque fill and edge inside a translucent group, so that the row
// runs overlap by the edge's width without seams or darker stripes.
export function regionGroup(parent, id, marker, pixels) {
  const colour = rgba(marker.color, 1);
  const group = element("g", { id, opacity: marker.color.a }, parent);
  element("path", { d: trianglesPath(pixels), fill: colour, stroke: colour, "stroke-width": 0.8 }, group);
  return group;
}

// The workspace envelope the IK keeps to (ik_markers' `envelope_table` and `keep_out_boxes`,
// docs/workspace.md) into `layer`: every keep-out box's edges (a LINE_LIST: pairs of points)
// as one path, `project` turning a point {x, y, z} (m) into pixels; and the table, where
// `table(z)` draws it (a view that sees the table as a line or a plane; from above it is
// everywhere, so not drawn). Ids `${prefix}-keep-out-boxes`, `${prefix}-table`; the table's
// height (m) in data-z-m. Colours are the markers'.
export function drawEnvelope(layer, markers, prefix, project, table = null) {
  layer.replaceChildren();
  for (const marker of markers) {
    if (marker.ns === "keep_out_boxes" && marker.points.length) {
      let d = "";
      for (let i = 0; i + 1 < marker.points.length; i += 2) {
        const [a, b] = [marker.points[i], marker.points[i + 1]].map((p) => project(p).map((v) => v.toFixed(1)).join(" "));
        d += `M${a}L${b}`;
      }
      element("path", { id: `${prefix}-keep-out-boxes`, class: "keep-out-box", d, stroke: rgba(marker.color), fill: "none" }, layer);
    } else if (marker.ns === "envelope_table" && marker.points.length && table) {
      const drawn = table(marker);
      drawn.setAttribute("id", `${prefix}-table`);
      drawn.setAttribute("class", "envelope-table");
      drawn.setAttribute("stroke", rgba(marker.color));
      drawn.dataset.zM = marker.points[0].z;
      layer.appendChild(drawn);
    }
  }
}

// An arm into `layer`: `points` [{x, y[, z], screen: [px, py]}] (metres, then pixels) joined by
// a polyline, a circle at each (radii.base, radii.joint, radii.tip px; the tip's id `tipId`),
// and `segments` [[[x1, y1], [x2, y2]], ...] px as lines (fingers). The elements are made once
// and moved after, while the count stays.
export function drawChain(layer, points, tipId, radii, segments = []) {
  if (layer.childElementCount !== points.length + 1 + segments.length) {
    layer.replaceChildren();
    element("polyline", { class: "link" }, layer);
    points.forEach((_, i) => {
      const last = i === points.length - 1;
      element("circle", { class: last ? "tip" : i === 0 ? "base" : "joint", "data-index": i, ...(last ? { id: tipId } : {}) }, layer);
    });
    segments.forEach(() => element("line", { class: "finger" }, layer));
  }
  layer.firstChild.setAttribute("points", points.map((p) => p.screen.join(",")).join(" "));
  points.forEach((p, i) => {
    const circle = layer.children[i + 1];
    const last = i === points.length - 1;
    circle.setAttribute("cx", p.screen[0]);
    circle.setAttribute("cy", p.screen[1]);
    circle.setAttribute("r", last ? radii.tip : i === 0 ? radii.base : radii.joint);
    circle.dataset.xM = p.x;
    circle.dataset.yM = p.y;
    if (p.z !== undefined) circle.dataset.zM = p.z;
  });
  segments.forEach(([[x1, y1], [x2, y2]], i) => {
    const line = layer.children[points.length + 1 + i];
    Object.entries({ x1, y1, x2, y2 }).forEach(([key, value]) => line.setAttribute(key, value));
  });
  layer.hidden = false;
}

export function clearChain(layer) {
  layer.replaceChildren();
  layer.hidden = true;
}

// The target's mark (a circle and a cross) at [px, py], carrying the target's metres.
export function targetMark(layer, id, className, [px, py], target) {
  const mark = element("g", { id, class: className }, layer);
  element("circle", { cx: px, cy: py, r: 9 }, mark);
  element("line", { x1: px - 14, y1: py, x2: px + 14, y2: py }, mark);
  element("line", { x1: px, y1: py - 14, x2: px, y2: py + 14 }, mark);
  mark.dataset.xM = target.x;
  mark.dataset.yM = target.y;
  if (target.z !== undefined) mark.dataset.zM = target.z;
  return mark;
}

// An arrow from [px, py] to [px + dx, py + dy] (pixels, screen y down), its head ahead of the end.
export function arrow(layer, id, className, [px, py], [dx, dy]) {
  const [ex, ey] = [px + dx, py + dy];
  const group = element("g", { id, class: className }, layer);
  element("line", { x1: px, y1: py, x2: ex, y2: ey }, group);
  const norm = Math.hypot(dx, dy);
  const [ux, uy] = [dx / norm, dy / norm];
  const [nx, ny] = [-uy, ux]; // normal, for the head
  const head = [[ex + 9 * ux, ey + 9 * uy], [ex + 5 * nx, ey + 5 * ny], [ex - 5 * nx, ey - 5 * ny]];
  element("polygon", { points: polylinePoints(head) }, group);
  return group;
}

// A plan's failing step at [px, py]: a dot carrying the step and, with `label`, its words on
// the side of the point with more room in a view `width` px wide.
export function failedStep(layer, id, [px, py], failed, width, label = true) {
  const dot = element("circle", { id, class: "failed-step", cx: px, cy: py, r: 7 }, layer);
  dot.dataset.step = failed.step;
  dot.dataset.xM = failed.x;
  dot.dataset.yM = failed.y;
  if (!label) return;
  const left = px > width / 2;
  const text = element("text", { class: "failed-label", x: left ? px - 10 : px + 10, y: py - 10, "text-anchor": left ? "end" : "start" }, layer);
  text.textContent = failed.label;
}

// What every view of the arm does alike: it keeps what it was last given (`this.last`) and
// draws it all again on redraw() (after its scale or projection changed); the live arm, the
// ghost and its other branch go through the view's own drawArm(layer, joints, prefix, fingers).
// A view sets `this.layers` (live, ghost, alt, ...) and has drawGrid, drawRegion, drawPlan,
// drawTarget and drawArm.
export class ArmView {
  constructor() {
    this.chain = null;
    this.transform = { cx: 0, cy: 0, k: 1 }; // see planeToScreen
    this.last = { region: [], plan: [], failed: null, target: null, solution: null, live: null };
  }

  // The view's pixels: x_px = cx + k u, y_px = cy - k v of (u, v) metres on its plane.
  planeToScreen(u, v) {
    const { cx, cy, k } = this.transform;
    return [cx + u * k, cy - v * k];
  }

  toPlane(px, py) {
    const { cx, cy, k } = this.transform;
    return [(px - cx) / k, (cy - py) / k];
  }

  // Pointer events on this.svg as [u, v] metres of the plane (and the event): onPress when
  // pressed (the pointer captured), onDrag while it moves with the button held; none before
  // there is a chain to draw.
  listenToPointer(onPress, onDrag) {
    const planeOf = (event) => {
      const rect = this.svg.getBoundingClientRect();
      return this.toPlane(event.clientX - rect.left, event.clientY - rect.top);
    };
    this.svg.addEventListener("pointerdown", (event) => {
      if (!this.chain) return;
      this.svg.setPointerCapture(event.pointerId);
      onPress(planeOf(event), event);
    });
    this.svg.addEventListener("pointermove", (event) => {
      if (this.chain && event.buttons & 1) onDrag(planeOf(event), event);
    });
  }

  redraw() {
    const { region, plan, failed, target, solution, live } = this.last;
    this.drawGrid();
    this.drawRegion(region);
    this.drawPlan(plan, failed);
    if (target) this.drawTarget(...target);
    if (solution) this.drawSolution(...solution);
    if (live) this.drawLive(live);
  }

  // The live arm from joint_states (name -> rad), with the gripper's fingers where it has them.
  drawLive(joints) {
    this.last.live = joints;
    if (joints.size) this.drawArm(this.layers.live, joints, "live", true);
  }

  // The IK answer's pose and its other branch (null: none). A refused target draws no ghost.
  drawSolution(joints, alternative) {
    this.last.solution = [joints, alternative];
    if (joints) this.drawArm(this.layers.ghost, joints, "ghost");
    else clearChain(this.layers.ghost);
    if (joints && alternative) this.drawArm(this.layers.alt, alternative, "alt");
    else clearChain(this.layers.alt);
  }
}
