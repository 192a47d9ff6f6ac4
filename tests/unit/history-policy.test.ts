import { describe, expect, it } from "vitest";
import { historyLogEnabled, historyTrimLine } from "@/lib/agent/turn/history-log";
import { clientHistoryCovers, widestWindow } from "@/lib/agent/turn/lifecycle";
import { windowOf } from "@/lib/client/history-mode";
import { historyLengthSchema } from "@/lib/protocol/chat";
import { applyHistoryPolicy, resolveHistoryPolicy, type HistoryPolicy } from "@/lib/protocol/history-policy";

// u = user, a = assistant (its tool calls and results are parts of it), s = a system event (a summary)
const thread = (roles: string) => roles.split(" ").map((role, i) => ({ role: { u: "user", a: "assistant", s: "system" }[role]!, id: `${role}${i}` }));
const ids = (messages: { id: string }[]) => messages.map((m) => m.id).join(" ");

describe("applying a history policy", () => {
  const messages = thread("s u a u a a u"); // the last user message is the new one
  const cases: [HistoryPolicy, string][] = [
    [{ policy: "all", length: 0 }, "s0 u1 a2 u3 a4 a5 u6"],
    [{ policy: "none", length: 5 }, "s0 u6"],
    [{ policy: "lastN", length: 0 }, "s0 u6"], // N = 0 behaves as 1
    [{ policy: "lastN", length: 1 }, "s0 u6"],
    [{ policy: "lastN", length: 2 }, "s0 u3 a4 a5 u6"], // a user message and everything after it
    [{ policy: "lastN", length: 3 }, "s0 u1 a2 u3 a4 a5 u6"],
    [{ policy: "lastN", length: 50 }, "s0 u1 a2 u3 a4 a5 u6"], // more than the thread has
  ];
  it.each(cases)("%o keeps %s", (policy, kept) => {
    expect(ids(applyHistoryPolicy(messages, policy))).toBe(kept);
  });

  it("keeps system messages wherever they are, and works on an empty or one-message thread", () => {
    expect(ids(applyHistoryPolicy(thread("u s a u"), { policy: "lastN", length: 1 }))).toBe("s1 u3");
    expect(applyHistoryPolicy([], { policy: "lastN", length: 2 })).toEqual([]);
    expect(ids(applyHistoryPolicy(thread("u"), { policy: "none", length: 0 }))).toBe("u0");
  });
});

describe("which setting wins", () => {
  const agentDefault: HistoryPolicy = { policy: "all", length: 10 };
  const environment = { policy: "lastN" as const, length: 3 };
  const url = { policy: "none" as const, length: 7 };
  it.each([
    ["environment set, URL given", { environment, url, agentDefault }, { policy: "lastN", length: 3, source: "environment" }],
    ["environment set, no URL", { environment, agentDefault }, { policy: "lastN", length: 3, source: "environment" }],
    ["no environment, URL given", { url, agentDefault }, { policy: "none", length: 7, source: "URL" }],
    ["neither: the agent's default", { agentDefault }, { policy: "all", length: 10, source: "default" }],
    ["nothing at all", {}, { policy: "all", length: 10, source: "default" }],
    ["the operator's length caps a URL's policy", { environment: { length: 2 }, url: { policy: "lastN" as const, length: 50 } }, { policy: "lastN", length: 2, source: "URL" }],
  ])("%s", (_, levels, expected) => {
    expect(resolveHistoryPolicy(levels)).toEqual(expected);
  });

  it("reads a length from a URL or the environment only as a whole number of 0 or more", () => {
    expect(historyLengthSchema.parse("5")).toBe(5);
    expect(historyLengthSchema.parse(0)).toBe(0);
    for (const bad of ["-1", "abc", "1.5", "", -2, 2.5, "1e3"]) expect(historyLengthSchema.safeParse(bad).success).toBe(false);
  });
});

describe("the window a turn needs and whether a client's copy holds it", () => {
  const seqAfter = (m: { seq: number; parts: unknown[] }) => m.seq + m.parts.length;
  const u = (seq: number) => ({ id: `u${seq}`, role: "user" as const, parts: [{ type: "text" as const, text: "q" }], seq });
  const a = (seq: number, parts = 1) => ({ id: `a${seq}`, role: "assistant" as const, parts: Array(parts).fill({ type: "text", text: "a" }), seq });

  it("is the widest of the agents' policies", () => {
    expect(widestWindow([{ policy: "lastN", length: 2 }, { policy: "none", length: 9 }])).toBe(2);
    expect(widestWindow([{ policy: "lastN", length: 0 }])).toBe(1);
    expect(widestWindow([{ policy: "lastN", length: 2 }, { policy: "all", length: 0 }])).toBeUndefined();
  });

  it("holds it when it is unbroken up to the new message and reaches back far enough", () => {
    // Thread: u1 a2(3 parts: 2-4) u5 a6 | new message at 7
    const whole = [u(1), a(2, 3), u(5), a(6)];
    expect(clientHistoryCovers({ history: whole, userSeq: 7, window: undefined, seqAfter })).toBe(true);
    expect(clientHistoryCovers({ history: whole.slice(2), userSeq: 7, window: 2, seqAfter })).toBe(true);
    expect(clientHistoryCovers({ history: whole.slice(2), userSeq: 7, window: 3, seqAfter })).toBe(false); // too short
    expect(clientHistoryCovers({ history: whole.slice(2), userSeq: 7, window: undefined, seqAfter })).toBe(false); // "all" needs the start
    expect(clientHistoryCovers({ history: whole.slice(0, 2), userSeq: 7, window: undefined, seqAfter })).toBe(false); // stale
    expect(clientHistoryCovers({ history: [], userSeq: 1, window: undefined, seqAfter })).toBe(true); // nothing before
    expect(clientHistoryCovers({ history: [], userSeq: 7, window: 1, seqAfter })).toBe(true); // lastN 1 needs nothing
  });

  it("the page sends only the window the last turn's policy read", () => {
    const item = (id: string, role: "user" | "assistant") => ({ id, role, parts: [{ type: "text" as const, text: id }] });
    const history = [item("u1", "user"), item("a1", "assistant"), item("u2", "user"), item("a2", "assistant")];
    expect(windowOf(history, { policy: "lastN", length: 2 }).map((m) => m.id)).toEqual(["u2", "a2"]);
    expect(windowOf(history, { policy: "none", length: 0 })).toEqual([]);
    expect(windowOf(history, { policy: "all", length: 0 })).toHaveLength(4);
  });
});

describe("the development console line", () => {
  it("names the agent, its setting and where it came from, and the trim", () => {
    expect(historyTrimLine({ agent: "Triage", policy: "lastN", length: 12, source: "URL", from: 22, to: 12 })).toBe(
      "[history] Triage: policy lastN, length 12, source URL: from 22 to 12 messages",
    );
    expect(historyTrimLine({ agent: "Researcher", policy: "all", length: 10, source: "environment", from: 1, to: 1 })).toBe(
      "[history] Researcher: policy all, length 10, source environment: from 1 to 1 messages",
    );
  });

  it("is written in development only: never in production, nor under the test runner", () => {
    expect(historyLogEnabled("development")).toBe(true);
    expect(historyLogEnabled("production")).toBe(false);
    expect(historyLogEnabled("test")).toBe(false);
  });
});
