import { describe, expect, it } from "vitest";
import { groupThreadsByDate } from "@/lib/client/group-threads";
import { buildChatRequestBody, historySettingFromUrl } from "@/lib/client/history-mode";
import { isUnanswered, type ChatMessage } from "@/lib/client/messages";
import { withoutRetriedParts } from "@/lib/client/retried-parts";
import { describeChatError } from "@/lib/client/chat-error";
import { dataChunk, dataPartSchemas } from "@/lib/protocol/chat";

const thread = (id: string, updatedAt: string) => ({ id, title: id, createdAt: updatedAt, updatedAt, messageCount: 2, source: "web" as const, sourceId: null, sourceMetadata: null, model: null });

describe("groupThreadsByDate", () => {
  it("puts threads under Today, Yesterday, Previous 7 days, Previous 30 days and Older by calendar day", () => {
    const now = new Date(2026, 10, 21, 9, 0); // local time, 09:00
    const at = (daysAgo: number, hour = 12) => new Date(2026, 10, 21 - daysAgo, hour).toISOString();
    const groups = groupThreadsByDate(
      [thread("t0", at(0, 1)), thread("t1", at(1, 23)), thread("t7", at(7)), thread("t8", at(8)), thread("t30", at(30)), thread("t31", at(31))],
      now,
    );
    expect(groups.map((g) => [g.label, g.threads.map((t) => t.id)])).toEqual([
      ["Today", ["t0"]],
      ["Yesterday", ["t1"]],
      ["Previous 7 days", ["t7"]],
      ["Previous 30 days", ["t8", "t30"]],
      ["Older", ["t31"]],
    ]);
  });
});

describe("the hybrid history decision", () => {
  const messages: ChatMessage[] = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "first" }], metadata: { createdAt: "2026-11-21T10:00:00.000Z" } },
    { id: "a1", role: "assistant", parts: [{ type: "text", text: "reply" }] },
    { id: "u2", role: "user", parts: [{ type: "text", text: "second" }] },
  ];

  it("a new chat sends neither a thread id nor history", () => {
    expect(buildChatRequestBody(messages.slice(2), { threadId: null, clientCopyIsTrusted: true })).toEqual({
      message: { id: "u2", content: "second" },
    });
  });

  it("a copy loaded from the server sends only the thread id, so the server reads the database", () => {
    const body = buildChatRequestBody(messages, { threadId: "t", clientCopyIsTrusted: false });
    expect(body).toEqual({ threadId: "t", message: { id: "u2", content: "second" } });
  });

  it("a copy built in this page sends the earlier messages, without the new one", () => {
    const body = buildChatRequestBody(messages, { threadId: "t", clientCopyIsTrusted: true });
    expect(body.history?.map((m) => [m.id, m.role, m.parts])).toEqual([
      ["u1", "user", [{ type: "text", text: "first" }]],
      ["a1", "assistant", [{ type: "text", text: "reply" }]],
    ]);
  });
});

describe("parts of a retried step", () => {
  const stamped = (text: string, step: string, attempt: number) => ({
    type: "text" as const,
    text,
    providerMetadata: { threadline: { step, attempt } },
  });

  it("hides the parts a failed attempt of the step wrote, of every kind, and keeps the rest", () => {
    const tool = (attempt: number) => ({
      type: "dynamic-tool" as const,
      toolName: "calculate",
      toolCallId: `c${attempt}`,
      state: "input-available" as const,
      input: {},
      callProviderMetadata: { threadline: { step: "model:0:R:0", attempt } },
    });
    const parts = [stamped("earlier step", "model:0:T:0", 0), stamped("partial", "model:0:R:0", 0), tool(0), stamped("whole", "model:0:R:0", 1), tool(1)];
    expect(withoutRetriedParts(parts, [{ step: "model:0:R:0", attempt: 1 }])).toEqual([parts[0], parts[3], parts[4]]);
  });

  it("applies several retries, and leaves parts without a stamp alone", () => {
    const parts = [{ type: "text" as const, text: "unstamped" }, stamped("try 1", "s", 0), stamped("try 2", "s", 1), stamped("try 3", "s", 2)];
    const notices = [
      { step: "s", attempt: 1 },
      { step: "s", attempt: 2 },
    ];
    expect(withoutRetriedParts(parts, notices)).toEqual([parts[0], parts[3]]);
  });
});

