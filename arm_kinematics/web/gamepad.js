// A gamepad through the browser's Gamepad API (navigator.getGamepads(), polled: the API has no
// events for sticks), read as the jog's coordinates. Only a pad with the "standard" mapping
// (W3C Gamepad, the layout of an Xbox or PlayStation pad) is used, so every button means what
// the page says:
//
//   left shoulder (LB / L1, button 4)   the dead-man: nothing moves unless it is held
//   left stick                          x (right: +x) and y (up: +y), the base frame
//   right stick, up and down            z (up: +z)
//   right stick, left and right         the turn: the tool's roll (a spatial arm) or its
//                                       heading (a planar arm); left turns counter-clockwise
//   right / left trigger (RT, LT)       the pitch, up / down
//
// Sticks have a radial dead zone (a stick at rest reads a few hundredths), triggers one of
// their own; past it a stick's value grows from 0 to 1. After the page let go of the jog (focus
// lost, STOP, the connection gone) the pad moves nothing until the dead-man has been released
// and pressed again: a thumb that kept it held does not start the arm on its own.

export const DEAD_MAN_BUTTON = 4; // left shoulder in the standard mapping
const RIGHT_TRIGGER = 7;
const LEFT_TRIGGER = 6;
export const STICK_DEAD_ZONE = 0.15;
export const TRIGGER_DEAD_ZONE = 0.1;

// A stick's two axes past a radial dead zone: [0, 0] inside it, else the same direction with a
// length rescaled from (deadZone..1) to (0..1).
export function pastDeadZone(a, b, deadZone = STICK_DEAD_ZONE) {
  const length = Math.hypot(a, b);
  if (length <= deadZone) return [0, 0];
  const scale = Math.min(1, (length - deadZone) / (1 - deadZone)) / length;
  return [a * scale, b * scale];
}

function pressed(button) {
  return Boolean(button) && (button.pressed || button.value > 0.5);
}

function trigger(button) {
  const value = button ? Number(button.value) || 0 : 0;
  return value <= TRIGGER_DEAD_ZONE ? 0 : (value - TRIGGER_DEAD_ZONE) / (1 - TRIGGER_DEAD_ZONE);
}

// The jog's coordinates {x, y, z, pitch, turn} (each -1..1) of a standard pad's sticks and
// triggers, the dead-man aside. (The Gamepad API's y axes point down.)
export function padAxes(pad) {
  const axis = (i) => Number(pad.axes[i]) || 0;
  const [x, down] = pastDeadZone(axis(0), axis(1));
  const [right, lower] = pastDeadZone(axis(2), axis(3));
  return { x, y: -down, z: -lower, pitch: trigger(pad.buttons[RIGHT_TRIGGER]) - trigger(pad.buttons[LEFT_TRIGGER]), turn: -right };
}

// The first connected pad, whichever slot it is in (the list may hold nulls).
function firstPad() {
  const pads = navigator.getGamepads ? [...navigator.getGamepads()] : [];
  return pads.find((pad) => pad && pad.connected) || null;
}

export class GamepadReader {
  constructor() {
    this.armed = false; // the dead-man was seen released since the page last let go
  }

  // The page let go of the jog: the pad waits for the dead-man to be released.
  disarm() {
    this.armed = false;
  }

  // {pad: its id or null, state: "none" | "not standard" | "waiting" | "released" | "held",
  // axes: the coordinates (all zero unless the dead-man is held and the pad armed)}.
  read() {
    const zero = { x: 0, y: 0, z: 0, pitch: 0, turn: 0 };
    const pad = firstPad();
    if (!pad) return { pad: null, state: "none", axes: zero };
    if (pad.mapping !== "standard") return { pad: pad.id, state: "not standard", axes: zero };
    const deadMan = pressed(pad.buttons[DEAD_MAN_BUTTON]);
    if (!deadMan) this.armed = true;
    if (!deadMan || !this.armed) return { pad: pad.id, state: deadMan ? "waiting" : "released", axes: zero };
    return { pad: pad.id, state: "held", axes: padAxes(pad) };
  }
}
