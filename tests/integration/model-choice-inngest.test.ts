import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { parseChunks, request, visitor } from "../support/api";
import { integrationApp } from "../support/integration";

// The model picked for a message travels in the chat-turn event to the
// durable run, which answers with it and records it with the reply.
const t = integrationApp({ runtime: "inngest", settings: { MODEL_PROVIDER: "", MODEL: "", MODELS: "openai-compatible:mock-a, openai-compatible:mock-b" } });
let chat: typeof import("@/app/api/chat/route");

beforeAll(async () => {
  chat = await import("@/app/api/chat/route");
});

describe("the model picked for a message, on the Inngest runtime", () => {
  it("answers each message with the model the event names, and each reply records it", async () => {
    const me = await visitor();
    const send = async (body: Record<string, unknown>) => {
      const response = await chat.POST(request("/api/chat", { method: "POST", cookie: me.cookie, json: body }), undefined);
      expect(response.status).toBe(200);
      const chunks = parseChunks(await response.text());
      return { threadId: response.headers.get("x-thread-id")!, chunks };
    };
    const first = await send({ message: { id: randomUUID(), content: "durable pick" }, model: "openai-compatible:mock-b" });
    expect(first.chunks.find((c) => c.type === "start")).toMatchObject({ messageMetadata: { model: "openai-compatible:mock-b" } });
    await send({ threadId: first.threadId, message: { id: randomUUID(), content: "and again" }, model: "openai-compatible:mock-a" });
    await send({ threadId: first.threadId, message: { id: randomUUID(), content: "no pick" } });

    expect(t.inngest.mock.requests.map((r) => (r as { model: string }).model)).toEqual(["mock-b", "mock-a", "mock-a"]);
    const { rows } = await t.pool.query<{ model: string | null }>(
      "SELECT model FROM messages WHERE thread_id = $1 AND kind = 'assistant' ORDER BY seq",
      [first.threadId],
    );
    expect(rows.map((r) => r.model)).toEqual(["openai-compatible:mock-b", "openai-compatible:mock-a", "openai-compatible:mock-a"]);
    const { rows: thread } = await t.pool.query<{ model: string }>("SELECT model FROM threads WHERE id = $1", [first.threadId]);
    expect(thread[0].model).toBe("openai-compatible:mock-a");
  });
});
