import "server-only";
import { randomUUID } from "node:crypto";
import { generateText } from "ai";
import { seqAfter } from "@/lib/auth/history-signature";
import { toModelMessages } from "@/lib/protocol/parts-codec";
import { summaryForModel } from "@threadline/history/summary-for-model";
import { modelInputChars } from "./turn/input-budget";
import type { TurnHistory, NewSummary, SummaryMessage, ThreadMessage } from "@threadline/history/contract";
import { requestKindHeaders, SUMMARY_REQUEST } from "@/lib/model/request-kind.mjs";
import { SUMMARY_INSTRUCTIONS, SUMMARY_TRANSCRIPT_CHARS, summaryFileLines, summaryRequestText, withFileLines } from "@/lib/model/summary-request";
import type { SystemEventPart } from "@threadline/history/parts";
import type { CompactionSettings } from "./compaction-settings";
import { utilityModelIdOf, utilityModelOf, type Network } from "./network/network";
import { tokensFromResult, type ModelUsage } from "@threadline/history/usage";
import type { StepRunner } from "./turn/steps";
import { inputTokensOf, reservedCall, type CallToReserve } from "./model/spend";

/** The most a summary's model call may write. */
const SUMMARY_OUTPUT_TOKENS = 1_500;

// Compaction keeps a long thread inside the model's window. When the history a
// model would read (the latest summary, if any, and the messages after it)
// holds more than `maxMessages`, the older messages are summarized and the
// model reads the summary instead: down to `targetMessages`, but never fewer
// than the last `keepTurns` user turns. The summary is stored as a system
// message of its own; no message is deleted or changed, and the thread page
// still shows every one. It is per-thread context, never memory across threads.
//
// It also runs on size: once the history a model reads passes half the input
// budget (MAX_MODEL_INPUT_CHARS), the older messages are summarized until what
// is kept holds a quarter of it, however few turns that leaves. A few huge
// messages, an imported thread or one written before compaction was on can
// then always be continued.
//
// However much there is to summarize, it makes one model call: the request
// holds a bounded transcript (lib/model/summary-request.ts: the most recent
// messages whole, an evenly spread sample of the earlier ones cut short), at
// most SUMMARY_TRANSCRIPT_CHARS, or the input budget when that is less.
//
// It runs after a turn, for the next one, in steps of its own (read, summarize,
// store), so a durable runtime runs each once and a reply rarely waits for it;
// and before a turn whose history would not fit the budget at all, as steps of
// that turn.

/** How many messages the model's history holds: the summary, if any, and the thread's messages after it. */
export function historyCount(threadMessages: number, summary?: SystemEventPart): number {
  return summary ? threadMessages - summary.summarizedMessages + 1 : threadMessages;
}

/** When a history is compacted for its size, and what is kept of it: derived from the model's input budget. */
export interface SizeLimits {
  /** Compact when the model's history holds more characters than this. */
  maxChars: number;
  /** What the kept messages may hold after. */
  targetChars: number;
}

export function sizeLimits(maxInputChars: number | undefined): SizeLimits | undefined {
  if (maxInputChars === undefined) return undefined;
  return { maxChars: Math.floor(maxInputChars / 2), targetChars: Math.floor(maxInputChars / 4) };
}

/** `chars`: the characters of the history the model would read next, when known. */
export function needsCompaction(count: number, settings: CompactionSettings | undefined, chars?: { chars: number; limits?: SizeLimits }): boolean {
  if (settings === undefined) return false;
  return count > settings.maxMessages || (chars?.limits !== undefined && chars.chars > chars.limits.maxChars);
}

/** How many characters the model is given for a message: its text, and its tool calls and results as JSON. */
export const messageChars = (message: ThreadMessage) => modelInputChars(toModelMessages([message], summaryForModel));

/**
 * Where to cut the messages after the latest summary (oldest first): the ones
 * before the cut are summarized, the rest kept. The kept part starts at a user
 * message (or is empty). Over `maxMessages`, it holds at most `targetMessages`
 * with the summary, and at least the last `keepTurns` user turns. Over
 * `size.limits.maxChars`, it also holds at most `targetChars`, whatever
 * `keepTurns` says: a size that does not fit cannot be kept. Undefined when
 * nothing needs or can be cut.
 */
