// A small rosbridge v2 client over a plain WebSocket (the JSON protocol of
// ROSBRIDGE_PROTOCOL.md): subscribe, publish, call_service, send_action_goal, cancel_action_goal.
// It reconnects by itself with back-off and re-subscribes; calls in flight when the
// connection drops are answered with an error so that the page never waits forever.

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;

export class Rosbridge {
  constructor(url, { onConnection = () => {} } = {}) {
    this.url = url;
    this.onConnection = onConnection;
    this.socket = null;
    this.connected = false;
    this.nextId = 1;
    this.subscriptions = new Map(); // topic -> {type, options, handlers: Set}
    this.calls = new Map(); // id -> {resolve}
    this.goals = new Map(); // id -> {onFeedback, onResult}
    this.backoffMs = MIN_BACKOFF_MS;
    this.onStatus = () => {};
    this.open();
  }

  open() {
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.scheduleReconnect(String(error));
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.connected = true;
      this.backoffMs = MIN_BACKOFF_MS;
      for (const [topic, sub] of this.subscriptions) this.sendSubscribe(topic, sub);
      this.onConnection(true, "");
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      const wasConnected = this.connected;
      this.connected = false;
      this.failPending("connection lost");
      this.scheduleReconnect(wasConnected ? "connection lost" : `cannot connect (code ${event.code})`);
    };
  }

  scheduleReconnect(reason) {
    const delay = this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    this.onConnection(false, `${reason}; retrying in ${(delay / 1000).toFixed(1)} s`);
    setTimeout(() => this.open(), delay);
  }

  failPending(reason) {
    for (const [, call] of this.calls) call.resolve({ result: false, values: reason });
    this.calls.clear();
    for (const [, goal] of this.goals) goal.onResult({ result: false, values: reason });
    this.goals.clear();
  }

  send(message) {
    if (!this.connected) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  // A message of a stream where the newest counts (a jog's velocity, many a second): sent only
  // when nothing sent before still waits in the socket's buffer, so a slow link never builds a
  // backlog of old commands; false when not sent (the caller sends its newest one next time).
  publishLatest(topic, msg) {
    if (!this.connected || this.socket.bufferedAmount > 0) return false;
    return this.send({ op: "publish", topic, msg });
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    switch (message.op) {
      case "publish": {
        const sub = this.subscriptions.get(message.topic);
        if (sub) for (const handler of sub.handlers) handler(message.msg);
        break;
      }
      case "service_response": {
        const call = this.calls.get(message.id);
        if (call) {
          this.calls.delete(message.id);
          call.resolve(message);
        }
        break;
      }
      case "action_feedback": {
        const goal = this.goals.get(message.id);
        if (goal) goal.onFeedback(message.values);
        break;
      }
      case "action_result": {
        const goal = this.goals.get(message.id);
        if (goal) {
          this.goals.delete(message.id);
          goal.onResult(message);
        }
        break;
      }
      case "status": {
        // An error about one of our requests answers it; anything else is shown.
        const call = this.calls.get(message.id);
        const goal = this.goals.get(message.id);
        if (message.level === "error" && call) {
          this.calls.delete(message.id);
          call.resolve({ result: false, values: message.msg });
        } else if (message.level === "error" && goal) {
          this.goals.delete(message.id);
          goal.onResult({ result: false, values: message.msg });
        } else {
          this.onStatus(message);
        }
        break;
      }
      default:
        break;
    }
  }

  sendSubscribe(topic, sub) {
    this.send({ op: "subscribe", id: `sub:${topic}`, topic, type: sub.type, ...sub.options });
  }

  subscribe(topic, type, handler, options = {}) {
    let sub = this.subscriptions.get(topic);
    if (!sub) {
      sub = { type, options, handlers: new Set() };
      this.subscriptions.set(topic, sub);
      this.sendSubscribe(topic, sub);
    }
    sub.handlers.add(handler);
  }

  // Resolves with the service_response message ({result, values}); never rejects.
  callService(service, type, args) {
    const id = `call:${this.nextId++}`;
    return new Promise((resolve) => {
      this.calls.set(id, { resolve });
      if (!this.send({ op: "call_service", id, service, type, args })) {
        this.calls.delete(id);
        resolve({ result: false, values: "not connected" });
      }
    });
  }

  // Returns the goal id (for cancelGoal), or null when not connected.
  sendGoal(action, actionType, args, onFeedback, onResult) {
    const id = `goal:${this.nextId++}`;
    this.goals.set(id, { onFeedback, onResult });
    const message = { op: "send_action_goal", id, action, action_type: actionType, args, feedback: true };
    if (!this.send(message)) {
      this.goals.delete(id);
      return null;
    }
    return id;
  }

  cancelGoal(action, id) {
    return this.send({ op: "cancel_action_goal", id, action });
  }
}
