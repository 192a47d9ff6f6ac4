import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { request, visitor } from "../support/api";
import { setAppEnv } from "../support/app-env";
import { testPool } from "../support/db";

// A message sent again while its first request is still being answered waits
// for that answer (lib/agent/turn-claims.ts); when the client that resent it
// hangs up, the wait ends with it instead of lasting as long as the reply.
let mock: MockModelServer;
let chat: typeof import("@/app/api/chat/route");
const pool = testPool();

beforeAll(async () => {
  mock = await startMockModelServer();
  setAppEnv({ modelUrl: mock.url });
  chat = await import("@/app/api/chat/route");
});
afterAll(async () => {
  await mock.close();
  await pool.end();
});

const turnState = async (threadId: string) =>
  (await pool.query<{ status: string }>("SELECT status FROM turns WHERE thread_id = $1", [threadId])).rows.map((r) => r.status);

describe("a resend whose client hangs up", () => {
  it("stops waiting for the running turn, which goes on and answers once", async () => {
    const me = await visitor();
    const message = { id: randomUUID(), content: "[[slow]] a long answer, please" };
    const first = await chat.POST(request("/api/chat", { method: "POST", cookie: me.cookie, json: { message } }), undefined);
    expect(first.status).toBe(200);
    const threadId = first.headers.get("x-thread-id")!;
    const rest = first.text();

    const client = new AbortController();
    const resent = chat.POST(request("/api/chat", { method: "POST", cookie: me.cookie, json: { threadId, message }, signal: client.signal }), undefined);
    // Let it reach the wait (it would otherwise end only with the slow reply), then hang up.
    await new Promise((resolve) => setTimeout(resolve, 600));
    client.abort();
    const answer = await resent;
    expect(answer.status).toBe(409);
    expect((await answer.json()).error.code).toBe("conflict:turn_in_progress");
    // Refused while the first turn still runs: it did not wait for it.
    expect(await turnState(threadId)).toEqual(["running"]);

    await rest;
    expect(await turnState(threadId)).toEqual(["done"]);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM messages WHERE thread_id = $1 AND kind = 'assistant'", [threadId]);
    expect(rows[0].n).toBe(1);
  });
});
