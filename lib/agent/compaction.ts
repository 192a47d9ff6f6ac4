import "server-only";
import { generateText } from "ai";
import type { HistoryConfig, StoredMessage, SummaryMessage } from "@/lib/history/types";
import { SUMMARY_INSTRUCTIONS, summaryRequestText, transcriptOf } from "@/lib/model/summary-request";
import type { SystemEventPart } from "@/lib/protocol/parts";
import type { CompactionSettings } from "./compaction-settings";
import type { Network } from "./network";
import type { StepRunner } from "./steps";

// Compaction keeps a long thread inside the model's window. When the history a
// model would read (the latest summary, if any, and the messages after it)
// holds more than `maxMessages`, the older messages are summarized and the
// model reads the summary instead: down to `targetMessages`, but never fewer
// than the last `keepTurns` user turns. The summary is stored as a system
// message of its own; no message is deleted or changed, and the thread page
// still shows every one. It is per-thread context, never memory across threads.
//
// It runs after a turn, for the next one, in steps of its own (read, summarize,
// store), so a durable runtime runs each once and a reply never waits for it.

/** How many messages the model's history holds: the summary, if any, and the thread's messages after it. */
export function historyCount(threadMessages: number, summary?: SystemEventPart): number {
  return summary ? threadMessages - summary.summarizedMessages + 1 : threadMessages;
}

export function needsCompaction(count: number, settings: CompactionSettings | undefined): boolean {
  return settings !== undefined && count > settings.maxMessages;
}

/**
 * Where to cut the messages after the latest summary (oldest first): the ones
 * before the cut are summarized, the rest kept. The kept part starts at a user
 * message, holds at most `targetMessages` with the summary, and holds at least
 * the last `keepTurns` user turns. Undefined when nothing needs or can be cut.
 */
export function planCompaction<M extends { role: string }>(
  messages: M[],
  hasSummary: boolean,
  settings: CompactionSettings,
): { summarize: M[]; keep: M[] } | undefined {
  if (messages.length + (hasSummary ? 1 : 0) <= settings.maxMessages) return undefined;
  const userAt = messages.flatMap((message, i) => (message.role === "user" ? [i] : []));
  // The last keepTurns user turns begin here (or the thread is too short in turns to cut at all).
  const keepFrom = userAt.at(-Math.max(1, settings.keepTurns));
  if (keepFrom === undefined) return undefined;
  // The earliest user message from which the rest fits the target beside the new summary.
  const fitting = userAt.find((i) => messages.length - i + 1 <= settings.targetMessages) ?? keepFrom;
  const cut = Math.min(fitting, keepFrom);
  if (cut === 0) return undefined;
  return { summarize: messages.slice(0, cut), keep: messages.slice(cut) };
}

/** One summarize call is given at most about this much transcript; a longer stretch is summarized in rounds. */
const ROUND_CHARS = 60_000;

/** The messages to summarize in rounds of at most ROUND_CHARS of transcript (a message is never split). */
export function summaryRounds<M extends StoredMessage>(messages: M[], roundChars = ROUND_CHARS): M[][] {
  const rounds: M[][] = [];
  let chars = 0;
  for (const message of messages) {
    const size = transcriptOf([message]).length;
    if (rounds.length === 0 || (chars + size > roundChars && rounds.at(-1)!.length > 0)) {
      rounds.push([]);
      chars = 0;
    }
    rounds.at(-1)!.push(message);
    chars += size;
  }
  return rounds;
}

const summaryOf = (summary: SummaryMessage | null | undefined) => summary?.parts[0];

/**
 * Compacts the thread if it needs it, and stores one summary. Returns the
 * stored summary's seq, or null when there was nothing to do or another
 * compaction of the thread stored first.
 */
export async function compactThread(
  target: { owner: string; threadId: string },
  deps: { history: HistoryConfig; network: Network; step: StepRunner; newId: () => string },
): Promise<{ seq: number } | null> {
  const { history, network, step } = deps;
  const settings = network.compaction;
  if (!settings || !history.summary || !history.appendSummary || !history.get) return null;

  // What to summarize is decided from the database, not from the request that
  // asked for it: a compaction asked for twice, or late, finds nothing to do.
  const plan = await step("compaction:plan", async () => {
    const latest = await history.summary!(target);
    const previous = summaryOf(latest);
    const messages = await history.get!({ ...target, fromSeq: previous ? previous.throughSeq + 1 : undefined });
    const cut = planCompaction(messages, previous !== undefined, settings);
    if (!cut) return null;
    return {
      after: latest?.seq ?? null,
      previous: previous?.text,
      rounds: summaryRounds(cut.summarize),
      // The seq of the last part of the last message summarized: the next message starts right after it.
      throughSeq: cut.keep[0].seq - 1,
      summarizedMessages: (previous?.summarizedMessages ?? 0) + cut.summarize.length,
    };
  });
  if (!plan) return null;

  let text = plan.previous;
  for (const [round, messages] of plan.rounds.entries()) {
    text = await step(`compaction:summarize:${round}`, async () => {
      const { text: summary } = await generateText({
        model: network.model,
        system: SUMMARY_INSTRUCTIONS,
        prompt: summaryRequestText(text, messages),
        maxOutputTokens: 1_500,
        maxRetries: network.maxRetries,
      });
      if (!summary.trim()) throw new Error("The model wrote an empty summary.");
      return summary.trim();
    });
  }

  return step("compaction:store", () =>
    history.appendSummary!({
      ...target,
      summary: { id: deps.newId(), text: text!, throughSeq: plan.throughSeq, summarizedMessages: plan.summarizedMessages },
      after: plan.after,
    }),
  );
}