export function planCompaction<M extends { role: string }>(
  messages: M[],
  hasSummary: boolean,
  settings: CompactionSettings,
  size?: { limits: SizeLimits; sizeOf: (message: M) => number },
): { summarize: M[]; keep: M[] } | undefined {
  const userAt = messages.flatMap((message, i) => (message.role === "user" ? [i] : []));
  const cut = Math.max(countCut(messages.length, userAt, hasSummary, settings), size ? sizeCut(messages, userAt, size) : 0);
  if (cut === 0) return undefined;
  return { summarize: messages.slice(0, cut), keep: messages.slice(cut) };
}

/** The cut that brings a history over `maxMessages` down to `targetMessages` (0: none needed or possible). */
function countCut(length: number, userAt: number[], hasSummary: boolean, settings: CompactionSettings): number {
  if (length + (hasSummary ? 1 : 0) <= settings.maxMessages) return 0;
  // The last keepTurns user turns begin here (or the thread is too short in turns to cut at all).
  const keepFrom = userAt.at(-Math.max(1, settings.keepTurns));
  if (keepFrom === undefined) return 0;
  // The earliest user message from which the rest fits the target beside the new summary.
  const fitting = userAt.find((i) => length - i + 1 <= settings.targetMessages) ?? keepFrom;
  return Math.min(fitting, keepFrom);
}

/** The cut that brings a history over `maxChars` down to `targetChars`: everything, when even its last turn is bigger. */
function sizeCut<M>(messages: M[], userAt: number[], size: { limits: SizeLimits; sizeOf: (message: M) => number }): number {
  const sizes = messages.map(size.sizeOf);
  const total = sizes.reduce((sum, chars) => sum + chars, 0);
  if (total <= size.limits.maxChars) return 0;
  let before = 0;
  let at = 0;
  for (const i of userAt) {
    for (; at < i; at++) before += sizes[at];
    if (total - before <= size.limits.targetChars) return i;
  }
  return messages.length;
}

const summaryOf = (summary: SummaryMessage | null | undefined) => summary?.parts[0];

/** Whether the thread's history can be compacted at all: the network's settings. */
export const canCompact = (network: Network) => network.compaction !== undefined;

/** A summary written and not stored yet: what it stands for, and the thread's latest summary it was written after. */
export interface SummaryDraft {
  summary: Omit<NewSummary, "id">;
  /** The seq of the summary it was written after (null: none). */
  after: number | null;
  /** What writing it spent: stored with it (or without it, when another compaction stored first). */
  usage?: ModelUsage;
}

/**
 * Compacts the thread if it needs it, and stores one summary. Returns the
 * stored summary's seq, or null when there was nothing to do or another
 * compaction of the thread stored first. With `beforeSeq` (a turn that
 * compacts before it answers), only the messages before that seq are
 * considered: the turn's own message stays out of the summary.
 */
export async function compactThread(
  target: { owner: string; threadId: string; beforeSeq?: number },
  deps: { history: TurnHistory; network: Network; step: StepRunner; newId: () => string },
): Promise<{ seq: number } | null> {
  const draft = await summarizeThread(target, deps);
  return draft ? storeSummary(target, draft, deps) : null;
}

/**
 * Stores a summary as the thread's latest, after whatever the thread's path
 * ends with now; null when another compaction stored first or the path no
 * longer holds what it stands for.
 */
export async function storeSummary(
  scope: { owner: string; threadId: string },
  { summary, after, usage }: SummaryDraft,
  { history, step, newId }: { history: TurnHistory; step: StepRunner; newId: () => string },
): Promise<{ seq: number } | null> {
  return step("compaction:store", () => history.summaries.append({ owner: scope.owner, threadId: scope.threadId, summary: { id: newId(), ...summary }, after, usage }));
}

/**
 * The summary the thread needs now (see compactThread), written by the model
 * and not stored: null when there is nothing to summarize.
 */
