"use client";

import type { ChatDataParts, HistorySource } from "@/lib/protocol/chat";

const SOURCE_LABEL: Record<HistorySource, string> = {
  client: "client (the page's copy)",
  database: "database",
  new: "new thread",
};

interface HistoryDebugPanelProps {
  /** What the server reported for the last turn; null before the first one. */
  report: ChatDataParts["history"] | null;
  historySource: HistorySource | null;
}

/** ?debug=true: what the model was given on the last turn, and which setting decided it. */
export function HistoryDebugPanel({ report, historySource }: HistoryDebugPanelProps) {
  const row = (label: string, value: string | number) => (
    <div className="flex gap-2">
      <dt className="text-neutral-500 dark:text-neutral-400">{label}:</dt>{" "}
      <dd>{value}</dd>
    </div>
  );
  return (
    <section
      role="region"
      aria-label="History debug"
      className="mx-auto mt-2 w-full max-w-3xl rounded-lg border border-dashed border-neutral-300 px-3 py-2 font-mono text-xs dark:border-neutral-700"
    >
      {report === null ? (
        <p>History: shown after the next message.</p>
      ) : (
        <dl className="grid grid-cols-1 gap-x-6 sm:grid-cols-3">
          {row("Policy", report.policy)}
          {row("Length", report.length)}
          {row("Source", report.source)}
          {row("Messages in thread", report.threadMessages)}
          {row("Sent to the model", `${plural(report.sentMessages, "message")}, ~${plural(report.sentTokens, "token")}`)}
          {row("History from", historySource ? SOURCE_LABEL[historySource] : "—")}
        </dl>
      )}
    </section>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
