import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { signMessage } from "@/lib/auth/history-signature";
import { userMessage } from "@threadline/history/parts";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { params, parseChunks, replyParts, replyText, request, SESSION_SECRET, signaturesIn, stopFourWordsIn, visitor } from "../support/api";
import { sentWhileRunning } from "../support/waiting-message";
import { integrationApp } from "../support/integration";

// POST /api/chat with the Inngest runtime selected, end to end on loopback:
// the route subscribes over a websocket and sends the event to the stand-in,
// whose executor runs the function through the real serve handler; the
// function publishes over HTTP and the route turns that back into SSE.
const t = integrationApp({ runtime: "inngest", inngest: { betweenSteps: async () => betweenSteps?.() } });
let chat: typeof import("@/app/api/chat/route");
let history: typeof import("@/app/api/threads/[id]/history/route");
let health: typeof import("@/app/api/health/route");
let stop: typeof import("@/app/api/threads/[id]/stop/route");
/** Runs between two of a run's steps (before a checkpoint is answered, or the next request reaches the app). */
let betweenSteps: (() => Promise<void>) | undefined;

beforeAll(async () => {
  chat = await import("@/app/api/chat/route");
  history = await import("@/app/api/threads/[id]/history/route");
  health = await import("@/app/api/health/route");
  stop = await import("@/app/api/threads/[id]/stop/route");
});

const msg = (content: string) => ({ id: randomUUID(), content });
const send = (body: unknown, cookie = t.me.cookie) => chat.POST(request("/api/chat", { method: "POST", cookie, json: body }), undefined);

async function turn(body: Record<string, unknown>, cookie = t.me.cookie) {
  const response = await send(body, cookie);
  const chunks = response.ok ? parseChunks(await response.text()) : [];
  return { response, chunks, text: replyText(chunks) };
}

