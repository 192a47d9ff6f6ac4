import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import type { Reply } from "@threadline/history/contract";
import type { Part } from "@threadline/history/parts";

/** The first reply: a hand-over, reasoning, two tool calls (an output, an error) and the answer. */
export const TOOL_REPLY: Part[] = [
  { type: "handoff", to: "Researcher", reason: "needs the time", agentName: "Triage" },
  { type: "reasoning", text: "Look up the time.", durationMs: 1200, agentName: "Researcher" },
  { type: "tool-call", toolCallId: "call-1", toolName: "current_time", input: { city: "Zurich" }, agentName: "Researcher" },
  { type: "tool-result", toolCallId: "call-1", toolName: "current_time", output: { time: "12:00", zone: "Europe/Zurich" }, agentName: "Researcher" },
  { type: "tool-call", toolCallId: "call-2", toolName: "calculate", input: { expression: "1/0" }, agentName: "Researcher" },
  { type: "tool-result", toolCallId: "call-2", toolName: "calculate", error: "Division by zero", agentName: "Researcher" },
  { type: "text", text: "It is noon in Zürich.", agentName: "Researcher" },
];

/**
 * A thread with versions, built through the adapter as turns build it:
 *
 *   u1 ─ a1 (tools) ─ summary ─ u2 ─┬─ a2 (stopped, replaced)
 *    │                              └─ a2b ─ u3 (a NUL in it) ─ a3
 *   u1b (an edit of u1, then u1 selected back) ─ a1b
 *
 * The active path: u1 a1 summary u2 a2b u3 a3.
 */
export async function versionedThread(adapter: PostgresHistoryAdapter, owner: string) {
  const { threadId } = await adapter.createThread({ owner });
  const ask = (id: string, content: string) =>
    adapter.appendUserMessage({ owner, threadId, turnId: `turn-${id}`, message: { id, role: "user", content } });
  const answer = async (id: string, parts: Part[], status: Reply["status"] = "complete") =>
    (await adapter.appendResults({ owner, threadId, reply: { id, role: "assistant", status, parts } })).seq;
  const text = (t: string): Part[] => [{ type: "text", text: t, agentName: "Triage" }];

  await ask("u1", "What time is it in Zürich?");
  const a1 = await answer("a1", TOOL_REPLY);
  await adapter.summaries.append({
    owner,
    threadId,
    summary: { id: "summary-1", text: "The user asked for the time in Zürich.", throughSeq: a1 + TOOL_REPLY.length - 1, summarizedMessages: 2 },
    after: null,
  });
  await ask("u2", "And the weather?");
  await answer("a2", text("Sunny, I thi"), "stopped");
  await adapter.versions.branch({ owner, threadId, messageId: "a2" });
  await answer("a2b", text("Rainy all day."));
  await ask("u3", "Thanks\u0000!");
  await answer("a3", text("You're welcome."));
  await adapter.versions.branch({ owner, threadId, messageId: "u1" });
  await ask("u1b", "What time is it in Paris?");
  await answer("a1b", text("Noon in Paris."));
  await adapter.versions.select({ owner, threadId, messageId: "u1" });
  return { threadId, activePath: ["u1", "a1", "summary-1", "u2", "a2b", "u3", "a3"] };
}
