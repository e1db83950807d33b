// How a spatial arm's views see the base frame: each projection turns a point (x, y, z, metres,
// the base frame) into the view's plane (u to the right, v up, metres), and a pointer position
// on that plane back into a target where the view sets one. Pixels are the view's business
// (spatial_view.js); this is geometry of the drawing only, nothing of the arm's kinematics.
//
//   top    from above: u = x, v = y; the pointer sets x and y, z kept
//   side   the vertical plane through the yaw axis in `direction` (rad about z), seen from its
//          right-hand side: u = the signed horizontal distance along that direction, v = z;
//          the pointer sets the distance and z, the direction kept
//   orbit  an orthographic camera turned about z (`azimuth`) and tilted (`elevation`), rad;
//          a drag turns it

const TAU = 2 * Math.PI;
const MAX_ELEVATION = (85 * Math.PI) / 180;

// An angle wrapped to (-pi, pi].
export function wrapAngle(angle) {
  const wrapped = angle - TAU * Math.floor((angle + Math.PI) / TAU);
  return wrapped === -Math.PI ? Math.PI : wrapped;
}

export class TopProjection {
  constructor() {
    this.name = "top";
  }

  project(p) {
    return [p.x, p.y];
  }

  // A direction (unit vector in the base frame) on the view's plane, not normalised.
  projectDirection(d) {
    return [d[0], d[1]];
  }

  target(u, v, previous) {
    return { x: u, y: v, z: previous.z };
  }

  describe() {
    return {};
  }
}

export class SideProjection {
  constructor() {
    this.name = "side";
    this.direction = 0;
  }

  // The plane of a target at (x, y): its direction atan2(y, x) when the yaw (limits [lower,
  // upper], rad, from the URDF) can face it, else the opposite one, where the arm reaches it
  // over its back (the target then lies at a negative u). On the yaw axis the plane stays.
  face(x, y, lower, upper) {
    if (Math.hypot(x, y) < 1e-9) return;
    const psi = Math.atan2(y, x);
    const faces = (angle) => [angle, angle + TAU, angle - TAU].some((a) => a >= lower - 1e-12 && a <= upper + 1e-12);
    this.direction = faces(psi) || !faces(wrapAngle(psi + Math.PI)) ? psi : wrapAngle(psi + Math.PI);
  }

  project(p) {
    return [p.x * Math.cos(this.direction) + p.y * Math.sin(this.direction), p.z];
  }

  projectDirection(d) {
    return [d[0] * Math.cos(this.direction) + d[1] * Math.sin(this.direction), d[2]];
  }

  target(u, v) {
    return { x: u * Math.cos(this.direction), y: u * Math.sin(this.direction), z: v };
  }

  describe() {
    return { direction: this.direction };
  }
}

export class OrbitProjection {
  constructor(azimuth = (-55 * Math.PI) / 180, elevation = (25 * Math.PI) / 180) {
    this.name = "orbit";
    this.azimuth = azimuth;
    this.elevation = elevation;
    this.update();
  }

  // The camera looks along -(cos e cos a, cos e sin a, sin e); the screen's right and up axes
  // are the rows of the 2x3 projection matrix.
  update() {
    const [ca, sa, ce, se] = [Math.cos(this.azimuth), Math.sin(this.azimuth), Math.cos(this.elevation), Math.sin(this.elevation)];
    this.right = [-sa, ca, 0];
    this.up = [-se * ca, -se * sa, ce];
  }

  // A drag: dAzimuth, dElevation in rad; the elevation stays within +-85 degrees.
  turn(dAzimuth, dElevation) {
    this.azimuth = wrapAngle(this.azimuth + dAzimuth);
    this.elevation = Math.max(-MAX_ELEVATION, Math.min(MAX_ELEVATION, this.elevation + dElevation));
    this.update();
  }

  project(p) {
    return this.projectDirection([p.x, p.y, p.z]);
  }

  projectDirection(d) {
    const [r, u] = [this.right, this.up];
    return [r[0] * d[0] + r[1] * d[1] + r[2] * d[2], u[0] * d[0] + u[1] * d[1] + u[2] * d[2]];
  }

  describe() {
    return { azimuth: this.azimuth, elevation: this.elevation, right: [...this.right], up: [...this.up] };
  }
}