async function storedKinds(threadId: string) {
  const { rows } = await t.pool.query("SELECT kind FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
  return rows.map((r) => r.kind);
}

describe("POST /api/chat on the Inngest runtime", () => {
  it("health reports the Inngest runtime", async () => {
    expect(await (await health.GET()).json()).toMatchObject({ runtime: "inngest", database: "ok" });
  });

  it("streams a durable turn and the follow-ups, with the same headers as inline", async () => {
    const first = msg("durable one");
    const a = await turn({ message: first, source: "web", sourceId: "tab-1", sourceMetadata: { via: "page" } });
    expect(a.response.status).toBe(200);
    expect(a.response.headers.get("x-history-source")).toBe("new");
    const threadId = a.response.headers.get("x-thread-id")!;
    // Where the thread came from travels in the event to the durable run that makes it.
    const { rows: made } = await t.pool.query("SELECT source, source_id, source_metadata FROM threads WHERE id = $1", [threadId]);
    expect(made).toEqual([{ source: "web", source_id: "tab-1", source_metadata: { via: "page" } }]);
    expect(a.text).toBe(echoReply("durable one", 1, 0));
    expect(a.chunks[0]).toMatchObject({ type: "data-thread", data: { threadId } });
    expect(a.chunks.filter((c) => c.type === "start")).toHaveLength(1);
    expect(a.chunks.at(-1)).toMatchObject({ type: "finish" });

    const start = a.chunks.find((c) => c.type === "start") as { messageId: string };
    const signed = signaturesIn(a.chunks);
    const b = await turn({
      threadId,
      message: msg("durable two"),
      history: [
        { id: first.id, role: "user", content: "durable one", ...signed.get(first.id) },
        { id: start.messageId, role: "assistant", parts: await replyParts(a.chunks), ...signed.get(start.messageId) },
      ],
    });
    expect(b.response.headers.get("x-history-source")).toBe("client");
    expect(b.text).toBe(echoReply("durable two", 2, 1));

    const c = await turn({ threadId, message: msg("durable three") });
    expect(c.response.headers.get("x-history-source")).toBe("database");
    expect(c.text).toBe(echoReply("durable three", 3, 2));
    await t.standin.idle();
    expect(await storedKinds(threadId)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);

    const listed = await (await history.GET(request(`/api/threads/${threadId}/history`, { cookie: t.me.cookie }), params(threadId))).json();
    expect(listed.messages).toHaveLength(6);
    await expect.poll(() => t.standin.connections().length).toBe(0);
  });

  it("reads the database when the client's copy is too large to travel in an Inngest event", async () => {
    const first = msg("big thread");
    const a = await turn({ message: first });
    const threadId = a.response.headers.get("x-thread-id")!;
    const replyId = (a.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    // A signed copy in the thread's places (made with the app's secret, as the server would) too big for an event.
    const padding = [
      { ...userMessage(first.id, "x".repeat(120_000)), seq: 1 },
      { id: replyId, role: "assistant" as const, parts: [{ type: "text" as const, text: "y".repeat(120_000) }], seq: 2 },
    ];
    const history = padding.map((m) => ({ ...m, signature: signMessage(SESSION_SECRET, t.me.id, threadId, m) }));
    const b = await turn({ threadId, message: msg("after the padding"), history });
    expect(b.response.headers.get("x-history-source")).toBe("database");
    expect(b.text).toBe(echoReply("after the padding", 2, 1));
  });

  it("answers another identity's thread with 404 before streaming, and writes nothing", async () => {
    const a = await turn({ message: msg("private") });
    const threadId = a.response.headers.get("x-thread-id")!;
    await t.standin.idle();
    const other = await visitor();
    const hijack = await send({ threadId, message: msg("let me in") }, other.cookie);
    expect(hijack.status).toBe(404);
    expect(await hijack.json()).toEqual({ error: { code: "not_found:thread", message: "Thread not found." } });
    await t.standin.idle();
    expect(await storedKinds(threadId)).toEqual(["user", "assistant"]);
    await expect.poll(() => t.standin.connections().length).toBe(0);
  });

  it("one first message sent three times at once, and once more later, is one thread, one message and one model call", async () => {
    const message = msg("durable double send");
    const all = await Promise.all([turn({ message }), turn({ message }), turn({ message })]);
    const threadIds = new Set(all.map((r) => r.response.headers.get("x-thread-id")));
    expect(threadIds.size).toBe(1);
    // The runs queue on the thread the message names; the later ones answer with what the first stored.
    expect(new Set(all.map((r) => r.text))).toEqual(new Set([echoReply("durable double send", 1, 0)]));
    const later = await turn({ message });
    expect(later.text).toBe(all[0].text);
    await t.standin.idle();
    expect(await storedKinds([...threadIds][0]!)).toEqual(["user", "assistant"]);
    expect(t.mock.requests).toHaveLength(1);
  });

  it("answers a second message sent while a reply runs at once, with a notice that it waits, then streams its own reply", async () => {
    const second = msg("a second question meanwhile");
    const first = await send({ message: msg("[[slow]] the first question") });
    const { threadId, firstChunks, nextChunks: queuedChunks } = await sentWhileRunning(first, (threadId) => send({ threadId, message: second }));
    expect(firstChunks.at(-1)).toMatchObject({ type: "finish" });
    expect(queuedChunks).toContainEqual({ type: "data-thread", data: { threadId, historySource: "database" }, transient: true });
    expect(replyText(queuedChunks)).toBe(echoReply(second.content, 2, 1));
    expect(queuedChunks.at(-1)).toMatchObject({ type: "finish" });
    expect(await storedKinds(threadId)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("tells the client to drop a retried step's partial text, and stores one reply", async () => {
    const { response, chunks, text } = await turn({ message: msg("[[flaky-mid]] durable retry") });
    expect(response.status).toBe(200);
    const retry = chunks.findIndex((c) => c.type === "data-retry");
    expect(retry).toBeGreaterThan(0);
    expect(chunks[retry]).toMatchObject({ data: { step: "model:0:Triage:0", attempt: 1 } });
    const afterRetry = replyText(chunks.slice(retry));
    expect(afterRetry).toBe(echoReply("[[flaky-mid]] durable retry", 1, 0));
    expect(text.length).toBeGreaterThan(afterRetry.length); // the failed try's words came first
    await t.standin.idle();
    expect(await storedKinds(response.headers.get("x-thread-id")!)).toEqual(["user", "assistant"]);
  });

  it("ends the stream with an error once the model step has failed on every attempt", async () => {
    const { response, chunks } = await turn({ message: msg("[[error]] durable failure") });
    expect(response.status).toBe(200);
    expect(chunks.at(-1)).toMatchObject({ type: "error" });
    expect((chunks.at(-1) as { errorText: string }).errorText).toBe("The model provider had a problem answering. Please try again.");
    await t.standin.idle();
    expect(await storedKinds(response.headers.get("x-thread-id")!)).toEqual(["user"]);
    expect(t.mock.requests).toHaveLength(4); // one call per attempt: the SDK itself does not retry under Inngest
  });

  it("Stop ends the durable model step and keeps what was written", async () => {
    const response = await send({ message: msg("[[slow]] stop me durably") });
    const { threadId, stopped, chunks } = await stopFourWordsIn(response, stop, t.me.cookie);
    expect(await stopped.json()).toEqual({ stopped: true });
    expect(chunks).toContainEqual({ type: "data-status", data: { status: "stopped" }, transient: true });
    await t.standin.idle();
    const { rows } = await t.pool.query("SELECT kind, status, content FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
    expect(rows.map((r) => [r.kind, r.status])).toEqual([["user", "complete"], ["assistant", "stopped"]]);
    expect(rows[1].content).toBe(replyText(chunks));
    // Nothing is left to stop once the step has ended.
    const again = await stop.POST(request(`/api/threads/${threadId}/stop`, { method: "POST", cookie: t.me.cookie }), params(threadId));
    expect(await again.json()).toEqual({ stopped: false });
  });

  it("a Stop recorded between two steps, when no process runs the turn, ends it before the model is asked", async () => {
    const message = msg("stopped while queued");
    let stoppedAt: string | undefined;
    betweenSteps = async () => {
      if (stoppedAt) return;
      // Recorded straight in the database once the turn is open: its NOTIFY finds no step running anywhere.
      const { rows } = await t.pool.query("SELECT thread_id FROM turns WHERE owner = $1 AND message_id = $2 AND status = 'running'", [t.me.id, message.id]);
      if (rows.length === 0) return;
      stoppedAt = rows[0].thread_id;
      await t.pool.query("SELECT threadline_request_stop($1, $2)", [stoppedAt, t.me.id]);
    };
    try {
      const { response, chunks } = await turn({ message });
      expect(response.status).toBe(200);
      expect(stoppedAt).toBe(response.headers.get("x-thread-id"));
      expect(chunks).toContainEqual({ type: "data-status", data: { status: "stopped" }, transient: true });
      await t.standin.idle();
      expect(t.mock.requests).toHaveLength(0);
      const { rows } = await t.pool.query("SELECT status FROM turns WHERE owner = $1 AND message_id = $2", [t.me.id, message.id]);
      expect(rows[0].status).not.toBe("running");
    } finally {
      betweenSteps = undefined;
    }
  });

  it("closes the realtime subscription when the client goes away, while the run finishes", async () => {
    const response = await send({ message: msg("[[slow]] leave early") });
    const threadId = response.headers.get("x-thread-id")!;
    const reader = response.body!.getReader();
    await reader.read();
    expect(t.standin.connections().length).toBe(1);
    await reader.cancel();
    await expect.poll(() => t.standin.connections().length, { timeout: 5_000 }).toBe(0);
    await t.standin.idle();
    expect(await storedKinds(threadId)).toEqual(["user", "assistant"]);
  });

  it("regenerates and edits as durable turns: each version kept, a stale one refused", async () => {
    const question = msg("durable versions [[nth]]");
    const a = await turn({ message: question });
    const threadId = a.response.headers.get("x-thread-id")!;
    const firstReply = (a.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    expect(a.text).toBe(`${echoReply(question.content, 1, 0)} (answer 1)`);

    const again = await turn({ threadId, message: question, replaces: firstReply });
    expect(again.response.status).toBe(200);
    expect(again.text).toBe(`${echoReply(question.content, 1, 0)} (answer 2)`);
    const edited = msg("durable versions, edited [[nth]]");
    const edit = await turn({ threadId, message: edited, replaces: question.id });
    expect(edit.text).toBe(`${echoReply(edited.content, 1, 0)} (answer 1)`);

    const stale = await turn({ threadId, message: question, replaces: firstReply });
    expect(stale.response.status).toBe(409);
    await t.standin.idle();
    const { rows } = await t.pool.query<{ message_id: string; parent_message_id: string | null; active: boolean }>(
      "SELECT message_id, parent_message_id, active FROM messages WHERE thread_id = $1 AND part_index = 0 ORDER BY seq",
      [threadId],
    );
    const editReply = (edit.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    const againReply = (again.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    expect(rows).toEqual([
      { message_id: question.id, parent_message_id: null, active: false },
      { message_id: firstReply, parent_message_id: question.id, active: false },
      { message_id: againReply, parent_message_id: question.id, active: false },
      { message_id: edited.id, parent_message_id: null, active: true },
      { message_id: editReply, parent_message_id: edited.id, active: true },
    ]);
  });
});
