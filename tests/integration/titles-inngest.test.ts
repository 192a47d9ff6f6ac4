import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { titleFromMessage } from "@threadline/history/title";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { chatTurn, params, request } from "../support/api";
import { integrationApp } from "../support/integration";
import { storedTitle, titleChunks, titleRequests } from "../support/titles";

// Titles by the model on the Inngest runtime: the title call is a durable step
// of the chat-turn function, run by the stand-in through the real serve
// handler, after the step that published the reply's finish.
// Long enough that a title held while the test renames the thread is still awaited.
const t = integrationApp({ runtime: "inngest", titles: true, settings: { TITLE_TIMEOUT_SECONDS: "60" } });
let chat: typeof import("@/app/api/chat/route");
let thread: typeof import("@/app/api/threads/[id]/route");

beforeAll(async () => {
  chat = await import("@/app/api/chat/route");
  thread = await import("@/app/api/threads/[id]/route");
});

const turn = (body: Record<string, unknown>) => chatTurn(chat, body, t.me.cookie);
const msg = (content: string) => ({ id: randomUUID(), content });

/** A first message whose reply streams to its finish with no title in it (the title is a step after): its thread. */
async function answeredUntitled(content: string) {
  const { response, chunks, text, threadId } = await turn({ message: msg(content) });
  expect(response.status).toBe(200);
  expect(text).toBe(echoReply(content, 1, 0));
  expect(chunks.at(-1)).toMatchObject({ type: "finish" });
  expect(titleChunks(chunks)).toEqual([]);
  return threadId;
}

describe("the model's title on the Inngest runtime", () => {
  it("is asked for in a step after the finish is published, stored, and asked for once", async () => {
    const content = "Durable naming [[title-held]] [[title:Durable thread]]";
    // The model holds the title: the client's stream has its finish, and the run goes on.
    const threadId = await answeredUntitled(content);
    await vi.waitFor(() => expect(titleRequests(t.mock)).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(t.standin.runs.filter((run) => run.status === "running")).toHaveLength(1);
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: titleFromMessage(content), title_source: "message" });
    t.mock.releaseTitles();
    await t.standin.idle();
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Durable thread", title_source: "model" });
    expect(t.standin.runs.filter((run) => run.status === "failed")).toEqual([]);

    const next = await turn({ threadId, message: msg("second [[title:Not again]]") });
    expect(next.response.status).toBe(200);
    await t.standin.idle();
    expect(titleRequests(t.mock)).toHaveLength(1);
  });

  it("never replaces a rename made while it was on its way", async () => {
    const content = "Durable rename [[title-held]] [[title:Model's idea]]";
    const { response, threadId } = await turn({ message: msg(content) });
    expect(response.status).toBe(200);
    await vi.waitFor(() => expect(titleRequests(t.mock)).toHaveLength(1), { timeout: 10_000, interval: 20 });
    const renamed = await thread.PATCH(request(`/api/threads/${threadId}`, { method: "PATCH", cookie: t.me.cookie, json: { title: "Kept name" } }), params(threadId!));
    expect(renamed.status).toBe(200);
    t.mock.releaseTitles();
    await t.standin.idle();
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: "Kept name", title_source: "user" });
  });

  it("a failing title call fails neither the step nor the turn, and the first words stay", async () => {
    const content = "Durable failure [[title-error]]";
    const threadId = await answeredUntitled(content);
    await t.standin.idle();
    // One call: the step caught the error, so the durable run did not retry it.
    expect(titleRequests(t.mock)).toHaveLength(1);
    expect(t.standin.runs.filter((run) => run.status === "failed")).toEqual([]);
    expect(await storedTitle(t.pool, threadId!)).toEqual({ title: titleFromMessage(content), title_source: "message" });
  });
});
