import { randomUUID } from "node:crypto";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { chatTurn, replyParts, signaturesIn, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

// What a turn costs the database, counted at pg's client: every query is one
// round trip (a transaction's BEGIN and COMMIT too). The rate limits,
// two more round trips side by side, are off here and have tests of their own.
const t = integrationApp({ settings: { RATE_LIMIT_CHAT_PER_MINUTE: "0", RATE_LIMIT_CHAT_PER_MINUTE_PER_ADDRESS: "0" } });
let roundTrips = 0;
/** Writes of turn_progress: made only while a reader asks for a running reply (off the turn's path), counted apart. */
let progressWrites = 0;

beforeAll(async () => {
  // The app's listener (Stop, progress, threads) opens once, with the first turn; its LISTEN is no turn's cost.
  await t.app.listening();
  // Every query of every connection, whether through pool.query or a checked-out client.
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (text?.includes("INSERT INTO turn_progress")) progressWrites++;
    else roundTrips++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});

describe("database round trips per turn", () => {
  it("a new thread and the client path take 6, the database path 7: within 6 and 7", async () => {
    const me = await visitor();
    const counted = async (body: Record<string, unknown>) => {
      const before = roundTrips;
      const result = await chatTurn(chat, body, me.cookie);
      expect(result.response.status).toBe(200);
      return { result, trips: roundTrips - before };
    };
    const first = { id: randomUUID(), content: "one" };
    const opened = await counted({ message: first });
    expect(opened.trips).toBeLessThanOrEqual(6);

    const signed = signaturesIn(opened.result.chunks);
    const replyId = (opened.result.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    const history = [
      { id: first.id, role: "user", parts: [{ type: "text", text: "one" }], ...signed.get(first.id) },
      { id: replyId, role: "assistant", parts: await replyParts(opened.result.chunks), ...signed.get(replyId) },
    ];
    const client = await counted({ threadId: opened.result.threadId, message: { id: randomUUID(), content: "two" }, history });
    expect(client.result.response.headers.get("x-history-source")).toBe("client");
    expect(client.trips).toBeLessThanOrEqual(6);

    const database = await counted({ threadId: opened.result.threadId, message: { id: randomUUID(), content: "three" } });
    expect(database.result.response.headers.get("x-history-source")).toBe("database");
    expect(database.trips).toBeLessThanOrEqual(7);
    // As measured today: one to open the turn, one to store the reply, one more to read the history; and
    // the budgets' three (lib/budgets/): the check before the turn (read beside the rate limits and the body), the
    // call's reservation (the one the turn waits for) and its settlement (landing while the reply is stored); and the
    // person's memories, ranked for the message (lib/memory/recall.ts: one statement, also when they keep none).
    expect([opened.trips, client.trips, database.trips]).toEqual([6, 6, 7]);
    // Nobody followed these replies from elsewhere: none wrote its stream, during its turn or after.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(progressWrites).toBe(0);
  });

  it("still stores a message sent five times at once exactly once, with one model call", async () => {
    const me = await visitor();
    t.mock.requests.length = 0;
    const message = { id: randomUUID(), content: "five at once" };
    const all = await Promise.all(Array.from({ length: 5 }, () => chatTurn(chat, { message }, me.cookie)));
    expect(new Set(all.map((r) => r.threadId)).size).toBe(1);
    const { rows } = await t.app.pool().query("SELECT kind FROM messages WHERE thread_id = $1 ORDER BY seq", [all[0].threadId]);
    expect(rows.map((r) => r.kind)).toEqual(["user", "assistant"]);
    expect(t.mock.requests).toHaveLength(1);
  });
});
