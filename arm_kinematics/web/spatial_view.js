// One view of a spatial arm (docs/spatial_arms.md): the URDF chain, joint positions, marker
// points and the target seen through a projection (projections.js: from above, from the side of
// the vertical plane, or an orbiting 3D camera), drawn to scale in two stacked SVGs that the view
// creates in its container. It draws what it is given and reports what the pointer does; it
// holds no panel state and solves nothing. The methods are PlanarView's (planar_view.js):
//
//   setChain(chain), fit(), drawRegion(markers), drawPlan(markers, failed),
//   drawTarget(target, tone, tool)   tool: the requested tool x axis (unit vector) or null
//   drawSolution(joints, alternative), drawLive(joints)
//
// plus redraw() (after its projection changed) and describe() (its pixels, for the tests and
// the benchmark: x_px = cx + k u, y_px = cy - k v of the projection's (u, v)).
//
// Element ids carry the view's name: `${name}-live-tip`, `${name}-ghost-tip`, `${name}-alt-tip`,
// `${name}-target-mark`, `${name}-region-reachable_region`, `${name}-yaw_range`,
// `${name}-table`, `${name}-keep-out-boxes`, ...

import { ArmView, GRID_STEP_M, MARKER_LINE_STRIP, PLAN_CLASSES, arrow, drawChain, drawEnvelope, element, failedStep, polylinePoints, regionGroup, targetMark } from "./svg.js";

const FLOOR_NAMESPACES = { workspace: "ring", yaw_range: "yaw-range", yaw_range_back: "yaw-range-back" };
const PLANE_NAMESPACES = ["reachable_region", "near_singular", "envelope_removed"];
const TOOL_ARROW_PX = 34;
const ORBIT_RAD_PER_PX = 0.01;

// Where the drawing's scale comes from, read off the URDF at the zero pose: the shoulder (the
// frame of the first joint after the yaw), the reach beyond it (the chain laid out straight)
// and the horizontal reach from the yaw axis. Metres.
export function armExtent(chain) {
  const points = chain.points(new Map());
  const shoulderName = chain.movable.length > 1 ? chain.movable[1].child : null;
  const shoulder = points.find((p) => p.name === shoulderName) || { x: 0, y: 0, z: 0 };
  let reach = 0;
  for (let i = points.indexOf(shoulder) + 1; i > 0 && i < points.length; i++)
    reach += Math.hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y, points[i].z - points[i - 1].z);
  if (reach === 0) reach = chain.reach || 0.2;
  return { shoulder, reach, horizontal: Math.hypot(shoulder.x, shoulder.y) + reach };
}

export class SpatialView extends ArmView {
  // container: an element to fill (its size is the view's); name: "top", "side" or "orbit";
  // projection: its projections.js object. onPointer(u, v): the pointer pressed or dragged at
  // (u, v) metres of the view's plane (views that set a target); onTurn(): after a drag turned
  // an orbit view. plane(): the side view's direction (rad), drawn as a line in the top view.
  constructor(container, name, projection, { onPointer = null, onTurn = null, plane = null } = {}) {
    super();
    this.container = container;
    this.name = name;
    this.projection = projection;
    this.plane = plane;
    this.extent = { shoulder: { x: 0, y: 0, z: 0 }, reach: 0.2, horizontal: 0.2 };
    this.staticSvg = element("svg", { class: "static-layer", "aria-hidden": "true" }, container);
    this.svg = element("svg", { class: "arm-layer", "aria-label": container.dataset.label || name }, container);
    this.layers = {};
    for (const [svg, names] of [[this.staticSvg, ["region", "floor", "grid", "envelope"]], [this.svg, ["plan", "alt", "ghost", "live", "target"]]])
      for (const layer of names) this.layers[layer] = element("g", { id: `${name}-layer-${layer}` }, svg);
    this.layers.alt.setAttribute("class", "ghost ghost-alt");
    this.layers.ghost.setAttribute("class", "ghost");
    this.layers.live.setAttribute("class", "live");
    let last = null; // the orbit drag's previous pointer position
    this.listenToPointer(
      (point, event) => {
        last = [event.clientX, event.clientY];
        if (onPointer) onPointer(...point);
      },
      (point, event) => {
        if (onPointer) onPointer(...point);
        else if (onTurn && last) {
          this.projection.turn(-(event.clientX - last[0]) * ORBIT_RAD_PER_PX, (event.clientY - last[1]) * ORBIT_RAD_PER_PX);
          last = [event.clientX, event.clientY];
          this.fit();
          onTurn();
        }
      },
    );
  }

  toScreen(p) {
    const [u, v] = this.projection.project(p);
    return this.planeToScreen(u, v);
  }

  describe() {
    return { ...this.transform, ...this.projection.describe() };
  }

  setChain(chain) {
    this.chain = chain;
    this.extent = armExtent(chain);
    this.fit();
  }

