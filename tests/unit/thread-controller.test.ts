import { afterEach, describe, expect, it, vi } from "vitest";
import type { HistoryMessage, MessageVersions } from "@/lib/protocol/threads";
import { ThreadController, type ThreadControllerOptions, type ThreadSnapshot } from "@/lib/client/thread-controller";

// The chat page's thread without React: the controller against a fake server
// (the page's fetch, routed by method and path), as a page would use it.

const encoder = new TextEncoder();
const sse = (...chunks: object[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");

/** A reply's stream as the chat route sends it: the thread named, the text, the signatures of what it stored. */
function replyStream(threadId: string, replyId: string, text: string, signed: { id: string; seq: number }[] = []) {
  return sse(
    { type: "data-thread", data: { threadId, historySource: "client" }, transient: true },
    { type: "start", messageId: replyId },
    { type: "start-step" },
    { type: "text-start", id: "0" },
    { type: "text-delta", id: "0", delta: text },
    { type: "text-end", id: "0" },
    { type: "finish-step" },
    ...(signed.length > 0 ? [{ type: "data-signatures", data: { signatures: signed.map((s) => ({ ...s, signature: `sig-${s.id}`, parentId: null })) }, transient: true }] : []),
    { type: "finish", finishReason: "stop" },
  );
}

const stored = (id: string, role: HistoryMessage["role"], seq: number, text = id): HistoryMessage => ({
  id,
  role,
  seq,
  createdAt: "2026-11-26T10:00:00.000Z",
  status: "complete",
  parts: [{ type: "text", text }],
  signature: `sig-${id}`,
});

type Handler = (request: { body: unknown; headers: Headers }) => Response | Promise<Response>;

/** The server the page talks to: a handler per "METHOD /path"; every request is kept. */
function fakeServer(routes: Record<string, Handler>) {
  const requests: { route: string; body: unknown }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
    init.signal?.throwIfAborted();
    const route = `${init.method ?? "GET"} ${new URL(url, "http://page").pathname}`;
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    requests.push({ route, body });
    const handler = routes[route];
    if (!handler) return Response.json({ error: { code: "not_found:route", message: `no ${route}` } }, { status: 404 });
    return handler({ body, headers: new Headers(init.headers) });
  });
  return { requests, sent: (route: string) => requests.filter((r) => r.route === route) };
}

const streamed = (text: string) => () => new Response(encoder.encode(text), { headers: { "content-type": "text/event-stream" } });
const json = (value: unknown) => () => Response.json(value);

function controller(options: Partial<ThreadControllerOptions> = {}) {
  const news = new Map<string, () => void>();
  const shown: string[] = [];
  const visited: string[] = [];
  const refresh = vi.fn(async () => {});
  const thread = new ThreadController({
    threadId: null,
    initialHistory: [],
    threadList: {
      refresh,
      onThreadNews: (threadId, listener) => {
        news.set(threadId, listener);
        return () => news.delete(threadId);
      },
    },
    page: { search: () => "", showThread: (id) => shown.push(id), navigate: (path) => visited.push(path) },
    ...options,
  });
  const detach = thread.attach();
  /** Resolves with the first snapshot that passes `test`. */
  const until = (test: (snapshot: ThreadSnapshot) => boolean) =>
    vi.waitFor(() => {
      const snapshot = thread.getSnapshot();
      if (!test(snapshot)) throw new Error("not yet");
      return snapshot;
    });
  return { thread, news, shown, visited, refresh, detach, until };
}

