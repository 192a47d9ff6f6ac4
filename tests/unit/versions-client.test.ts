import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "@/lib/protocol/threads";
import type { ChatMessage } from "@/lib/client/messages";
import { ChatSession } from "@/lib/client/chat-session";
import { initialThreadChatState, threadChatReducer } from "@/lib/client/thread-chat-state";
import { indexVersions, messagesBeforeEdit, neighbourVersion, regenerableReplyId } from "@/lib/client/versions";
import { storedMessage } from "../support/stored-message";

// What the chat page does with a thread's versions before anything is drawn:
// the "2 / 3" buttons' targets, regenerate's and edit's request bodies, and
// the copy of the thread they leave.
const stored = (id: string, role: HistoryMessage["role"], seq: number) => storedMessage(id, role, seq, { signature: `sig-${id}` });
const text = (id: string, role: ChatMessage["role"], t = id): ChatMessage => ({ id, role, parts: [{ type: "text", text: t }] });
const ended = { role: "assistant" as const, isAbort: false, isError: false, isDisconnect: false };

describe("the version buttons", () => {
  const middle = { messageId: "a2", versions: ["a1", "a2", "a3"], position: 2 };
  it("go to the version either side, and nowhere past either end", () => {
    expect([neighbourVersion(middle, -1), neighbourVersion(middle, 1)]).toEqual(["a1", "a3"]);
    expect(neighbourVersion({ ...middle, messageId: "a1", position: 1 }, -1)).toBeNull();
    expect(neighbourVersion({ ...middle, messageId: "a3", position: 3 }, 1)).toBeNull();
  });

  it("are found by the message they belong to", () => {
    const index = indexVersions([middle, { messageId: "u1", versions: ["u0", "u1"], position: 2 }]);
    expect(index.get("a2")).toBe(middle);
    expect(index.get("u1")?.position).toBe(2);
    expect(index.get("u2")).toBeUndefined();
  });
});

describe("regenerate and edit", () => {
  it("regenerate answers the thread's last reply only, past any summary after it", () => {
    expect(regenerableReplyId([text("u1", "user"), text("a1", "assistant")])).toBe("a1");
    expect(regenerableReplyId([text("u1", "user"), text("a1", "assistant"), text("s1", "system")])).toBe("a1");
    expect(regenerableReplyId([text("u1", "user"), text("a1", "assistant"), text("u2", "user")])).toBeNull();
    expect(regenerableReplyId([])).toBeNull();
    // A posted reminder answers no message: nothing to regenerate.
    expect(regenerableReplyId([text("u1", "user"), text("a1", "assistant"), { ...text("r1", "assistant"), metadata: { reminder: true } }])).toBeNull();
  });

  it("an edit keeps the messages before the edited one, and only a user's message can be edited", () => {
    const thread = [text("u1", "user"), text("a1", "assistant"), text("u2", "user"), text("a2", "assistant")];
    expect(messagesBeforeEdit(thread, "u2")?.map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(messagesBeforeEdit(thread, "u1")).toEqual([]);
    expect(messagesBeforeEdit(thread, "a1")).toBeNull();
    expect(messagesBeforeEdit(thread, "gone")).toBeNull();
  });

  it("the next request, and only that one, names the message it replaces", () => {
    const session = new ChatSession("t", [stored("u1", "user", 1), stored("a1", "assistant", 2)]);
    session.replyEnded(ended);
    // Regenerate: the user's message again (its own id and words), the thread before it as history.
    session.replaceNext("a1");
    const regenerated = session.requestBody([text("u1", "user")], "");
    expect(regenerated).toMatchObject({ threadId: "t", message: { id: "u1", content: "u1" }, replaces: "a1" });
    expect(regenerated.history).toEqual([]);
    // Edit: new words under a new id, after the messages before the edited one.
    session.replaceNext("u1");
    expect(session.requestBody([text("u1b", "user", "new words")], "")).toMatchObject({ message: { id: "u1b", content: "new words" }, replaces: "u1" });
    expect(session.requestBody([text("u1b", "user", "new words"), text("a1b", "assistant"), text("u2", "user")], "")).not.toHaveProperty("replaces");
  });

  it("after the thread is drawn again from another version, the next request leaves the history to the database and knows the new signatures", () => {
    const session = new ChatSession("t", [stored("u1", "user", 1), stored("a1", "assistant", 2)]);
    session.replyEnded(ended);
    expect(session.requestBody([text("u1", "user"), text("a1", "assistant"), text("u2", "user")], "").history).toHaveLength(2);
    session.redrawn([stored("u1", "user", 1), stored("a1b", "assistant", 5)]);
    expect(session.seqOf("a1b")).toBe(5);
    expect(session.requestBody([text("u1", "user"), text("a1b", "assistant"), text("u2", "user")], "")).toEqual({ threadId: "t", message: { id: "u2", content: "u2" } });
  });
});

describe("the page's state when another version is shown", () => {
  it("forgets the old path's interruption, notice and earlier-pages cursor, and takes the new page's", () => {
    let state = initialThreadChatState({ olderCursor: "b40", interrupted: true });
    state = threadChatReducer(state, { type: "older-failed", error: "offline" });
    state = threadChatReducer(state, { type: "redrawn", olderCursor: null });
    expect(state).toMatchObject({ interrupted: false, notice: null, older: { cursor: null, loading: false, error: null } });
    expect(threadChatReducer(state, { type: "redrawn", olderCursor: "b7" }).older.cursor).toBe("b7");
  });
});
