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

  it("sends with the thread's model while it is on offer, and with the one chosen since", async () => {
    let replies = 0;
    const server = fakeServer({ "POST /api/chat": () => streamed(replyStream("t1", `a${++replies}`, "Hello there"))() });
    const models = [
      { id: "p:a", label: "A", default: true, capabilities: { images: true } },
      { id: "p:b", label: "B", default: false, capabilities: { images: false } },
    ] as unknown as ThreadControllerOptions["models"];
    const { thread, until } = controller({ threadId: "t1", models, threadModel: "p:b" });
    expect(thread.getSnapshot().model).toEqual({ id: "p:b" });
    thread.send("Hi");
    await until((s) => s.phase === "idle" && s.messages.length === 2);
    thread.chooseModel("p:a");
    expect(thread.getSnapshot().model).toEqual({ id: "p:a" });
    thread.send("Again");
    await until((s) => s.phase === "idle" && s.messages.length === 4);
    expect(server.sent("POST /api/chat").map((r) => (r.body as { model?: string }).model)).toEqual(["p:b", "p:a"]);
  });

  it("says so when the thread's model is no longer on offer, and sends with the default", () => {
    const models = [{ id: "p:a", label: "A", default: true, capabilities: { images: true } }] as unknown as ThreadControllerOptions["models"];
    const { thread } = controller({ threadId: "t1", models, threadModel: "p:gone" });
    expect(thread.getSnapshot().model).toEqual({ id: "p:a", notice: "p:gone is no longer offered here: replies now come from A." });
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

describe("a reply that waits for the user's decision on a tool call", () => {
  const APPROVAL = "3c9b1f0e-8d7a-4b6c-95e4-d3c2b1a0f9e8";
  const call = { type: "tool-call" as const, toolCallId: "c1", toolName: "calculate", input: { expression: "6 * 7" }, approval: { id: APPROVAL } };
  const waitingReply: HistoryMessage = { ...stored("a1", "assistant", 2), status: "waiting", parts: [call] };
  const history = [stored("u1", "user", 1), waitingReply];

  /** The continuation as GET /stream sends it: the same reply from its start, the decision, the result, the agent's words. */
  const continuation = (outcome: "approved" | "denied") =>
    sse(
      { type: "data-thread", data: { threadId: "t1", historySource: "database" }, transient: true },
      { type: "start", messageId: "a1" },
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "calculate", input: { expression: "6 * 7" }, dynamic: true },
      { type: "tool-approval-request", toolCallId: "c1", approvalId: APPROVAL },
      { type: "finish-step" },
      { type: "data-approval", data: { toolCallId: "c1", id: APPROVAL, outcome }, transient: true },
      outcome === "approved" ? { type: "tool-output-available", toolCallId: "c1", output: { result: "42" }, dynamic: true } : { type: "tool-output-denied", toolCallId: "c1" },
      { type: "start-step" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: outcome === "approved" ? "It is 42." : "As you wish." },
      { type: "text-end", id: "t" },
      { type: "finish-step" },
      { type: "data-signatures", data: { signatures: [{ id: "a1", signature: "sig-a1-done", seq: 2, parentId: "u1" }] }, transient: true },
      { type: "finish", finishReason: "stop" },
    );
  const toolState = (snapshot: ThreadSnapshot) => snapshot.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "dynamic-tool" ? [p.state] : [])));
  const ids = (snapshot: ThreadSnapshot) => snapshot.messages.map((m) => m.id);

  it("after an approval, the waiting reply makes way and its continuation streams in, never shown twice", async () => {
    const server = fakeServer({
      [`POST /api/threads/t1/approvals/${APPROVAL}`]: () => Response.json({ approvalId: APPROVAL, outcome: "approved" }, { status: 202 }),
      "GET /api/threads/t1/stream": streamed(continuation("approved")),
    });
    const { thread, until } = controller({ threadId: "t1", initialHistory: history });
    const snapshots: ThreadSnapshot[] = [];
    thread.subscribe(() => snapshots.push(thread.getSnapshot()));

    await thread.decide(APPROVAL, { approved: true, reason: "" });
    const done = await until((s) => s.phase === "idle" && s.messages.length === 2);

    expect(server.sent(`POST /api/threads/t1/approvals/${APPROVAL}`)[0].body).toMatchObject({ approved: true });
    expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(1);
    expect(texts(done)).toEqual(["user: u1", "assistant: It is 42."]);
    expect(toolState(done)).toEqual(["output-available"]);
    expect(done.messages[1].parts.find((p) => p.type === "dynamic-tool")).toMatchObject({ approval: { id: APPROVAL, approved: true } });
    // The waiting reply left before the stream came: at no moment two of it.
    expect(snapshots.every((s) => new Set(ids(s)).size === s.messages.length)).toBe(true);
    expect(snapshots.some((s) => s.messages.length === 1)).toBe(true);
  });

  it("after an approval whose news comes before its answer, follows the continuation once", async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const server = fakeServer({
      [`POST /api/threads/t1/approvals/${APPROVAL}`]: async () => {
        await answered;
        return Response.json({ approvalId: APPROVAL, outcome: "approved" }, { status: 202 });
      },
      "GET /api/threads/t1/messages": json({ messages: history, nextCursor: null }),
      "GET /api/threads/t1/stream": streamed(continuation("approved")),
    });
    const { thread, news, until } = controller({ threadId: "t1", initialHistory: history });

    const deciding = thread.decide(APPROVAL, { approved: true });
    // The server took the decision and told the owner's pages; its 202 is still on the way.
    news.get("t1")!();
    await vi.waitFor(() => expect(server.sent("GET /api/threads/t1/messages")).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    answer();
    await deciding;
    const done = await until((s) => s.phase === "idle" && texts(s).at(-1) === "assistant: It is 42.");

    expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(1);
    expect(done.messages[1].metadata?.stopped).toBeUndefined();
    expect(done.stoppedReplyIds.has("a1")).toBe(false);
  });

  it("after a denial, the call reads denied as a reload would show it", async () => {
    fakeServer({
      [`POST /api/threads/t1/approvals/${APPROVAL}`]: () => Response.json({ approvalId: APPROVAL, outcome: "denied" }, { status: 202 }),
      "GET /api/threads/t1/stream": streamed(continuation("denied")),
    });
    const { thread, until } = controller({ threadId: "t1", initialHistory: history });
    await thread.decide(APPROVAL, { approved: false });
    const done = await until((s) => s.phase === "idle" && texts(s).at(-1) === "assistant: As you wish.");
    expect(done.messages[1].parts.find((p) => p.type === "dynamic-tool")).toMatchObject({
      state: "output-denied",
      approval: { id: APPROVAL, approved: false },
      callProviderMetadata: { threadline: { outcome: "denied", error: "The user denied this." } },
    });
  });

  it("a decision made already elsewhere: rejects with the server's words and draws the thread as the server holds it", async () => {
    const goneOn: HistoryMessage = {
      ...waitingReply,
      status: "complete",
      parts: [call, { type: "tool-result", toolCallId: "c1", toolName: "calculate", output: { result: "42" }, approval: { id: APPROVAL, outcome: "approved" } }, { type: "text", text: "It is 42." }],
    };
    const server = fakeServer({
      [`POST /api/threads/t1/approvals/${APPROVAL}`]: () =>
        Response.json({ error: { code: "conflict:already_decided", message: "This was already decided: approved." } }, { status: 409 }),
      "GET /api/threads/t1/messages": json({ messages: [history[0], goneOn], nextCursor: null }),
      "GET /api/threads/t1/versions": json({ versions: [] }),
    });
    const { thread, until } = controller({ threadId: "t1", initialHistory: history });

    await expect(thread.decide(APPROVAL, { approved: false })).rejects.toMatchObject({ code: "conflict:already_decided", message: "This was already decided: approved." });
    const done = await until((s) => toolState(s)[0] === "output-available");
    expect(texts(done)).toEqual(["user: u1", "assistant: It is 42."]);
    // Said under the thread, where it outlasts the card that was redrawn.
    expect(done.actionError).toBe("This was already decided: approved.");
    expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(0);
  });

  it("a failed decision changes nothing on the page", async () => {
    fakeServer({
      [`POST /api/threads/t1/approvals/${APPROVAL}`]: () => Response.json({ error: { code: "internal:db", message: "The database is unavailable." } }, { status: 500 }),
    });
    const { thread } = controller({ threadId: "t1", initialHistory: history });
    await expect(thread.decide(APPROVAL, { approved: true })).rejects.toMatchObject({ message: "The database is unavailable." });
    expect(toolState(thread.getSnapshot())).toEqual(["approval-requested"]);
    expect(thread.getSnapshot().phase).toBe("idle");
  });

  it("on news, follows the reply another tab set going, rebuilding it in place", async () => {
    const server = fakeServer({
      "GET /api/threads/t1/messages": json({ messages: history, nextCursor: null }),
      "GET /api/threads/t1/stream": streamed(continuation("approved")),
    });
    const { news, until } = controller({ threadId: "t1", initialHistory: history });

    news.get("t1")!();
    const done = await until((s) => s.phase === "idle" && texts(s).at(-1) === "assistant: It is 42.");
    expect(ids(done)).toEqual(["u1", "a1"]);
    expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(1);
  });

  it("on news while the reply still waits and nothing runs, leaves the page as it is", async () => {
    const server = fakeServer({
      "GET /api/threads/t1/messages": json({ messages: history, nextCursor: null }),
      "GET /api/threads/t1/stream": () => new Response(null, { status: 204 }),
    });
    const { thread, news } = controller({ threadId: "t1", initialHistory: history });
    const before = thread.getSnapshot();

    news.get("t1")!();
    await vi.waitFor(() => expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));

    const after = thread.getSnapshot();
    expect(after.messages[1]).toBe(before.messages[1]);
    expect(after.sendCount).toBe(before.sendCount);
    expect(after.phase).toBe("idle");
    // Not drawn again: no second read of the thread.
    expect(server.sent("GET /api/threads/t1/messages")).toHaveLength(1);
  });

  it("on news that the reply went on elsewhere and ended, draws it as the server holds it", async () => {
    const goneOn: HistoryMessage = {
      ...waitingReply,
      status: "complete",
      parts: [call, { type: "tool-result", toolCallId: "c1", toolName: "calculate", error: "The user denied this.", approval: { id: APPROVAL, outcome: "denied" } }, { type: "text", text: "As you wish." }],
    };
    fakeServer({
      "GET /api/threads/t1/messages": json({ messages: [history[0], goneOn], nextCursor: null }),
      "GET /api/threads/t1/versions": json({ versions: [] }),
    });
    const { news, until } = controller({ threadId: "t1", initialHistory: history });
    news.get("t1")!();
    const done = await until((s) => toolState(s)[0] === "output-denied");
    expect(texts(done)).toEqual(["user: u1", "assistant: As you wish."]);
  });

  it("follows the continuation that was running when the page was rendered", async () => {
    const server = fakeServer({ "GET /api/threads/t1/stream": streamed(continuation("approved")) });
    const { until } = controller({ threadId: "t1", initialHistory: history, pendingTurn: { messageId: "u1", state: "running" } });
    const done = await until((s) => s.phase === "idle" && texts(s).at(-1) === "assistant: It is 42.");
    expect(ids(done)).toEqual(["u1", "a1"]);
    expect(server.sent("GET /api/threads/t1/stream")).toHaveLength(1);
  });
});