  // The scale and centre for the view's size (the reachable sphere about the shoulder, or the
  // circle about the yaw axis from above), then everything drawn again.
  fit() {
    const rect = this.svg.getBoundingClientRect();
    for (const svg of [this.svg, this.staticSvg]) svg.setAttribute("viewBox", `0 0 ${rect.width} ${rect.height}`);
    const { shoulder, reach, horizontal } = this.extent;
    const centre = this.name === "top" ? { x: 0, y: 0, z: 0 } : { x: 0, y: 0, z: shoulder.z * (this.name === "orbit" ? 0.5 : 1) };
    // The 3D view sees the floor's circle flattened: its height may hold more than its width.
    const size = this.name === "orbit" ? Math.min(rect.width, rect.height * 1.3) : Math.min(rect.width, rect.height);
    const k = Math.max(size, 1) / (2.2 * Math.max(horizontal, reach));
    const [u0, v0] = this.projection.project(centre);
    this.transform = { cx: rect.width / 2 - k * u0, cy: rect.height / 2 + k * v0, k };
    this.redraw();
  }

  // --- the static layer: grid, floor markers, the vertical plane's region ---------------------

  drawGrid() {
    const layer = this.layers.grid;
    layer.replaceChildren();
    const rect = this.svg.getBoundingClientRect();
    if (this.name === "orbit") {
      this.drawFloorGrid(layer);
      return;
    }
    const [uMin, vMax] = this.toPlane(0, 0);
    const [uMax, vMin] = this.toPlane(rect.width, rect.height);
    const [ux, uy] = this.name === "side" ? ["s", "z"] : ["x", "y"];
    for (let u = Math.ceil(uMin / GRID_STEP_M) * GRID_STEP_M; u <= uMax; u += GRID_STEP_M) {
      const [px] = this.planeToScreen(u, 0);
      element("line", { class: Math.abs(u) < 1e-9 ? "grid-axis" : "grid-line", x1: px, y1: 0, x2: px, y2: rect.height }, layer);
      if (px > 24 && px < rect.width - 40) element("text", { class: "axis-label", x: px + 2, y: rect.height - 4 }, layer).textContent = `${Math.round(u * 100)}`;
    }
    for (let v = Math.ceil(vMin / GRID_STEP_M) * GRID_STEP_M; v <= vMax; v += GRID_STEP_M) {
      const [, py] = this.planeToScreen(0, v);
      element("line", { class: Math.abs(v) < 1e-9 ? "grid-axis" : "grid-line", x1: 0, y1: py, x2: rect.width, y2: py }, layer);
      if (py > 34 && py < rect.height - 20) element("text", { class: "axis-label", x: 4, y: py - 2 }, layer).textContent = `${Math.round(v * 100)}`;
    }
    // The axes' names and the unit, at the ends of the axes through the origin.
    const [ox, oy] = this.planeToScreen(0, 0);
    element("text", { class: "axis-name", x: rect.width - 6, y: oy - 4, "text-anchor": "end" }, layer).textContent = `${ux}, cm`;
    element("text", { class: "axis-name", x: ox + 4, y: 40 }, layer).textContent = `${uy}, cm`;
  }

  // The 3D view's floor: the base frame's x-y plane as a grid within the horizontal reach, and
  // its x, y, z axes.
  drawFloorGrid(layer) {
    const r = Math.ceil(this.extent.horizontal / GRID_STEP_M) * GRID_STEP_M;
    for (let a = -r; a <= r + 1e-9; a += GRID_STEP_M) {
      for (const [p, q] of [[{ x: a, y: -r, z: 0 }, { x: a, y: r, z: 0 }], [{ x: -r, y: a, z: 0 }, { x: r, y: a, z: 0 }]]) {
        const [[x1, y1], [x2, y2]] = [this.toScreen(p), this.toScreen(q)];
        element("line", { class: "grid-line", x1, y1, x2, y2 }, layer);
      }
    }
    const length = this.extent.reach * 0.5;
    for (const [axis, end] of [["x", { x: length, y: 0, z: 0 }], ["y", { x: 0, y: length, z: 0 }], ["z", { x: 0, y: 0, z: length }]]) {
      const [[x1, y1], [x2, y2]] = [this.toScreen({ x: 0, y: 0, z: 0 }), this.toScreen(end)];
      element("line", { class: `axis axis-${axis}`, x1, y1, x2, y2 }, layer);
      element("text", { class: `axis-label axis-label-${axis}`, x: x2 + 3, y: y2 - 3 }, layer).textContent = axis;
    }
  }

