import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HUGE_REPLY, HUGE_REPLY_FIRST_WORD } from "../../scripts/mock-model-server.mjs";
import { chatTurn, params, request, visitor } from "../support/api";
import { TEST_DATABASE_URL } from "../support/db";
import { InngestTestEngine } from "@inngest/test";
import type { TimelineEntry } from "@/lib/protocol/threads";
import { CHAT_TURN_EVENT, type TurnChunkMessage } from "@/lib/protocol/turn-events";
import { turnEventData } from "../support/turn-events";
import * as chat from "@/app/api/chat/route";
import * as timeline from "@/app/api/threads/[id]/timeline/route";
import * as search from "@/app/api/search/route";
import { createChatTurnFunction } from "@/inngest/functions/chat-turn";
import { integrationApp } from "../support/integration";

// Whatever a model or a tool writes is stored whole: a text too big for a
// full-text vector still saves (search reads its beginning), and a save the
// database refuses for what it holds ends the turn at once with a message
// that says so, never as if the database were away.
const t = integrationApp();
let admin: pg.Pool;

// A rule the test adds to the database, so that it refuses one reply's text as a real constraint would.
const REFUSED_WORD = `refusedword${randomUUID().slice(0, 8)}`;
const REFUSING_CONSTRAINT = `test_refuses_${REFUSED_WORD}`;

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
});
afterAll(async () => {
  await admin.query(`ALTER TABLE messages DROP CONSTRAINT IF EXISTS ${REFUSING_CONSTRAINT}`).catch(() => {});
  await admin.end();
});

async function partsOf(threadId: string, cookie: string): Promise<TimelineEntry[]> {
  const response = await timeline.GET(request(`/api/threads/${threadId}/timeline`, { cookie }), params(threadId));
  expect(response.status).toBe(200);
  return (await response.json()).parts;
}

async function searchFor(word: string, cookie: string): Promise<{ threadId: string; messageId?: string }[]> {
  const response = await search.GET(request(`/api/search?q=${word}`, { cookie }), undefined);
  expect(response.status).toBe(200);
  return (await response.json()).results;
}

describe("parts larger than a full-text vector holds", () => {
  it("stores a 1.5 MB reply whole, shows it in the timeline and finds a word near its start", async () => {
    const me = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: "Write at length [[huge]]" } }, me.cookie);
    expect(turn.response.status).toBe(200);
    expect(turn.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    expect(turn.text).toBe(HUGE_REPLY);

    const parts = await partsOf(turn.threadId!, me.cookie);
    const reply = parts.find((part) => part.role === "assistant" && part.type === "text");
    expect(reply && "text" in reply && reply.text.length).toBe(HUGE_REPLY.length);
    expect(reply && "text" in reply && reply.text === HUGE_REPLY).toBe(true);

    const found = await searchFor(HUGE_REPLY_FIRST_WORD, me.cookie);
    expect(found).toEqual([expect.objectContaining({ threadId: turn.threadId, messageId: reply!.messageId })]);

    // The thread goes on: the reply is more than the model may read, so the next turn reads a summary of it.
    const next = await chatTurn(chat, { threadId: turn.threadId, message: { id: randomUUID(), content: "and then?" } }, me.cookie);
    expect(next.response.status).toBe(200);
    expect(next.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    expect(next.text).toContain('You said: "and then?"');
    const lastRequest = t.mock.requests.at(-1) as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(lastRequest.messages).length).toBeLessThan(400_000);
  });

  it("stores a 2 MB tool result and a user message over a vector's size whole through the adapter", async () => {
    const me = await visitor();
    const adapter = t.app.history();
    const { threadId } = await adapter.createThread({ owner: me.id });
    const words = HUGE_REPLY.split(" ");
    const output = `${words.slice(0, 200_000).join(" ")} ${words.slice(0, 150_000).join(" ")}`.slice(0, 2_000_000);
    const opening = `${HUGE_REPLY_FIRST_WORD}user ${HUGE_REPLY.slice(HUGE_REPLY_FIRST_WORD.length)}`;
    await adapter.appendUserMessage({ owner: me.id, threadId, turnId: randomUUID(), message: { id: randomUUID(), role: "user", content: opening } });
    await adapter.appendResults({
      owner: me.id,
      threadId,
      reply: {
        id: randomUUID(),
        role: "assistant",
        status: "complete",
        parts: [
          { type: "tool-call", toolCallId: "call-1", toolName: "calculate", input: { expression: "1 + 1" } },
          { type: "tool-result", toolCallId: "call-1", toolName: "calculate", output: output },
          { type: "text", text: "Done." },
        ],
      },
    });

    const parts = await partsOf(threadId, me.cookie);
    const result = parts.find((part) => part.type === "tool-result");
    expect(result && "output" in result && result.output).toBe(output);
    expect(output.length).toBe(2_000_000);
    const user = parts.find((part) => part.role === "user");
    expect(user && "text" in user && user.text).toBe(opening);
    expect(await searchFor(`${HUGE_REPLY_FIRST_WORD}user`, me.cookie)).toEqual([expect.objectContaining({ threadId })]);
  });
});