describe("memory on the thread's page", () => {
  const tea = { id: "m1", text: "Likes tea", source: { threadId: "t0", messageId: "u0" } };

  it("a reply given memories (data-memory, right after its start) lists them under it as it streams", async () => {
    const stream = replyStream("t1", "a1", "Tea it is").replace(
      `data: ${JSON.stringify({ type: "start", messageId: "a1" })}\n\n`,
      sse({ type: "start", messageId: "a1" }, { type: "data-memory", data: { memories: [tea] }, transient: true }),
    );
    fakeServer({ "POST /api/chat": streamed(stream) });
    const { thread, until } = controller();
    thread.send("What should I drink?");
    const done = await until((s) => s.phase === "idle" && s.messages.length === 2);
    expect(done.memoriesUsed.get("a1")).toEqual([{ id: "m1", state: "known", memory: tea }]);
    // The part is not the reply's own: it stays out of its parts.
    expect(done.messages[1].parts.some((p) => p.type === "data-memory")).toBe(false);
  });

  it("a stored reply's memoriesUsed are read once from GET /api/memory; one no longer there was deleted since", async () => {
    const server = fakeServer({
      "GET /api/memory": json({ memories: [{ ...tea, createdAt: "", updatedAt: "", lastUsedAt: null }], enabled: true }),
    });
    const history = [stored("u1", "user", 1), { ...stored("a1", "assistant", 2), memoriesUsed: ["m1", "gone"] }, { ...stored("a2", "assistant", 3), memoriesUsed: ["m1"] }];
    const { until } = controller({ threadId: "t1", initialHistory: history });
    const read = await until((s) => s.memoriesUsed.get("a1")?.every((m) => m.state !== "unread") === true);
    expect(read.memoriesUsed.get("a1")).toEqual([
      { id: "m1", state: "known", memory: tea },
      { id: "gone", state: "deleted" },
    ]);
    expect(read.memoriesUsed.get("a2")).toEqual([{ id: "m1", state: "known", memory: tea }]);
    expect(read.memoriesUsed.has("u1")).toBe(false);
    expect(server.sent("GET /api/memory")).toHaveLength(1);
  });

  it("a new chat made temporary says so with its first message only", async () => {
    let replies = 0;
    const server = fakeServer({ "POST /api/chat": () => streamed(replyStream("t1", `a${++replies}`, "Fine"))() });
    const { thread, until } = controller();
    expect(thread.getSnapshot().temporary).toBe(false);
    thread.setTemporary(true);
    expect(thread.getSnapshot().temporary).toBe(true);
    thread.send("Hi");
    await until((s) => s.phase === "idle" && s.messages.length === 2);
    // Once the thread is named it is what it is.
    thread.setTemporary(false);
    expect(thread.getSnapshot().temporary).toBe(true);
    thread.send("Again");
    await until((s) => s.phase === "idle" && s.messages.length === 4);
    const bodies = server.sent("POST /api/chat").map((r) => r.body as { temporary?: boolean });
    expect(bodies.map((b) => b.temporary)).toEqual([true, undefined]);
  });

  it("a thread the server says is temporary is shown as one", () => {
    fakeServer({});
    const { thread } = controller({ threadId: "t1", initialHistory: [stored("u1", "user", 1), stored("a1", "assistant", 2)], temporary: true });
    expect(thread.getSnapshot().temporary).toBe(true);
  });
});
