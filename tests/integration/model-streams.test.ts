import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LONG_REPLY, SPLIT_EMOJI_REPLY } from "../../scripts/mock-model-server.mjs";
import { chatTurn, replyParts, replyText, signaturesIn } from "../support/api";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

// Model output the server produced comes back as history: whatever shape the
// model's stream took, the page's next message with that history is taken.
// A model silent for a second mid-answer counts as gone.
const t = integrationApp({ settings: { MODEL_IDLE_TIMEOUT_SECONDS: "1" } });

/** One turn, then the next with the copy the page would hold: the reply as it streamed. */
async function replyThenNext(content: string) {
  const id = randomUUID();
  const first = await chatTurn(chat, { message: { id, content } }, t.me.cookie);
  expect(first.response.status).toBe(200);
  const signed = signaturesIn(first.chunks);
  const replyId = (first.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
  const history = [
    { id, role: "user", parts: [{ type: "text", text: content }], ...signed.get(id) },
    { id: replyId, role: "assistant", parts: await replyParts(first.chunks), ...signed.get(replyId) },
  ];
  const next = await chatTurn(chat, { threadId: first.threadId, message: { id: randomUUID(), content: "and next?" }, history }, t.me.cookie);
  const { rows } = await t.pool.query<{ content: string }>("SELECT content FROM messages WHERE thread_id = $1 AND kind = 'assistant' ORDER BY seq LIMIT 1", [first.threadId]);
  return { first, next, stored: rows[0]?.content };
}

describe("model output comes back as history", () => {
  it("a stream cut inside its emoji reaches the page, the database and the next turn whole", async () => {
    const { first, next, stored } = await replyThenNext("[[split-emoji]] faces please");
    expect(first.text).toBe(SPLIT_EMOJI_REPLY);
    expect(first.text.isWellFormed()).toBe(true);
    for (const chunk of first.chunks) if (chunk.type === "text-delta") expect(chunk.delta.isWellFormed()).toBe(true);
    expect(stored).toBe(SPLIT_EMOJI_REPLY);
    // The signed copy verifies: no database read was needed.
    expect(next.response.status).toBe(200);
    expect(next.response.headers.get("x-history-source")).toBe("client");
  });

  it("a reply longer than a user may write does not block the next message", async () => {
    const { first, next, stored } = await replyThenNext("[[long]] tell me everything");
    expect(first.text).toBe(LONG_REPLY);
    expect(stored).toHaveLength(40_000);
    expect(next.response.status).toBe(200);
    expect(next.response.headers.get("x-history-source")).toBe("client");
  });
});

describe("a model stream that breaks off after writing", () => {
  const cases: [string, RegExp][] = [
    ["[[fail-mid]] a dropped connection", /broke off/],
    ["[[malformed-mid]] a line that is not JSON", /broke off/],
    ["[[bad-chunk-mid]] a chunk of the wrong shape", /broke off/],
    ["[[hang-mid]] a model that goes silent", /stopped answering: nothing arrived for 1 s/],
  ];
  for (const [content, why] of cases) {
    it(`keeps what was shown, marked incomplete, says why, and the thread takes the next message: ${content}`, async () => {
      const first = await chatTurn(chat, { message: { id: randomUUID(), content } }, t.me.cookie);
      expect(first.response.status).toBe(200);
      const shown = replyText(first.chunks);
      expect(shown.length).toBeGreaterThan(0);
      const end = first.chunks.at(-1) as { type: string; errorText?: string };
      expect(end.type).toBe("error");
      expect(end.errorText).toMatch(why);
      const { rows } = await t.pool.query<{ kind: string; content: string; status: string }>(
        "SELECT kind, content, status FROM messages WHERE thread_id = $1 ORDER BY seq",
        [first.threadId],
      );
      expect(rows.map((r) => [r.kind, r.status])).toEqual([
        ["user", "complete"],
        ["assistant", "incomplete"],
      ]);
      expect(rows[1].content).toBe(shown);

      const next = await chatTurn(chat, { threadId: first.threadId, message: { id: randomUUID(), content: "still there?" } }, t.me.cookie);
      expect(next.response.status).toBe(200);
      // The model reads what it wrote before breaking off, as the user did.
      expect(next.text).toBe('You said: "still there?". I can see 2 user message(s) and 1 assistant message(s) in this conversation.');
    });
  }
});
