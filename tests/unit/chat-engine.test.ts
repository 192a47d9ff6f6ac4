import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/protocol/chat";
import { ChatEngine, readChunks, type ChatStatus, type ReplyFinish } from "@/lib/client/chat-engine";

const encoder = new TextEncoder();
const sse = (...chunks: object[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");
const REPLY = sse(
  { type: "data-thread", data: { threadId: "t1", historySource: "new" }, transient: true },
  { type: "start", messageId: "reply-1" },
  { type: "start-step" },
  { type: "text-start", id: "0" },
  { type: "text-delta", id: "0", delta: "Hello" },
  { type: "text-delta", id: "0", delta: " there" },
  { type: "text-end", id: "0" },
  { type: "finish-step" },
  { type: "finish", finishReason: "stop" },
);

/** A response whose body is the given pieces, then (unless `hang`) its end; `fail` errors the body after them. */
function response(pieces: string[], { status = 200, hang = false, fail }: { status?: number; hang?: boolean; fail?: Error } = {}): Response {
  if (status === 204) return new Response(null, { status });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      if (fail) controller.error(fail);
      else if (!hang) controller.close();
    },
  });
  return new Response(body, { status, headers: { "content-type": "text/event-stream" } });
}

function engine(answer: (url: string, init: RequestInit) => Response, messages: ChatMessage[] = []) {
  const statuses: ChatStatus[] = [];
  const finishes: ReplyFinish[] = [];
  const data: string[] = [];
  const requests: { url: string; method?: string; body: unknown }[] = [];
  let ids = 0;
  let nothingToResume = 0;
  const chat = new ChatEngine({
    messages,
    generateId: () => `id-${++ids}`,
    api: "/api/chat",
    requestBody: (all) => ({ last: all.at(-1)?.id, count: all.length }),
    resumeUrl: () => "/api/threads/t1/stream",
    onNothingToResume: () => nothingToResume++,
    onData: (part) => data.push(part.type),
    onFinish: (finish) => finishes.push(finish),
    fetch: async (url, init = {}) => {
      // An aborted request's fetch rejects as the browser's does.
      init.signal?.throwIfAborted();
      requests.push({ url: String(url), method: init.method, body: init.body ? JSON.parse(String(init.body)) : undefined });
      return answer(String(url), init);
    },
  });
  let last = chat.status;
  chat.subscribe(() => {
    if (chat.status !== last) statuses.push((last = chat.status));
  });
  return { chat, statuses, finishes, data, requests, nothingToResume: () => nothingToResume };
}

const text = (m: ChatMessage | undefined) => m?.parts.map((p) => (p.type === "text" ? p.text : "")).join("");

