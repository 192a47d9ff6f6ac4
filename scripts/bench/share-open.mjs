// What opening a share link's public page costs (lib/shares/, proxy.ts), and
// whether a link that is gone answers as fast as one that never was: a live
// link (page rendered, view counted), a revoked one (410) and a forged id
// (404), requested in turn, round after round, over HTTP from one client with
// no cookie, as anyone opens a link. The 404 and the 410 run the same
// statement and render the same page; the figures say how close their times
// come. Nothing here asserts a figure.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { median, percentile } from "./turns.mjs";

const round = (n) => Number(n.toFixed(2));
const stats = (times) => ({ p50: round(median(times)), p95: round(percentile(times, 95)), mean: round(times.reduce((a, b) => a + b, 0) / times.length) });

/** A short thread of the visitor's, imported, as an owner would have one to share. */
async function thread(baseUrl, cookie) {
  const at = new Date().toISOString();
  const [u, a] = [randomUUID(), randomUUID()];
  const file = {
    format: "threadline.thread",
    version: 1,
    exportedAt: at,
    thread: { title: "Bench share", createdAt: at, updatedAt: at },
    messages: [
      { id: u, parentId: null, role: "user", parts: [{ type: "text", text: "What is a share link?" }], status: "complete", createdAt: at, chosen: true, seq: 1 },
      { id: a, parentId: u, role: "assistant", parts: [{ type: "text", text: "A read-only snapshot. ".repeat(40) }], status: "complete", createdAt: at, chosen: true, seq: 2 },
    ],
  };
  const response = await fetch(`${baseUrl}/api/threads/import`, { method: "POST", headers: { cookie, "content-type": "application/json", origin: baseUrl }, body: JSON.stringify(file) });
  if (response.status !== 201) throw new Error(`import answered ${response.status}: ${await response.text()}`);
  return (await response.json()).thread.id;
}

async function link(baseUrl, cookie, threadId) {
  const response = await fetch(`${baseUrl}/api/threads/${threadId}/shares`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ expiresInDays: null }),
  });
  if (response.status !== 201) throw new Error(`a share answered ${response.status}: ${await response.text()}`);
  return (await response.json()).share.id;
}

export async function shareOpen(baseUrl, cookie, { rounds, warmUp = 20 }) {
  const threadId = await thread(baseUrl, cookie);
  const live = await link(baseUrl, cookie, threadId);
  const revoked = await link(baseUrl, cookie, threadId);
  const gone = await fetch(`${baseUrl}/api/shares/${revoked}`, { method: "DELETE", headers: { cookie, origin: baseUrl } });
  if (gone.status !== 204) throw new Error(`revoking answered ${gone.status}`);
  const forged = `${live.slice(0, 42)}${live[42] === "A" ? "Q" : "A"}`;
  const kinds = { live: { id: live, status: 200 }, gone: { id: revoked, status: 410 }, unknown: { id: forged, status: 404 } };
  const times = { live: [], gone: [], unknown: [] };
  const open = async (kind) => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/s/${kinds[kind].id}`);
    await response.arrayBuffer();
    const ms = performance.now() - started;
    if (response.status !== kinds[kind].status) throw new Error(`/s/ (${kind}) answered ${response.status}`);
    return ms;
  };
  for (let i = 0; i < warmUp; i++) for (const kind of Object.keys(kinds)) await open(kind);
  for (let i = 0; i < rounds; i++) {
    // A different order each round, so no kind always follows another.
    const order = Object.keys(kinds).sort(() => Math.random() - 0.5);
    for (const kind of order) times[kind].push(await open(kind));
  }
  const result = { rounds, live: stats(times.live), gone: stats(times.gone), unknown: stats(times.unknown) };
  result.goneMinusUnknownP50 = round(result.gone.p50 - result.unknown.p50);
  return result;
}
