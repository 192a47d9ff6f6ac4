import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { WAITING_NOTICE } from "@/lib/protocol/chat";
import { parseChunks, readUntil, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

// A message sent again while its first request is still being answered waits
// for that answer (lib/agent/turn/turn-claims.ts), and says so at once; when the
// client that resent it hangs up, the wait ends with it instead of asking the
// database every 250 ms for as long as the reply lasts.
const t = integrationApp();

const turnState = async (threadId: string) =>
  (await t.pool.query<{ status: string }>("SELECT status FROM turns WHERE thread_id = $1", [threadId])).rows.map((r) => r.status);

describe("a resend whose client hangs up", () => {
  it("stops waiting for the running turn, which goes on and answers once", async () => {
    const me = await visitor();
    const message = { id: randomUUID(), content: "[[slow]] a long answer, please" };
    const first = await chat.POST(request("/api/chat", { method: "POST", cookie: me.cookie, json: { message } }), undefined);
    expect(first.status).toBe(200);
    const threadId = first.headers.get("x-thread-id")!;
    const rest = first.text();

    // Each ask of the wait is a claim query on the app's pool.
    const queries = vi.spyOn(t.app.pool(), "query");
    const claimAsks = () => queries.mock.calls.filter(([text]) => String(text).includes("threadline_claim_turn")).length;

    const client = new AbortController();
    const answer = await chat.POST(request("/api/chat", { method: "POST", cookie: me.cookie, json: { threadId, message }, signal: client.signal }), undefined);
    // Answered at once, saying that it waits for the turn already answering the message.
    expect(answer.status).toBe(200);
    const waiting = await readUntil(answer, (text) => parseChunks(text).some((chunk) => chunk.type === "data-notice"));
    expect(parseChunks(waiting.text)[0]).toMatchObject({ type: "data-notice", data: { text: WAITING_NOTICE } });
    await vi.waitFor(() => expect(claimAsks()).toBeGreaterThan(1), { timeout: 5_000, interval: 50 });

    client.abort();
    void waiting.reader.cancel().catch(() => {});
    // The wait ends with its client: it asks no more while the first turn goes on.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const asked = claimAsks();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(claimAsks()).toBe(asked);
    expect(await turnState(threadId)).toEqual(["running"]);
    queries.mockRestore();

    await rest;
    expect(await turnState(threadId)).toEqual(["done"]);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM messages WHERE thread_id = $1 AND kind = 'assistant'", [threadId]);
    expect(rows[0].n).toBe(1);
  });
});
