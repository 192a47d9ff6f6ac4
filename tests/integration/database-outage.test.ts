import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@threadline/history/migrate";
import { startMockModelServer, type MockModelServer } from "../../scripts/mock-model-server.mjs";
import { chatTurn, parseChunks, replyText, request, visitor } from "../support/api";
import { createPrivatePostgres, privatePostgresUnavailable, type PrivatePostgres } from "../support/private-postgres";
import { testApp } from "../support/test-app";
import * as chat from "@/app/api/chat/route";
import * as health from "@/app/api/health/route";
import * as threadsRoute from "@/app/api/threads/route";
import type { App } from "@/lib/app";

// The app against a Postgres of this test's own, which the test stops and
// starts again: while it is away, requests answer 503 with Retry-After and a
// JSON error that says so, and the health check says so; once it is back,
// everything works again without restarting the app.
let cluster: PrivatePostgres;
let mock: MockModelServer;
let app: App;

// Needs the PostgreSQL server binaries (Debian's postgresql package), as CI has.
const unavailable = privatePostgresUnavailable();

beforeAll(async () => {
  if (unavailable) return;
  cluster = await createPrivatePostgres();
  mock = await startMockModelServer();
  await migrate(cluster.url);
  app = testApp({ modelUrl: mock.url, settings: { DATABASE_URL: cluster.url, DATABASE_POOL_SIZE: "4" } });
}, 120_000);
afterAll(async () => {
  if (unavailable) return;
  await app?.close().catch(() => {});
  await mock?.close();
  await cluster?.destroy();
});

describe.skipIf(unavailable)(`while the database is away${unavailable ? ` (skipped: ${unavailable})` : ""}`, () => {
  it("answers 503 with Retry-After and says why, reports it in /api/health, and recovers when it is back", async () => {
    const me = await visitor();
    const before = await chatTurn(chat, { message: { id: randomUUID(), content: "before the outage" } }, me.cookie);
    expect(before.response.status).toBe(200);
    expect((await health.GET()).status).toBe(200);

    await cluster.stop();
    try {
      const during = await chatTurn(chat, { threadId: before.threadId, message: { id: randomUUID(), content: "during" } }, me.cookie);
      expect(during.response.status).toBe(503);
      expect(Number(during.response.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(during.error).toEqual({ error: { code: "unavailable:database", message: expect.stringMatching(/database is unavailable/) } });

      const list = await threadsRoute.GET(request("/api/threads", { cookie: me.cookie }), undefined);
      expect(list.status).toBe(503);

      const report = await health.GET();
      expect(report.status).toBe(503);
      expect(await report.json()).toMatchObject({ status: "degraded", database: "unavailable" });
    } finally {
      await cluster.start();
    }

    const after = await chatTurn(chat, { threadId: before.threadId, message: { id: randomUUID(), content: "after the outage" } }, me.cookie);
    expect(after.response.status).toBe(200);
    expect(after.text).toContain('You said: "after the outage"');
    expect((await health.GET()).status).toBe(200);
  });

  it("keeps every reply that streamed to the end while the database was away, once each, when it is back in time", async () => {
    const me = await visitor();
    const words = ["alpha", "bravo", "charlie", "delta", "echo"];
    const responses = await Promise.all(words.map((word) => chat.POST(request("/api/chat", { method: "POST", cookie: me.cookie, json: { message: { id: randomUUID(), content: word } } }), undefined)));
    expect(responses.map((r) => r.status)).toEqual(Array(5).fill(200));
    const readers = responses.map((r) => r.body!.pipeThrough(new TextDecoderStream()).getReader());
    const texts = words.map(() => "");
    // Every reply is streaming: then the database goes away, and comes back a few seconds later.
    await Promise.all(readers.map(async (reader, i) => {
      while (!texts[i].includes('"text-delta"')) texts[i] += (await reader.read()).value ?? "";
    }));
    await cluster.stop();
    const reading = readers.map(async (reader, i) => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) texts[i] += r.value;
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await cluster.start();
    await Promise.all(reading);

    for (const [i, word] of words.entries()) {
      const chunks = parseChunks(texts[i]);
      expect(chunks.at(-1), word).toEqual({ type: "finish", finishReason: "stop" });
      const threadId = responses[i].headers.get("x-thread-id");
      const { rows } = await app.pool().query("SELECT kind, content FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
      expect(rows.map((row) => row.kind)).toEqual(["user", "assistant"]);
      expect(rows[1].content).toBe(replyText(chunks));
    }
  });
});
