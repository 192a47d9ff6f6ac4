// Chat turns over HTTP as a browser sends them, timed from the moment the
// request goes out, and what the benchmark reads from their streams.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createParser } from "eventsource-parser";

/**
 * A person using the app, as the servers run it by default (AUTH_MODE=accounts;
 * the bench's servers let anyone sign up): a new account's session cookie.
 */
export async function visitor(baseUrl) {
  const response = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ name: "Bench", email: `bench-${randomUUID()}@example.org`, password: "a bench password" }),
  });
  const text = await response.text();
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("threadline.session_token="))?.split(";")[0];
  if (!response.ok || !cookie) throw new Error(`the app made no account (${response.status}): ${text.slice(0, 300)}`);
  return cookie;
}

/**
 * One POST /api/chat, read to the end. `firstTokenMs`: until the first text
 * delta; `finishAfterLastTokenMs`: from the last text delta to the finish;
 * `totalMs`: until the stream ended. `onFirstToken` is called as the first
 * text delta arrives.
 */
export async function timedTurn(baseUrl, cookie, body, { onFirstToken } = {}) {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/chat`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify(body),
  });
  if (!response.ok) return { error: `HTTP ${response.status}: ${(await response.text()).slice(0, 200)}` };
  const chunks = [];
  let firstTokenMs;
  let lastTokenMs;
  let finishMs;
  await readChunks(response, (chunk) => {
    if (chunk.type === "text-delta") {
      lastTokenMs = performance.now() - started;
      if (firstTokenMs === undefined) onFirstToken?.();
      firstTokenMs ??= lastTokenMs;
    }
    if (chunk.type === "finish") finishMs = performance.now() - started;
    chunks.push(chunk);
  });
  const totalMs = performance.now() - started;
  const last = chunks.at(-1);
  if (last?.type !== "finish") return { error: `the stream ended with ${JSON.stringify(last)?.slice(0, 200)}` };
  return { firstTokenMs, finishAfterLastTokenMs: finishMs - lastTokenMs, totalMs, chunks, threadId: response.headers.get("x-thread-id") };
}

/**
 * A UI message stream's chunks as they arrive (its server-sent events, parsed
 * by eventsource-parser, as the page parses them); `onChunk` returning false
 * stops reading.
 */
export async function readChunks(response, onChunk) {
  let stop = false;
  const parser = createParser({
    onEvent: ({ data }) => {
      if (!stop && data.startsWith("{") && onChunk(JSON.parse(data)) === false) stop = true;
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of response.body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    if (stop) return;
  }
}

/** The page's signed copy of a finished turn: what it sends back as `history` next time. */
export function copyOf(turn, userMessage) {
  const signed = new Map();
  for (const chunk of turn.chunks) {
    if (chunk.type === "data-signatures") for (const s of chunk.data.signatures) signed.set(s.id, s);
  }
  const replyId = turn.chunks.find((c) => c.type === "start").messageId;
  const agentName = turn.chunks.find((c) => c.type === "data-agent")?.data.name;
  const text = turn.chunks.filter((c) => c.type === "text-delta").map((c) => c.delta).join("");
  // Each signature covers the message's place: its seq and the message it follows.
  const place = (id) => {
    const { signature, seq, parentId } = signed.get(id);
    return { signature, seq, ...(parentId !== undefined ? { parentId } : {}) };
  };
  return [
    { id: userMessage.id, role: "user", parts: [{ type: "text", text: userMessage.content }], ...place(userMessage.id) },
    { id: replyId, role: "assistant", parts: [{ type: "text", text, ...(agentName ? { agentName } : {}) }], ...place(replyId) },
  ];
}

/** Runs `total` tasks, `concurrency` at a time. */
export async function pool(total, concurrency, task) {
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const median = (values) => percentile(values, 50);

/** The machine's CPU time so far, busy and in all, over every core (/proc/stat, in clock ticks). */
export function machineCpu() {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  const ticks = fields.slice(0, 8).map(Number);
  const total = ticks.reduce((sum, n) => sum + n, 0);
  return { busy: total - ticks[3] - ticks[4], total };
}

/** The share of the machine's cores that were busy (anything: the server, its database, the load) between two readings, in %. */
export const busyPercent = (from, to) => (to.total === from.total ? null : Math.round((100 * (to.busy - from.busy)) / (to.total - from.total)));
