"use client";

import type { McpServerStatus } from "@/lib/protocol/mcp";
import { usageText } from "@/lib/client/usage-text";
import { useThreadUsage } from "@/components/chat/useThreadUsage";
import { useFeedback } from "@/components/chat/ThreadWingsContext";
import { FEEDBACK_REASONS } from "@/lib/protocol/feedback-reasons";
import type { ChatDataParts, HistorySource, NextTurnHistory } from "@/lib/protocol/chat";
import type { UsedMemory } from "@/lib/client/memories-used";

const SOURCE_LABEL: Record<HistorySource, string> = {
  client: "client (the page's copy)",
  database: "database",
  new: "new thread",
};

interface HistoryDebugPanelProps {
  /** What the server reported for the last turn; null before the first one. */
  report: ChatDataParts["history"] | null;
  historySource: HistorySource | null;
  /** The setting the next message will be given, as the server rendered the page: shown until a turn reports. */
  next: NextTurnHistory;
  /** The model ids (`provider:model`) of the thread's last reply and of the picker's choice for the next message. */
  models: { lastReply?: string; next?: string };
  /** The operator's MCP servers as the page was rendered (none configured: empty). */
  mcpServers: McpServerStatus[];
  /** The thread and its last finished reply: the panel shows what that reply's calls spent. */
  lastReply?: { threadId: string; replyId: string };
  /** The memories the last reply was given, when it was given some. */
  memoriesUsed?: UsedMemory[];
}

/**
 * ?debug=true: the history setting in force and which level decided it (so an
 * operator can check that the environment wins before sending anything), then,
 * after each message, what the model was given.
 */
export function HistoryDebugPanel({ report, historySource, next, models, mcpServers, lastReply, memoriesUsed }: HistoryDebugPanelProps) {
  const row = (label: string, value: string | number) => (
    <div className="flex gap-2">
      <dt className="text-neutral-500 dark:text-neutral-400">{label}:</dt>{" "}
      <dd>{value}</dd>
    </div>
  );
  // The last turn's report, once there is one: the next turn uses the same setting.
  const settings = report ?? next;
  return (
    <section
      role="region"
      aria-label="History debug"
      className="mx-auto mt-2 w-full max-w-3xl rounded-lg border border-dashed border-neutral-300 px-3 py-2 font-mono text-xs dark:border-neutral-700"
    >
      {"error" in settings ? (
        <p>History: {settings.error}.</p>
      ) : (
        <>
          <p className="text-neutral-500 dark:text-neutral-400">{report ? "History of the last message" : "History for the next message"}</p>
          <dl className="grid grid-cols-1 gap-x-6 sm:grid-cols-3">
            {row("Policy", settings.policy)}
            {row("Length", settings.length)}
            {row("Source", settings.source)}
            {row("Messages in thread", settings.threadMessages)}
            {models.lastReply && row("Last reply's model", models.lastReply)}
            {models.next && row("Next message's model", models.next)}
            {report ? (
              <>
                {row("Sent to the model", `${plural(report.sentMessages, "message")}, ~${plural(report.sentTokens, "token")}`)}
                {row("History from", historySource ? SOURCE_LABEL[historySource] : "—")}
              </>
            ) : (
              row("Sent to the model", "shown after the next message")
            )}
          </dl>
        </>
      )}
      {lastReply && <LastReplyCalls {...lastReply} />}
      {lastReply && <LastReplyFeedback replyId={lastReply.replyId} />}
      {memoriesUsed && memoriesUsed.length > 0 && (
        <>
          <p className="mt-2 text-neutral-500 dark:text-neutral-400">Memories given to the last reply</p>
          <ul aria-label="Memories given to the last reply">
            {memoriesUsed.map((used) => (
              <li key={used.id}>
                {used.id}: {used.state === "known" ? `"${used.memory.text}"` : used.state === "deleted" ? "since deleted" : "words not read"}
              </li>
            ))}
          </ul>
        </>
      )}
      {mcpServers.length > 0 && (
        <>
          <p className="mt-2 text-neutral-500 dark:text-neutral-400">MCP servers</p>
          <ul aria-label="MCP servers">
            {mcpServers.map((server) => (
              <li key={server.name}>
                {server.name}: {server.connected ? `connected, ${server.tools.length === 0 ? "no tools" : server.tools.join(", ")}` : "not connected"}
                {server.note && ` (${server.note})`}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What the last reply's model calls spent, by agent, as the server stored it. */
function LastReplyCalls({ threadId, replyId }: { threadId: string; replyId: string }) {
  const reading = useThreadUsage(true, threadId, replyId);
  const reply = reading.state === "done" ? reading.usage.byMessage[replyId] : undefined;
  if (!reply) return null;
  return (
    <>
      <p className="mt-2 text-neutral-500 dark:text-neutral-400">Model calls of the last reply</p>
      <ul aria-label="Model calls of the last reply">
        {Object.entries(reply.byAgent).map(([agent, sum]) => (
          <li key={agent}>
            {agent}: {plural(sum.calls, "call")}, {usageText(sum)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** What the user said of the last reply (never sent to the model). */
function LastReplyFeedback({ replyId }: { replyId: string }) {
  const said = useFeedback().byMessage[replyId];
  const words = !said
    ? "none"
    : [said.rating === "up" ? "good" : "bad", said.reason && FEEDBACK_REASONS[said.reason], said.comment && `"${said.comment}"`].filter(Boolean).join(", ");
  return <p className="mt-2" data-last-reply-feedback>Feedback on the last reply: {words}</p>;
}
