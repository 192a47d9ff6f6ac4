import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/settings";
import { historyCount, needsCompaction, planCompaction, sizeLimits } from "@/lib/agent/compaction";
import { DEFAULT_COMPACTION } from "@/lib/agent/compaction-settings";
import { environmentCompaction } from "@/lib/agent/turn/history-settings";
import { buildModelMessages, clientHistoryCovers } from "@/lib/agent/turn/lifecycle";
import { seqAfter } from "@/lib/auth/history-signature";
import { sinceLatestSummary, windowOf } from "@/lib/client/history-mode";
import type { StoredMessage } from "@/lib/protocol/threads";
import type { HistoryItem } from "@/lib/protocol/chat";
import { offlineSummary, summaryRequestText, transcriptOf } from "@/lib/model/summary-request";
import type { SystemEventPart, ThreadMessage } from "@threadline/history/parts";

/** `turns` user turns of one user message and one one-part reply each, with seqs from `firstSeq`. */
function turns(count: number, firstSeq = 1): StoredMessage[] {
  const out: StoredMessage[] = [];
  for (let t = 0; t < count; t++) {
    const seq = firstSeq + out.length;
    const at = { createdAt: "2026-01-01T00:00:00.000Z", status: "complete" as const };
    out.push({ id: `u${t}`, role: "user", parts: [{ type: "text", text: `question ${t}` }], seq, ...at });
    out.push({ id: `a${t}`, role: "assistant", parts: [{ type: "text", text: `answer ${t}` }], seq: seq + 1, ...at });
  }
  return out;
}

const event = (throughSeq: number, summarizedMessages: number, text = "so far"): SystemEventPart => ({
  type: "system-event",
  event: "compaction",
  text,
  throughSeq,
  summarizedMessages,
});

