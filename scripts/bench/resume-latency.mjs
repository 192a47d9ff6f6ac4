// How long a reload waits to see a running reply again: a turn is started and
// read for a while (nobody else watching it), then GET /api/threads/:id/stream
// asks for it as a reloaded page does. Timed from that request: its first
// event, and the moment the resumed stream holds every token the original
// stream had when the request went out (caught up).
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { percentile, readChunks, visitor } from "./turns.mjs";

const round = (n) => (Number.isFinite(n) ? Math.round(n) : null);
const spread = (values) => ({ p50: round(percentile(values, 50)), max: round(Math.max(...values)) });

/** `runs` reloads, each `afterTokens` tokens into a reply. */
export async function resumeLatency(appUrl, { runs, afterTokens = 30 }) {
  const cookie = await visitor(appUrl);
  const firstEvent = [];
  const caughtUp = [];
  for (let i = 0; i < runs; i++) {
    const response = await fetch(`${appUrl}/api/chat`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", origin: appUrl },
      body: JSON.stringify({ message: { id: randomUUID(), content: `[[bench]] followed after a reload ${i}` } }),
    });
    if (!response.ok) throw new Error(`POST /api/chat: ${response.status}`);
    const threadId = response.headers.get("x-thread-id");
    let tokens = 0;
    let reachedAt;
    const reached = new Promise((resolve) => (reachedAt = resolve));
    const original = readChunks(response, (chunk) => {
      if (chunk.type === "text-delta" && ++tokens === afterTokens) reachedAt();
    });
    await reached;
    const behind = tokens;
    const started = performance.now();
    const resumed = await fetch(`${appUrl}/api/threads/${threadId}/stream`, { headers: { cookie } });
    if (resumed.status !== 200) throw new Error(`GET …/stream: ${resumed.status} (the reply had ended: make it longer)`);
    let seen = 0;
    let first;
    await readChunks(resumed, (chunk) => {
      first ??= performance.now() - started;
      if (chunk.type === "text-delta" && ++seen === behind) {
        caughtUp.push(performance.now() - started);
        return false;
      }
    });
    firstEvent.push(first);
    await original;
  }
  return { runs, afterTokens, firstEventMs: spread(firstEvent), caughtUpMs: spread(caughtUp) };
}
