import { afterEach, describe, expect, it, vi } from "vitest";
import type { HistoryMessage } from "@/lib/protocol/threads";
import type { ChatMessage, DataPart } from "@/lib/client/messages";
import { ChatSession } from "@/lib/client/chat-session";
import { ReplyStop } from "@/lib/client/reply-stop";
import { withoutRetriedReply } from "@/lib/client/retried-parts";
import { initialThreadChatState, messageIdFromHash, retryOf, threadChatReducer, turnPhase, unansweredTurn, withOlderMessages, type ThreadChatEvent, type ThreadChatState } from "@/lib/client/thread-chat-state";
import { storedMessage } from "../support/stored-message";

const stored = (id: string, role: HistoryMessage["role"], seq: number, signature?: string) => storedMessage(id, role, seq, signature ? { signature } : {});
const text = (id: string, role: ChatMessage["role"], ...texts: string[]): ChatMessage => ({ id, role, parts: texts.map((t) => ({ type: "text", text: t })) });
const attempt = (t: string, step: string, n: number) => ({ type: "text" as const, text: t, providerMetadata: { threadline: { step, attempt: n } } });
const compacted = { id: "s1", seq: 3, signature: "sig-s1", createdAt: "2026-11-21T10:05:00.000Z", text: "summary", throughSeq: 2, summarizedMessages: 2 };

describe("the chat session (what the transport reads)", () => {
  const history = [stored("u1", "user", 1, "sig-u1"), stored("a1", "assistant", 2, "sig-a1")];
  const sending = (session: ChatSession) =>
    session.requestBody([...history.map((m) => text(m.id, m.role, m.id)), text("u2", "user", "next")], "", new Date("2026-11-21T11:00:00.000Z"));

  it("sends a thread rendered by the server by its id only: the database is the better copy", () => {
    expect(sending(new ChatSession("t", history))).toEqual({ threadId: "t", message: { id: "u2", content: "next" } });
  });

  it("sends its own copy, signed, once a turn of this page has ended cleanly, and not after one that was cut off", () => {
    const session = new ChatSession("t", history);
    session.replyEnded({ role: "assistant", isAbort: false, isError: false, isDisconnect: false });
    expect(sending(session).history?.map((m) => [m.id, m.signature, m.seq])).toEqual([
      ["u1", "sig-u1", 1],
      ["a1", "sig-a1", 2],
    ]);
    session.replyEnded({ role: "assistant", isAbort: true, isError: false, isDisconnect: false });
    expect(sending(session).history).toBeUndefined();
  });

  it("passes the page URL's history setting on", () => {
    const body = new ChatSession(null, []).requestBody([text("u1", "user", "hi")], "?historyPolicy=lastN&historyLength=2");
    // A first message: the thread it starts comes from the chat page.
    expect(body).toEqual({ message: { id: "u1", content: "hi" }, historyPolicy: "lastN", historyLength: "2", source: "web" });
  });

  it("learns the thread's name from the stream once, and reports only the first naming", () => {
    const session = new ChatSession(null, []);
    const named: DataPart = { type: "data-thread", data: { threadId: "t1", historySource: "new" } };
    expect(session.receive(named)).toBe("t1");
    expect(session.threadId).toBe("t1");
    expect(session.receive(named)).toBeNull();
    expect(new ChatSession("t1", []).receive(named)).toBeNull();
  });

  it("keeps the signatures the stream and a page of earlier messages bring, and where each message sits", () => {
    const session = new ChatSession("t", []);
    session.receive({ type: "data-signatures", data: { signatures: [{ id: "u9", signature: "sig-u9", seq: 9 }] } });
    session.remember([stored("u1", "user", 1, "sig-u1"), stored("a1", "assistant", 2)]);
    expect([session.seqOf("u9"), session.seqOf("u1"), session.seqOf("a1")]).toEqual([9, 1, undefined]);
  });

  it("says a reply was stopped when the server said so or the stream was cut here, and forgets it for the next reply", () => {
    const session = new ChatSession("t", []);
    const ended = { role: "assistant" as const, isAbort: false, isError: false, isDisconnect: false };
    session.receive({ type: "data-status", data: { status: "stopped" } });
    expect(session.replyEnded(ended).stopped).toBe(true);
    expect(session.replyEnded(ended).stopped).toBe(false);
    expect(session.replyEnded({ ...ended, isAbort: true }).stopped).toBe(true);
    expect(session.replyEnded({ ...ended, role: "user", isAbort: true }).stopped).toBe(false);
  });

  it("hands a summary written during the turn over once, when the reply ends, and knows where it sits", () => {
    const session = new ChatSession("t", []);
    session.receive({ type: "data-compacted", data: compacted });
    expect(session.seqOf("s1")).toBe(3);
    const ended = { role: "assistant" as const, isAbort: false, isError: false, isDisconnect: false };
    expect(session.replyEnded(ended).summary).toEqual(compacted);
    expect(session.replyEnded(ended).summary).toBeNull();
  });

  it("sends only the window the server read on the last turn (the message being sent counts as its last user message)", () => {
    const long = [1, 2, 3, 4].flatMap((n) => [stored(`u${n}`, "user", 2 * n - 1, `s-u${n}`), stored(`a${n}`, "assistant", 2 * n, `s-a${n}`)]);
    const session = new ChatSession("t", long);
    session.receive({
      type: "data-history",
      data: { policy: "lastN", length: 2, source: "URL", threadMessages: 8, sentMessages: 2, sentTokens: 10, window: 2 },
    });
    session.replyEnded({ role: "assistant", isAbort: false, isError: false, isDisconnect: false });
    const body = session.requestBody([...long.map((m) => text(m.id, m.role, m.id)), text("u5", "user", "next")], "");
    expect(body.history?.map((m) => m.id)).toEqual(["u4", "a4"]);
  });
});