describe("a reply the database refuses", () => {
  it("ends the turn at once with a message that names the refusal, keeps the user's message, and is not called an outage", async () => {
    // NOT VALID: rows already stored are not checked, only new ones.
    await admin.query(
      `ALTER TABLE messages ADD CONSTRAINT ${REFUSING_CONSTRAINT}
         CHECK (kind <> 'assistant' OR position('${REFUSED_WORD}' in content) = 0) NOT VALID`,
    );
    const me = await visitor();
    const content = `please repeat ${REFUSED_WORD}`;
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content } }, me.cookie);
    expect(turn.response.status).toBe(200);
    // The user saw the whole reply stream before the save failed.
    expect(turn.text).toContain(REFUSED_WORD);
    const errors = turn.chunks.flatMap((chunk) => (chunk.type === "error" ? [chunk.errorText] : []));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/could not be saved/);
    expect(errors[0]).toMatch(/refused/);
    expect(errors[0]).not.toMatch(/unavailable/);

    const parts = await partsOf(turn.threadId!, me.cookie);
    expect(parts.map((part) => [part.role, part.type])).toEqual([["user", "text"]]);
    expect(parts[0]).toMatchObject({ text: content });

    // The turn is over (failed, so the page offers Retry), not left running.
    const { rows } = await admin.query(`SELECT status FROM turns WHERE thread_id = $1`, [turn.threadId]);
    expect(rows).toEqual([{ status: "failed" }]);
  });

  it("under Inngest, is one attempt of the save step, not a retried one, and the run ends with the reason published", async () => {
    const adapter = t.app.history();
    let saves = 0;
    const counting = Object.assign(Object.create(adapter), {
      appendResults: (ctx: Parameters<typeof adapter.appendResults>[0]) => {
        saves++;
        return adapter.appendResults(ctx);
      },
    });
    const published: TurnChunkMessage[] = [];
    const turnFn = createChatTurnFunction(t.app.inngest(), {
      ...t.app,
      publisher: { chunks: async (_turn, messages) => void published.push(...messages), refused: async () => {} },
      history: () => counting,
    });
    const owner = `owner-${randomUUID()}`;
    const event = { name: CHAT_TURN_EVENT, data: turnEventData({ owner, content: `say ${REFUSED_WORD} again` }) };
    const ran = await new InngestTestEngine({ function: turnFn, events: [event] }).execute();
    expect(ran.error).toBeUndefined();
    expect(ran.result).toMatchObject({ status: "failed", replyId: null });
    expect(saves).toBe(1);
    const errors = published.flatMap(({ chunk }) => (chunk.type === "error" ? [chunk.errorText] : []));
    expect(errors).toEqual([expect.stringMatching(/^The reply could not be saved: the database refused it/)]);
  });
});