describe("when a thread is compacted, and where it is cut", () => {
  const settings = DEFAULT_COMPACTION; // over 50 → down to 30, the last 10 user turns always kept

  it("counts the summary as one message and the thread's messages after it", () => {
    expect(historyCount(51)).toBe(51);
    expect(historyCount(80, event(50, 50))).toBe(31);
    expect(needsCompaction(50, settings)).toBe(false);
    expect(needsCompaction(51, settings)).toBe(true);
    expect(needsCompaction(5_000, undefined)).toBe(false); // compaction off
  });

  it("leaves 50 messages alone and cuts 51 down to 30 with the summary, at a user message", () => {
    expect(planCompaction(turns(25), false, settings)).toBeUndefined();
    const messages = [...turns(25), ...turns(1, 51).map((m) => ({ ...m, id: `late-${m.id}` }))].slice(0, 51); // 26 user messages, 25 replies
    const plan = planCompaction(messages, false, settings)!;
    expect(plan.keep.length + 1).toBeLessThanOrEqual(30);
    expect(plan.keep[0].role).toBe("user");
    expect(plan.summarize.length + plan.keep.length).toBe(51);
    // As many kept as fit: one more turn would pass the target.
    expect(plan.keep.length + 1 + 2).toBeGreaterThan(30);
  });

  it("with a summary already, counts it and summarizes only what follows it", () => {
    const after = turns(25, 41); // 50 messages after a summary: 51 with it
    const plan = planCompaction(after, true, settings)!;
    expect(plan.summarize[0].seq).toBe(41);
    expect(plan.keep.length + 1).toBeLessThanOrEqual(30);
  });

  it("always keeps the last keepTurns user turns, even past the target", () => {
    const plan = planCompaction(turns(6), false, { maxMessages: 4, targetMessages: 2, keepTurns: 3 })!;
    expect(plan.keep.map((m) => m.id)).toEqual(["u3", "a3", "u4", "a4", "u5", "a5"]);
    expect(plan.summarize.map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1", "u2", "a2"]);
  });

  it("cuts nothing when the thread has no more user turns than it must keep", () => {
    expect(planCompaction(turns(3), false, { maxMessages: 4, targetMessages: 2, keepTurns: 3 })).toBeUndefined();
    // One user message followed by many replies' worth of messages: no user message to cut at.
    const one = [turns(1)[0], ...turns(5).filter((m) => m.role === "assistant")];
    expect(planCompaction(one, false, { maxMessages: 4, targetMessages: 2, keepTurns: 1 })).toBeUndefined();
  });

  it("on size: past maxChars, keeps the newest turns that fit targetChars, whatever keepTurns says", () => {
    const sized = (sizes: number[]) => turns(sizes.length / 2).map((m, i) => ({ ...m, parts: [{ type: "text" as const, text: "x".repeat(sizes[i]) }] }));
    const size = { limits: { maxChars: 1_000, targetChars: 500 }, sizeOf: (m: StoredMessage) => (m.parts[0] as { text: string }).text.length };
    const roomy = { maxMessages: 50, targetMessages: 30, keepTurns: 10 };
    // 900 characters: under maxChars, and far under the count: nothing to do.
    expect(planCompaction(sized([100, 200, 100, 200, 100, 200]), false, roomy, size)).toBeUndefined();
    // 1,200: the newest turns that fit 500 are kept (the last two: 400), the first summarized.
    const plan = planCompaction(sized([300, 500, 100, 200, 100, 0]), false, roomy, size)!;
    expect(plan.keep.map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2"]);
    expect(plan.summarize.map((m) => m.id)).toEqual(["u0", "a0"]);
    // The last turn alone is bigger than the target: everything is summarized, nothing kept.
    const all = planCompaction(sized([10, 10, 10, 2_000]), false, roomy, size)!;
    expect(all.keep).toEqual([]);
    expect(all.summarize).toHaveLength(4);
    // Count and size together: the deeper cut wins.
    const counted = { maxMessages: 4, targetMessages: 3, keepTurns: 1 };
    expect(planCompaction(sized([300, 300, 10, 10, 10, 10]), false, counted, size)!.keep.map((m) => m.id)).toEqual(["u2", "a2"]);
    expect(planCompaction(sized([100, 100, 100, 100, 400, 400]), false, counted, size)!.keep).toEqual([]);
  });

  it("asks for compaction on size when the next history passes maxChars, and never with compaction off", () => {
    const limits = sizeLimits(400_000)!;
    expect(limits).toEqual({ maxChars: 200_000, targetChars: 100_000 });
    expect(needsCompaction(4, DEFAULT_COMPACTION, { chars: 200_000, limits })).toBe(false);
    expect(needsCompaction(4, DEFAULT_COMPACTION, { chars: 200_001, limits })).toBe(true);
    expect(needsCompaction(4, undefined, { chars: 5_000_000, limits })).toBe(false);
    expect(sizeLimits(undefined)).toBeUndefined();
  });

  it("summarizes any stretch in one request of bounded size: the latest messages whole, the earlier ones sampled and cut short", () => {
    // About 8 MB: 2,000 turns of a short question and a 4,000-character answer.
    const long = turns(2_000).map((m, i) =>
      m.role === "user" ? m : { ...m, parts: [{ type: "text" as const, text: `answer ${i} ${"x".repeat(4_000)}` }] },
    );
    const request = summaryRequestText(undefined, long, 60_000);
    expect(request.length).toBeLessThanOrEqual(60_000 + 100);
    expect(request).toContain("User: question 0"); // how it began
    expect(request).toContain("User: question 1999"); // where it is now
    expect(request).toContain(`Assistant: answer 3999 ${"x".repeat(4_000)}`); // the last reply whole
    expect(request).toMatch(/\[3\d{3} earlier messages; \d+ of them, evenly spread, shown cut short:\]/);
    const sampled = [...request.matchAll(/User: question (\d+)/g)].map(([, n]) => Number(n));
    expect(sampled.length).toBeGreaterThan(20);
    expect(sampled.some((n) => n > 500 && n < 1500)).toBe(true); // from the middle too
    // What fits is sent whole, as before.
    const short = turns(4);
    expect(summaryRequestText(undefined, short, 60_000)).toBe(`Messages to summarize:\n\n${transcriptOf(short)}`);
  });
});

describe("what the model reads of a compacted thread", () => {
  it("the summary first, as a system message that says what it stands for, then the messages after it", () => {
    const summary: ThreadMessage = { id: "s", role: "system", parts: [event(40, 40, "The user likes tea.")] };
    const recent = turns(2, 41);
    // An older summary in the copy is left out: the latest stands for it.
    const older: ThreadMessage = { id: "s-old", role: "system", parts: [event(10, 10, "old")] };
    const messages = buildModelMessages([older, ...recent], { id: "new", role: "user", content: "and now?" }, undefined, summary);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(messages[0].content).toContain("The user likes tea.");
    expect(messages[0].content).toContain("40 earlier messages");
    // A history policy keeps it too.
    const last = buildModelMessages(recent, { id: "new", role: "user", content: "and now?" }, { policy: "lastN", length: 1 }, summary);
    expect(last.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("takes a client's copy that reaches back to the first message after the summary", () => {
    const recent = turns(3, 41); // seqs 41..46; the summary itself sits at 47
    const summary = { id: "s", role: "system" as const, parts: [event(40, 40)], seq: 47 };
    const copy = [...recent, summary];
    expect(clientHistoryCovers({ history: copy, userSeq: 48, window: undefined, fromSeq: 41, seqAfter })).toBe(true);
    expect(clientHistoryCovers({ history: copy.slice(2), userSeq: 48, window: undefined, fromSeq: 41, seqAfter })).toBe(false);
    // Without the summary the copy has a gap before the new message: the database is read instead.
    expect(clientHistoryCovers({ history: recent, userSeq: 48, window: undefined, fromSeq: 41, seqAfter })).toBe(false);
  });

  it("the page sends only what follows the latest summary, and a window of it as one unbroken run", () => {
    const item = (m: ThreadMessage & { seq: number }): HistoryItem => ({ id: m.id, role: m.role, parts: m.parts, seq: m.seq });
    const copy: HistoryItem[] = [
      ...turns(2).map(item), // 1..4
      item({ id: "s1", role: "system", parts: [event(2, 2)], seq: 5 }),
      ...turns(2, 6).map((m) => item({ ...m, id: `b-${m.id}` })), // 6..9
      item({ id: "s2", role: "system", parts: [event(7, 5)], seq: 10 }),
      ...turns(2, 11).map((m) => item({ ...m, id: `c-${m.id}` })), // 11..14
    ];
    expect(sinceLatestSummary(copy).map((m) => m.seq)).toEqual([8, 9, 10, 11, 12, 13, 14]);
    // The message being sent is one of the N: lastN 3 reads two earlier user turns.
    expect(windowOf(sinceLatestSummary(copy), { policy: "lastN", length: 3 }).map((m) => m.seq)).toEqual([11, 12, 13, 14]);
    expect(windowOf(sinceLatestSummary(copy), { policy: "lastN", length: 4 }).map((m) => m.seq)).toEqual([8, 9, 10, 11, 12, 13, 14]);
    expect(windowOf(sinceLatestSummary(copy), { policy: "lastN", length: 2 }).map((m) => m.seq)).toEqual([13, 14]);
    // A summary inside the window stays; one before it does not.
    expect(windowOf(copy, { policy: "lastN", length: 5 }).map((m) => m.seq)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14]);
  });
});

describe("the summary request and the offline model's summary", () => {
  it("cuts a huge message's text, so one long reply cannot make a request bigger than a model takes", () => {
    const huge = turns(1).map((m) => ({ ...m, parts: [{ type: "text" as const, text: `start ${"y".repeat(1_000_000)}` }] }));
    const request = summaryRequestText(undefined, huge);
    expect(request.length).toBeLessThan(50_000);
    expect(request).toContain("User: start yyy");
  });

  it("is deterministic, one point per user message, after the points of the summary so far", () => {
    const first = offlineSummary(summaryRequestText(undefined, turns(2)));
    expect(first).toBe('- The user said: "question 0"\n- The user said: "question 1"');
    expect(offlineSummary(summaryRequestText(undefined, turns(2)))).toBe(first);
    const next = offlineSummary(summaryRequestText(first, turns(1, 5).map((m) => ({ ...m, parts: [{ type: "text" as const, text: "tea please" }] }))));
    expect(next.split("\n")).toEqual(['- The user said: "question 0"', '- The user said: "question 1"', '- The user said: "tea please"']);
  });
});

describe("the operator's compaction setting", () => {
  it("defaults to 50 / 30 / 10, turns off with 0, and names a bad variable", () => {
    expect(environmentCompaction(parseEnv({}))).toEqual({ maxMessages: 50, targetMessages: 30, keepTurns: 10 });
    expect(environmentCompaction(parseEnv({ COMPACTION_MAX_MESSAGES: "0" }))).toBeUndefined();
    expect(environmentCompaction(parseEnv({ COMPACTION_MAX_MESSAGES: "12" }))).toEqual({ maxMessages: 12, targetMessages: 11, keepTurns: 10 });
    expect(environmentCompaction(parseEnv({ COMPACTION_MAX_MESSAGES: "8", COMPACTION_TARGET_MESSAGES: "4", COMPACTION_KEEP_TURNS: "1" }))).toEqual({
      maxMessages: 8,
      targetMessages: 4,
      keepTurns: 1,
    });
    expect(() => environmentCompaction(parseEnv({ COMPACTION_MAX_MESSAGES: "many" }))).toThrow(/COMPACTION_MAX_MESSAGES/);
    expect(() => environmentCompaction(parseEnv({ COMPACTION_MAX_MESSAGES: "10", COMPACTION_TARGET_MESSAGES: "10" }))).toThrow(/COMPACTION_TARGET_MESSAGES/);
    expect(() => environmentCompaction(parseEnv({ COMPACTION_KEEP_TURNS: "0" }))).toThrow(/COMPACTION_KEEP_TURNS/);
  });
});