describe("the failed attempts of a retried reply", () => {
  const notices = [{ step: "s", attempt: 1 }];
  const reply: ChatMessage = { id: "a2", role: "assistant", parts: [attempt("broken", "s", 0), attempt("whole", "s", 1)] };

  it("are hidden from the reply while it streams, as the thread's last message", () => {
    const thread = [text("u1", "user", "q"), reply];
    expect(withoutRetriedReply(thread, { notices, replyId: null }).at(-1)?.parts).toEqual([reply.parts[1]]);
  });

  it("leave an earlier reply alone when the new reply has not begun", () => {
    const thread = [reply, text("u3", "user", "q")];
    expect(withoutRetriedReply(thread, { notices, replyId: null })).toBe(thread);
  });

  it("are found by the reply's id once it has ended, wherever it sits", () => {
    const thread = [text("u1", "user", "q"), reply, text("s1", "system")];
    expect(withoutRetriedReply(thread, { notices, replyId: "a2" })).toEqual([thread[0], { ...reply, parts: [reply.parts[1]] }, thread[2]]);
  });

  it("change nothing when no step was retried", () => {
    const thread = [text("u1", "user", "q"), reply];
    expect(withoutRetriedReply(thread, { notices: [], replyId: null })).toBe(thread);
  });
});

describe("the chat page's state", () => {
  const start = initialThreadChatState({ olderCursor: "c1", interrupted: true });
  const run = (...events: ThreadChatEvent[]): ThreadChatState => events.reduce(threadChatReducer, start);
  const retry: DataPart = { type: "data-retry", data: { step: "s", attempt: 1 } };

  it("is busy only while a reply is submitted or streams", () => {
    expect((["submitted", "streaming", "ready", "error"] as const).map(turnPhase)).toEqual(["submitted", "streaming", "idle", "idle"]);
  });

  it("forgets an interrupted turn, a pending Stop and the last reply's retries when the user asks, and counts the ask", () => {
    const asked = run({ type: "data", part: retry }, { type: "stopping" }, { type: "asked" });
    expect([asked.interrupted, asked.stopping, asked.retried.notices, asked.sendCount]).toEqual([false, false, [], 1]);
  });

  it("shows what the turn does before its reply starts, until the history is read or the reply ends", () => {
    const notice: DataPart = { type: "data-notice", data: { text: "Summarizing earlier messages" } };
    expect(run({ type: "data", part: notice }).notice).toBe("Summarizing earlier messages");
    expect(run({ type: "data", part: notice }, { type: "reply-ended", replyId: "a1", stopped: false }).notice).toBeNull();
    const history: DataPart = {
      type: "data-history",
      data: { policy: "all", length: 0, source: "default", threadMessages: 2, sentMessages: 2, sentTokens: 9, window: null },
    };
    const read = run({ type: "data", part: notice }, { type: "data", part: history });
    expect([read.notice, read.history.report]).toEqual([null, history.data]);
  });

  it("collects a reply's retries, names the reply when it ends, and lets them go once the thread holds it without them", () => {
    const ended = run({ type: "data", part: retry }, { type: "data", part: { ...retry, data: { step: "s", attempt: 2 } } }, { type: "reply-ended", replyId: "a1", stopped: false });
    expect(ended.retried).toEqual({ notices: [retry.data, { step: "s", attempt: 2 }], replyId: "a1" });
    expect(threadChatReducer(ended, { type: "retries-settled" }).retried).toEqual({ notices: [], replyId: null });
    expect(run({ type: "reply-ended", replyId: "a1", stopped: false }).retried.replyId).toBeNull();
  });

  it("marks a stopped reply and ends the Stop in progress", () => {
    const stopped = run({ type: "stopping" }, { type: "reply-ended", replyId: "a1", stopped: true }, { type: "reply-ended", replyId: "a2", stopped: false });
    expect([[...stopped.stoppedReplyIds], stopped.stopping]).toEqual([["a1"], false]);
  });

  it("pages back through earlier messages, and keeps the cursor to try again after a failure", () => {
    expect(run({ type: "older-loading" }).older).toEqual({ cursor: "c1", loading: true, error: null });
    expect(run({ type: "older-loading" }, { type: "older-failed", error: "no" }).older).toEqual({ cursor: "c1", loading: false, error: "no" });
    expect(run({ type: "older-loading" }, { type: "older-loaded", cursor: null }).older).toEqual({ cursor: null, loading: false, error: null });
  });

  it("records the thread's history source for the debug panel", () => {
    expect(run({ type: "data", part: { type: "data-thread", data: { threadId: "t", historySource: "client" } } }).history.source).toBe("client");
  });
});