const texts = (snapshot: ThreadSnapshot) => snapshot.messages.map((m) => `${m.role}: ${m.parts.map((p) => ("text" in p ? p.text : "")).join("")}`);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the thread controller", () => {
  it("sends a message, streams its reply, and follows the thread the server names", async () => {
    const server = fakeServer({ "POST /api/chat": streamed(replyStream("t1", "a1", "Hello there")) });
    const { thread, news, shown, refresh, until } = controller();
    const snapshots: ThreadSnapshot[] = [];
    thread.subscribe(() => snapshots.push(thread.getSnapshot()));

    thread.send("Hi");
    const done = await until((s) => s.phase === "idle" && s.messages.length === 2);

    expect(texts(done)).toEqual(["user: Hi", "assistant: Hello there"]);
    expect(done.threadId).toBe("t1");
    expect(server.sent("POST /api/chat")[0].body).toMatchObject({ message: { content: "Hi" }, source: "web" });
    expect(snapshots.some((s) => s.phase === "submitted")).toBe(true);
    expect(shown).toEqual(["t1"]);
    expect(refresh).toHaveBeenCalled();
    // News of the thread is followed once it has a name.
    expect(news.has("t1")).toBe(true);
  });

  it("regenerates a reply as a new version, and reads the versions again when it ends", async () => {
    const versions: MessageVersions[] = [{ messageId: "a2", versions: ["a1", "a2"], position: 2 }];
    const server = fakeServer({
      "POST /api/chat": streamed(replyStream("t1", "a2", "Another answer")),
      "GET /api/threads/t1/versions": json({ versions }),
    });
    const { thread, until } = controller({ threadId: "t1", initialHistory: [stored("u1", "user", 1), stored("a1", "assistant", 2)] });

    thread.regenerate("a1");
    const done = await until((s) => s.phase === "idle" && s.versions.size === 1);

    expect(texts(done)).toEqual(["user: u1", "assistant: Another answer"]);
    expect(server.sent("POST /api/chat")[0].body).toMatchObject({ threadId: "t1", replaces: "a1" });
    expect(done.versions.get("a2")?.position).toBe(2);
  });

  it("edits a message: the thread goes on from the messages before it, the old words a version on the server", async () => {
    const server = fakeServer({
      "POST /api/chat": streamed(replyStream("t1", "a3", "About cats")),
      "GET /api/threads/t1/versions": json({ versions: [] }),
    });
    const history = [stored("u1", "user", 1), stored("a1", "assistant", 2), stored("u2", "user", 3, "dogs?"), stored("a2", "assistant", 4)];
    const { thread, until } = controller({ threadId: "t1", initialHistory: history });

    thread.edit("u2", "cats?");
    const done = await until((s) => s.phase === "idle" && s.messages.at(-1)?.id === "a3");

    expect(texts(done)).toEqual(["user: u1", "assistant: a1", "user: cats?", "assistant: About cats"]);
    expect(server.sent("POST /api/chat")[0].body).toMatchObject({ replaces: "u2", message: { content: "cats?" } });
  });

  it("switches to another version: the thread drawn along the new path, the focus kept on the button pressed", async () => {
    const versions: MessageVersions[] = [{ messageId: "a1", versions: ["a1", "a2"], position: 1 }];
    fakeServer({
      "POST /api/threads/t1/versions": json({ messages: [stored("u1", "user", 1), stored("a1", "assistant", 2, "first answer")], nextCursor: null, versions }),
    });
    const { thread, until } = controller({
      threadId: "t1",
      initialHistory: [stored("u1", "user", 1), stored("a2", "assistant", 3, "second answer")],
      versions: [{ messageId: "a2", versions: ["a1", "a2"], position: 2 }],
    });

    await thread.switchVersion("a1", "previous");
    const done = await until((s) => !s.switching);

    expect(texts(done)).toEqual(["user: u1", "assistant: first answer"]);
    expect(done.versions.get("a1")?.position).toBe(1);
    expect(done.versionFocus).toEqual({ messageId: "a1", control: "previous" });
    thread.versionFocused();
    expect(thread.getSnapshot().versionFocus).toBeNull();
  });

  it("resumes the reply being written when the page was rendered", async () => {
    const server = fakeServer({ "GET /api/threads/t1/stream": streamed(replyStream("t1", "a1", "Still writing")) });
    const { until } = controller({ threadId: "t1", initialHistory: [stored("u1", "user", 1)], pendingTurn: { messageId: "u1", state: "running" } });

    const done = await until((s) => s.phase === "idle" && s.messages.length === 2);

    expect(texts(done)).toEqual(["user: u1", "assistant: Still writing"]);
    expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(1);
  });

  it("follows a turn another tab started: on the thread's news it draws the thread as the server holds it, then the reply", async () => {
    const server = fakeServer({
      "GET /api/threads/t1/messages": json({ messages: [stored("u1", "user", 1), stored("a1", "assistant", 2), stored("u2", "user", 3, "from the other tab")], nextCursor: null }),
      "GET /api/threads/t1/versions": json({ versions: [] }),
      "GET /api/threads/t1/stream": streamed(replyStream("t1", "a2", "Answered there")),
    });
    const { news, until } = controller({ threadId: "t1", initialHistory: [stored("u1", "user", 1), stored("a1", "assistant", 2)] });

    news.get("t1")!();
    const done = await until((s) => s.phase === "idle" && s.messages.length === 4);

    expect(texts(done)).toEqual(["user: u1", "assistant: a1", "user: from the other tab", "assistant: Answered there"]);
    expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(1);
  });

  it("draws the thread again as the server holds it when a new version is refused, the error still shown", async () => {
    const history = [stored("u1", "user", 1), stored("a1", "assistant", 2)];
    fakeServer({
      "POST /api/chat": () => Response.json({ error: { code: "conflict:turn_running", message: "A reply is already being written." } }, { status: 409 }),
      "GET /api/threads/t1/messages": json({ messages: history, nextCursor: null }),
      "GET /api/threads/t1/versions": json({ versions: [] }),
    });
    const { thread, until } = controller({ threadId: "t1", initialHistory: history });

    thread.regenerate("a1");
    const done = await until((s) => s.phase === "idle" && s.messages.length === 2 && s.errorMessage !== null);

    // The page had taken the reply out to make way for the new one; the server kept it.
    expect(texts(done)).toEqual(["user: u1", "assistant: a1"]);
    expect(done.errorMessage).toContain("already being written");
  });

  it("stops following the thread's news when the page no longer shows it", () => {
    fakeServer({});
    const { news, detach } = controller({ threadId: "t1", initialHistory: [stored("u1", "user", 1), stored("a1", "assistant", 2)] });
    expect(news.has("t1")).toBe(true);
    detach();
    expect(news.has("t1")).toBe(false);
  });
});