describe("the stream's data parts", () => {
  it("are checked against the protocol's schemas before the page uses them", () => {
    expect(dataPartSchemas.retry.safeParse({ step: "model:0:Triage:0", attempt: 1 }).success).toBe(true);
    expect(dataPartSchemas.retry.safeParse({ step: "s", attempt: "2" }).success).toBe(false);
    expect(dataPartSchemas.retry.safeParse({ step: "s", attempt: 0 }).success).toBe(false);
    expect(dataPartSchemas.thread.safeParse({ threadId: "22222222-2222-4222-8222-222222222222", historySource: "client" }).success).toBe(true);
    expect(dataPartSchemas.thread.safeParse({ threadId: "not-a-uuid", historySource: "client" }).success).toBe(false);
    expect(dataPartSchemas.thread.safeParse({ threadId: "22222222-2222-4222-8222-222222222222", historySource: "cache" }).success).toBe(false);
    expect(dataPartSchemas.status.safeParse({ status: "stopped" }).success).toBe(true);
    expect(dataPartSchemas.status.safeParse({ status: "running" }).success).toBe(false);
    expect(dataPartSchemas.signatures.safeParse({ signatures: [{ id: "m", signature: "s", seq: 3 }] }).success).toBe(true);
    expect(dataPartSchemas.signatures.safeParse({ signatures: [{ id: "m", signature: "s" }] }).success).toBe(false);
    expect(dataPartSchemas.signatures.safeParse({ signatures: [{ id: 1 }] }).success).toBe(false);
  });

  it("are the ones the server writes", () => {
    expect(dataChunk("status", { status: "stopped" })).toEqual({ type: "data-status", data: { status: "stopped" }, transient: true });
  });
});

describe("the error shown in the thread", () => {
  it("is the server's own message for a refused request, such as a rate limit", () => {
    const body = { error: { code: "rate_limited:chatPerIdentity", message: "You are sending messages faster than this server allows. Try again in 42 seconds." } };
    expect(describeChatError(new Error(JSON.stringify(body)))).toBe(body.error.message);
  });
});

describe("the history setting in the page's URL", () => {
  it("is passed on as written, for the server to validate, and only when the URL has it", () => {
    expect(historySettingFromUrl("?historyPolicy=lastN&historyLength=5&debug=true")).toEqual({ historyPolicy: "lastN", historyLength: "5" });
    expect(historySettingFromUrl("?historyLength=-1")).toEqual({ historyLength: "-1" });
    expect(historySettingFromUrl("")).toEqual({});
    const messages: ChatMessage[] = [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }];
    expect(buildChatRequestBody(messages, { threadId: null, clientCopyIsTrusted: true }, new Date(), { historyPolicy: "none" })).toEqual({
      message: { id: "u1", content: "hi" },
      historyPolicy: "none",
    });
  });
});

describe("a question left without an answer", () => {
  const user: ChatMessage = { id: "u", role: "user", parts: [{ type: "text", text: "hi" }] };
  const reply = (parts: ChatMessage["parts"]): ChatMessage => ({ id: "a", role: "assistant", parts });
  it("is the last message, or followed by a reply with nothing in it: Retry then asks for the same message", () => {
    expect(isUnanswered([user])).toBe(true);
    expect(isUnanswered([user, reply([{ type: "data-agent", data: { name: "Triage" } }])])).toBe(true);
    expect(isUnanswered([user, reply([{ type: "text", text: "half an ans", state: "done" }])])).toBe(false);
    expect(isUnanswered([])).toBe(false);
  });
});