describe("the pieces of a thread page", () => {
  it("knows a turn left pending only for the page's last message, when it is the user's", () => {
    const history = [stored("u1", "user", 1)];
    expect(unansweredTurn(history, { messageId: "u1", state: "running" })).toBe("running");
    expect(unansweredTurn(history, { messageId: "u0", state: "interrupted" })).toBeNull();
    expect(unansweredTurn([...history, stored("a1", "assistant", 2)], { messageId: "u1", state: "interrupted" })).toBeNull();
    expect(unansweredTurn(history, null)).toBeNull();
  });

  it("puts a page of earlier messages first, without a second copy of one already shown", () => {
    const shown = [text("u2", "user", "u2")];
    expect(withOlderMessages(shown, [stored("u1", "user", 1), stored("u2", "user", 2)]).map((m) => m.id)).toEqual(["u1", "u2"]);
  });

  it("reads the message a link points at from the hash", () => {
    expect([messageIdFromHash("#message-a%201"), messageIdFromHash("#top"), messageIdFromHash("")]).toEqual(["a 1", null, null]);
  });

  it("retries an unanswered message by asking again, and a reply that broke off by sending its question anew", () => {
    expect(retryOf([text("u1", "user", "q")])).toEqual({ askAgain: true });
    expect(retryOf([text("u1", "user", "q"), text("a1", "assistant", "half")])).toEqual({ send: "q", files: [] });
    expect(retryOf([])).toBeNull();
  });
});

describe("Stop", () => {
  afterEach(() => vi.useRealTimers());

  it("asks the server to end the reply and cuts the stream only if it has not ended within the grace time", async () => {
    vi.useFakeTimers();
    const told: string[] = [];
    const abort = vi.fn(async () => {});
    const stop = new ReplyStop(async (id) => told.push(id));
    await stop.stop("t", abort);
    expect(told).toEqual(["t"]);
    expect(abort).not.toHaveBeenCalled();
    await vi.runAllTimersAsync();
    expect(abort).toHaveBeenCalledTimes(1);

    abort.mockClear();
    await stop.stop("t", abort);
    stop.ended();
    await vi.runAllTimersAsync();
    expect(abort).not.toHaveBeenCalled();
  });

  it("cuts the stream at once when the thread has no id yet or the server cannot be told", async () => {
    const abort = vi.fn(async () => {});
    const tellServer = vi.fn(async () => {
      throw new Error("offline");
    });
    const stop = new ReplyStop(tellServer);
    await stop.stop(null, abort);
    expect([tellServer.mock.calls.length, abort.mock.calls.length]).toEqual([0, 1]);
    await stop.stop("t", abort);
    expect([tellServer.mock.calls.length, abort.mock.calls.length]).toEqual([1, 2]);
  });
});