describe("the chat page's engine", () => {
  it("sends a message, streams the reply into the thread and ends ready", async () => {
    const { chat, statuses, finishes, data, requests } = engine(() => response([REPLY]));
    await chat.sendMessage({ text: "hi", metadata: { createdAt: "2026-11-24T00:00:00.000Z" } });
    expect(requests).toEqual([{ url: "/api/chat", method: "POST", body: { last: "id-1", count: 1 } }]);
    expect(statuses).toEqual(["submitted", "streaming", "ready"]);
    expect(chat.messages.map((m) => [m.id, m.role])).toEqual([
      ["id-1", "user"],
      ["reply-1", "assistant"],
    ]);
    expect(text(chat.messages[1])).toBe("Hello there");
    expect(data).toEqual(["data-thread"]);
    expect(finishes).toHaveLength(1);
    expect(finishes[0]).toMatchObject({ isAbort: false, isError: false, isDisconnect: false, finishReason: "stop" });
    expect(finishes[0].message.id).toBe("reply-1");
  });

  it("reports a refused message with the server's answer as the error", async () => {
    const refusal = JSON.stringify({ error: { code: "conflict", message: "A reply is already being written." } });
    const { chat, statuses, finishes } = engine(() => new Response(refusal, { status: 409 }));
    await chat.sendMessage({ text: "hi" });
    expect(statuses).toEqual(["submitted", "error"]);
    expect(chat.error?.message).toBe(refusal);
    expect(finishes[0]).toMatchObject({ isError: true, isAbort: false, isDisconnect: false });
    chat.clearError();
    expect(chat.status).toBe("ready");
    expect(chat.error).toBeUndefined();
  });

  it("ends with the stream's error text, keeping what the reply said before it", async () => {
    const broken = REPLY.split("data: {\"type\":\"text-delta\",\"id\":\"0\",\"delta\":\" there\"}")[0];
    const { chat, finishes } = engine(() => response([broken + sse({ type: "error", errorText: "The model's answer broke off." })]));
    await chat.sendMessage({ text: "hi" });
    expect(chat.status).toBe("error");
    expect(chat.error?.message).toBe("The model's answer broke off.");
    expect(text(chat.messages[1])).toBe("Hello");
    expect(finishes[0]).toMatchObject({ isError: true, finishReason: undefined });
  });

  it("says the connection broke when the body fails as a network error", async () => {
    const { chat, finishes } = engine(() => response([REPLY.slice(0, 200)], { fail: new TypeError("network error") }));
    await chat.sendMessage({ text: "hi" });
    expect(finishes[0]).toMatchObject({ isError: true, isDisconnect: true });
  });

  it("stops: the request is cut, what came stays, and the reply ends as aborted", async () => {
    const firstWords = REPLY.split("data: {\"type\":\"text-delta\",\"id\":\"0\",\"delta\":\" there\"}")[0];
    let signal: AbortSignal | undefined;
    const { chat, finishes, statuses } = engine((_, init) => {
      signal = init.signal ?? undefined;
      const res = response([firstWords], { hang: true });
      // As a browser's fetch does: an aborted request's body errors.
      const reader = res.body!.getReader();
      const body = new ReadableStream<Uint8Array>({
        pull: async (controller) => {
          const next = await Promise.race([
            reader.read(),
            new Promise<never>((_, reject) => signal!.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))),
          ]);
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      });
      return new Response(body);
    });
    const sending = chat.sendMessage({ text: "hi" });
    while (text(chat.messages[1]) !== "Hello") await new Promise((r) => setTimeout(r, 5));
    await chat.stop();
    await sending;
    expect(signal?.aborted).toBe(true);
    expect(statuses).toEqual(["submitted", "streaming", "ready"]);
    expect(text(chat.messages[1])).toBe("Hello");
    expect(finishes[0]).toMatchObject({ isAbort: true, isError: false });
  });

  it("resumes a running reply from the resume URL, and says when there is none", async () => {
    const user: ChatMessage = { id: "u", role: "user", parts: [{ type: "text", text: "hi" }] };
    const running = engine(() => response([REPLY]), [user]);
    await running.chat.resumeStream();
    expect(running.requests).toEqual([{ url: "/api/threads/t1/stream", method: "GET", body: undefined }]);
    expect(running.chat.messages.map((m) => m.id)).toEqual(["u", "reply-1"]);
    expect(running.finishes).toHaveLength(1);

    const ended = engine(() => response([], { status: 204 }), [user]);
    await ended.chat.resumeStream();
    expect(ended.nothingToResume()).toBe(1);
    expect(ended.finishes).toEqual([]);
    expect(ended.chat.status).toBe("ready");
    expect(ended.chat.messages).toEqual([user]);
  });

  it("regenerates a reply from the thread before it, and asks again for an unanswered message", async () => {
    const thread: ChatMessage[] = [
      { id: "u1", role: "user", parts: [{ type: "text", text: "one" }] },
      { id: "a1", role: "assistant", parts: [{ type: "text", text: "first answer" }] },
    ];
    const { chat, requests } = engine(() => response([REPLY]), thread);
    await chat.regenerate({ messageId: "a1" });
    expect(requests[0].body).toEqual({ last: "u1", count: 1 });
    expect(chat.messages.map((m) => m.id)).toEqual(["u1", "reply-1"]);

    const unanswered = engine(() => response([REPLY]), [thread[0]]);
    await unanswered.chat.regenerate();
    expect(unanswered.requests[0].body).toEqual({ last: "u1", count: 1 });
    expect(unanswered.chat.messages.map((m) => m.id)).toEqual(["u1", "reply-1"]);
  });

  it("reads the stream however the network splits it, multi-byte characters included", async () => {
    const bytes = encoder.encode('data: {"type":"start","messageId":"m"}\n\ndata: {"type":"text-delta","id":"t","delta":"héllo 👋"}\n\ndata: [DONE]\n\n');
    const at = (s: string) => Buffer.from(bytes).indexOf(Buffer.from(s));
    // Split inside "data:", between the two newlines that end an event, inside the é, inside the emoji, before the last newline.
    const cuts = [3, at("\n\n") + 1, at("é") + 1, at("👋") + 2, bytes.length - 1];
    const pieces = [0, ...cuts].map((from, i) => bytes.slice(from, cuts[i] ?? bytes.length));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
    const chunks: unknown[] = [];
    await readChunks(body, new AbortController().signal, (chunk) => chunks.push(chunk));
    expect(chunks).toEqual([
      { type: "start", messageId: "m" },
      { type: "text-delta", id: "t", delta: "héllo 👋" },
    ]);
  });

  it("ends the reply with an error on an event that is not a chunk", async () => {
    for (const bad of ["data: {not json\n\n", 'data: {"delta":"no type"}\n\n', "data: 42\n\n"]) {
      const { chat } = engine(() => response([sse({ type: "start", messageId: "m" }), bad]));
      await chat.sendMessage({ text: "hi" });
      expect(chat.error?.message).toBe("The reply's stream could not be read.");
    }
  });
});