export async function summarizeThread(
  target: { owner: string; threadId: string; beforeSeq?: number },
  deps: { history: TurnHistory; network: Network; step: StepRunner; newId: () => string },
): Promise<SummaryDraft | null> {
  const { network, step } = deps;
  const settings = network.compaction;
  const { history } = deps;
  const { summaries } = history;
  if (!settings) return null;
  const scope = { owner: target.owner, threadId: target.threadId };
  const { beforeSeq } = target;
  const limits = sizeLimits(network.maxInputChars);
  // The summary request is one model call too: its transcript stays within the input budget.
  const transcriptChars = Math.min(SUMMARY_TRANSCRIPT_CHARS, network.maxInputChars ?? Infinity);

  // What to summarize is decided from the database, not from the request that
  // asked for it: a compaction asked for twice, or late, finds nothing to do.
  const plan = await step("compaction:plan", async () => {
    const latest = await summaries.latest(scope);
    const previous = summaryOf(latest);
    const stored = await history.get({ ...scope, fromSeq: previous ? previous.throughSeq + 1 : undefined });
    const messages = beforeSeq === undefined ? stored : stored.filter((m) => m.seq < beforeSeq);
    const cut = planCompaction(messages, previous !== undefined, settings, limits && { limits, sizeOf: messageChars });
    const lastSummarized = cut?.summarize.at(-1);
    if (!cut || !lastSummarized) return null;
    return {
      after: latest?.seq ?? null,
      // The request itself, bounded, rather than the messages: a durable runtime keeps a step's result.
      request: summaryRequestText(previous?.text, cut.summarize, transcriptChars),
      // Kept apart from the model's words: each file of the summarized messages keeps a line of the summary.
      files: summaryFileLines(previous?.text, cut.summarize),
      // The seq of the last part of the last message summarized: the next message starts right after it.
      throughSeq: seqAfter(lastSummarized) - 1,
      summarizedMessages: (previous?.summarizedMessages ?? 0) + cut.summarize.length,
    };
  });
  if (!plan) return null;

  const written = await step("compaction:summarize", async () => {
    // Made inside the step: a durable runtime's replay returns the same call id, reserved and stored once.
    const call: CallToReserve = {
      id: randomUUID(),
      ...scope,
      purpose: "summary",
      model: utilityModelIdOf(network),
      inputTokens: inputTokensOf(SUMMARY_INSTRUCTIONS, [{ role: "user", content: plan.request }]),
      outputCap: SUMMARY_OUTPUT_TOKENS,
      outputMin: SUMMARY_OUTPUT_TOKENS,
    };
    const ran = await reservedCall(
      network.spend,
      call,
      () =>
        generateText({
          model: utilityModelOf(network),
          system: SUMMARY_INSTRUCTIONS,
          prompt: plan.request,
          headers: requestKindHeaders(SUMMARY_REQUEST),
          maxOutputTokens: SUMMARY_OUTPUT_TOKENS,
          maxRetries: network.maxRetries,
        }),
      (result) => ({ tokens: tokensFromResult(result.usage), exact: true }),
    );
    if ("refusal" in ran) return { refused: ran.refusal.message };
    await network.spend?.settled?.(scope.owner);
    const { text, usage } = ran.result;
    if (!text.trim()) throw new Error("The model wrote an empty summary.");
    const spent: ModelUsage = { id: call.id, purpose: "summary", model: call.model, ...tokensFromResult(usage) };
    return { text: text.trim(), usage: spent };
  });
  if (typeof written !== "string" && "refused" in written) {
    // The person's budget has no room for a summary: the thread stays as it is, and the turn's own call says why.
    console.info(`[thread ${scope.threadId}] not compacted: ${written.refused}`);
    return null;
  }
  // A run memoized before summaries carried their usage returns the text alone.
  const { text, usage } = typeof written === "string" ? { text: written, usage: undefined } : written;

  // A plan memoized before summaries listed files has none to add.
  const withFiles = plan.files ? withFileLines(text, plan.files) : text;
  return { summary: { text: withFiles, throughSeq: plan.throughSeq, summarizedMessages: plan.summarizedMessages }, after: plan.after, usage };
}
