// Inngest realtime, as the SDK sees it (inngest/api/api.js and
// components/realtime/subscribe/TokenSubscription.js):
//   POST /v1/realtime/token    body [{channel, name: topic, kind}] → {jwt}
//   GET  /v1/realtime/connect?token=…  websocket; server sends JSON text
//        messages {kind: "data", channel, topic, data, run_id, created_at}
//   POST /v1/realtime/publish?channel=…&topic=…[&run_id=…]  body: JSON data
// The token is an opaque random string here, not a JWT: the SDK never looks
// inside it, and binding it to one channel is what matters.
import { randomBytes } from "node:crypto";
import { acceptWebSocket, rejectUpgrade } from "./websocket.mjs";

export class Realtime {
  /** token → { channel, topics } */
  #tokens = new Map();
  /** open websockets with the channel and topics their token allows */
  #subscribers = new Set();
  /** every message accepted by publish, oldest first */
  published = [];

  issueToken(body) {
    if (!Array.isArray(body) || body.length === 0) return { status: 400, body: { error: "expected a list of topics" } };
    const channels = new Set(body.map((t) => t?.channel));
    const topics = body.map((t) => t?.name);
    if (channels.size !== 1 || typeof [...channels][0] !== "string" || !topics.every((t) => typeof t === "string")) {
      return { status: 400, body: { error: "a token covers topics of exactly one channel" } };
    }
    const token = randomBytes(24).toString("hex");
    this.#tokens.set(token, { channel: [...channels][0], topics: new Set(topics) });
    return { status: 200, body: { jwt: token } };
  }

  connect(req, socket, head, url) {
    const grant = this.#tokens.get(url.searchParams.get("token") ?? "");
    if (!grant) return rejectUpgrade(socket, 401, "unknown realtime token");
    const connection = acceptWebSocket(req, socket, head);
    if (!connection) return;
    const subscriber = { ...grant, connection };
    this.#subscribers.add(subscriber);
    connection.onclose = () => this.#subscribers.delete(subscriber);
  }

  /** Messages go out in the order publishes arrive, each to its channel's matching subscribers only. */
  publish(url, contentType, rawBody) {
    const channel = url.searchParams.get("channel");
    const topics = url.searchParams.getAll("topic");
    if (!channel || topics.length === 0) return { status: 400, body: { error: "channel and topic are required" } };
    // The SDK posts ReadableStreams as text/stream; its own subscriber then
    // crashes on them, so Threadline must never publish one.
    if (!contentType.startsWith("application/json")) {
      return { status: 415, body: { error: `the stand-in accepts JSON publishes only, not ${contentType}` } };
    }
    let data;
    try {
      data = JSON.parse(rawBody);
    } catch {
      return { status: 400, body: { error: "publish body is not JSON" } };
    }
    const runId = url.searchParams.get("run_id") ?? undefined;
    for (const topic of topics) {
      const message = { kind: "data", channel, topic, data, run_id: runId, created_at: new Date().toISOString() };
      this.published.push(message);
      const text = JSON.stringify(message);
      for (const s of this.#subscribers) if (s.channel === channel && s.topics.has(topic)) s.connection.sendText(text);
    }
    return { status: 200, body: {} };
  }

  /** Open websockets, for tests that check subscriptions get closed. */
  connections() {
    return [...this.#subscribers].map(({ channel, topics }) => ({ channel, topics: [...topics] }));
  }

  closeAll() {
    for (const s of this.#subscribers) s.connection.terminate();
  }
}