  // ik_markers' latched part: the side view draws the vertical plane's region (its points are
  // (x forward from the yaw axis, 0, z up), the plane's own coordinates: u = x, v = z), with
  // the cells the envelope removes; the top and 3D views draw the horizontal reach and the
  // yaw's range on the floor. Every view draws the keep-out boxes (the side view as seen along
  // its plane's normal), the side view the table as a line across it, the 3D view as its
  // outline.
  drawRegion(markers) {
    this.last.region = markers;
    const region = this.layers.region;
    const floor = this.layers.floor;
    region.replaceChildren();
    floor.replaceChildren();
    let near = null;
    for (const marker of markers) {
      if (this.name === "side" && PLANE_NAMESPACES.includes(marker.ns)) {
        const pixels = marker.points.map((p) => this.planeToScreen(p.x, p.z));
        const group = regionGroup(region, `${this.name}-region-${marker.ns}`, marker, pixels);
        if (marker.ns === "near_singular") near = group;
      } else if (this.name !== "side" && FLOOR_NAMESPACES[marker.ns] && marker.type === MARKER_LINE_STRIP && marker.points.length) {
        const points = polylinePoints(marker.points.map((p) => this.toScreen(p)));
        element("polyline", { class: FLOOR_NAMESPACES[marker.ns], id: `${this.name}-${marker.ns}-${marker.id}`, points }, floor);
      }
    }
    if (near) region.appendChild(near); // near-singular cells on top of the reachable ones
    drawEnvelope(this.layers.envelope, markers, this.name, (p) => this.toScreen(p), this.tableDrawing());
  }

  // How this view draws the table marker (a square outline at its height): the side view as a
  // line across the view at that height, the 3D view as the outline; from above, not at all.
  tableDrawing() {
    if (this.name === "top") return null;
    if (this.name === "orbit") return (marker) => element("polyline", { fill: "none", points: polylinePoints(marker.points.map((p) => this.toScreen(p))) });
    return (marker) => {
      const [, py] = this.planeToScreen(0, marker.points[0].z);
      return element("line", { x1: 0, y1: py, x2: this.svg.getBoundingClientRect().width, y2: py });
    };
  }

  // --- the arm layer ----------------------------------------------------------------------------

  // Draws `joints` (name -> rad) with the URDF chain into `layer`; the tip's id is
  // `${view}-${prefix}-tip`. With `fingers`, the hand's links too (the live arm's gripper).
  drawArm(layer, joints, prefix, fingers = false) {
    if (!this.chain) return;
    const points = this.chain.points(joints).map((p) => ({ ...p, screen: this.toScreen(p) }));
    const segments = fingers ? this.chain.fingers(joints).map(([a, b]) => [this.toScreen(a), this.toScreen(b)]) : [];
    drawChain(layer, points, `${this.name}-${prefix}-tip`, { base: 8, joint: 4.5, tip: 4 }, segments);
  }

  // target: {x, y, z} m or null; tone: the status tone of the mark; tool: the requested tool x
  // axis (a unit vector), drawn as an arrow from the target where the view does not see it
  // end-on. The top view also draws the side view's plane, the 3D view the target's height.
  drawTarget(target, tone, tool) {
    this.last.target = target ? [target, tone, tool] : null;
    const layer = this.layers.target;
    layer.replaceChildren();
    if (!target) return;
    const [px, py] = this.toScreen(target);
    if (this.name === "top" && this.plane) {
      const direction = this.plane();
      const r = this.extent.horizontal * 1.05;
      const [[x1, y1], [x2, y2]] = [-r, r].map((s) => this.toScreen({ x: s * Math.cos(direction), y: s * Math.sin(direction), z: 0 }));
      element("line", { id: "top-plane", class: "plane-line", x1, y1, x2, y2 }, layer);
    }
    if (this.name === "orbit") {
      const [fx, fy] = this.toScreen({ x: target.x, y: target.y, z: 0 });
      element("line", { class: "drop-line", x1: px, y1: py, x2: fx, y2: fy }, layer);
    }
    targetMark(layer, `${this.name}-target-mark`, `target-mark target-${tone}`, [px, py], target);
    if (!tool) return;
    const [du, dv] = this.projection.projectDirection(tool);
    if (Math.hypot(du, dv) < 0.2) return; // seen end-on: no arrow
    // Foreshortened as the view sees the tool axis; screen y points down.
    arrow(layer, `${this.name}-tool-arrow`, `heading-arrow target-${tone}`, [px, py], [TOOL_ARROW_PX * du, -TOOL_ARROW_PX * dv]);
  }

  drawPlan(markers, failed) {
    this.last.plan = markers;
    this.last.failed = failed;
    const layer = this.layers.plan;
    layer.replaceChildren();
    for (const marker of markers) {
      if (marker.type !== MARKER_LINE_STRIP || !PLAN_CLASSES[marker.ns]) continue;
      const points = polylinePoints(marker.points.map((p) => this.toScreen(p)));
      element("polyline", { class: PLAN_CLASSES[marker.ns], id: `${this.name}-plan-${marker.ns}`, points }, layer);
    }
    if (!failed) return;
    // The label once, in the side view, where the height can be read.
    failedStep(layer, `${this.name}-failed-step`, this.toScreen(failed), failed, this.svg.getBoundingClientRect().width, this.name === "side");
  }
}
