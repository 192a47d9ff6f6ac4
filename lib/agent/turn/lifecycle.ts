// The history lifecycle as small pure rules, one per row of the table in
// packages/history/src/contract.ts. The turn runner (turn.ts) only sequences them.

import type { ModelMessage } from "ai";
import { v5 as uuidv5 } from "uuid";
import { toModelMessages, type FileInput } from "@/lib/protocol/parts-codec";
import { summaryForModel } from "@threadline/history/summary-for-model";
import type { ThreadMessage, UserMessage } from "@threadline/history/contract";
import { userMessage } from "@threadline/history/parts";
import { applyHistoryPolicy, type HistoryPolicy } from "@/lib/protocol/history-policy";

export type { HistorySource } from "@/lib/protocol/chat";
import type { HistorySource } from "@/lib/protocol/chat";

// Any fixed UUID: it only keeps these ids apart from other name-based ones.
const FIRST_MESSAGE_NAMESPACE = "6f1d3c0e-4b8a-4f5e-9a51-2d7c8e0b9f34";

/**
 * The thread a first message (sent without a thread id) starts, named after
 * the owner and the message's client id: the same message sent twice, at once
 * or later, names the same thread, so it can never start two.
 */
export function threadIdForFirstMessage(owner: string, messageId: string): string {
  return uuidv5(`${owner}\n${messageId}`, FIRST_MESSAGE_NAMESPACE);
}

const APPROVAL_NAMESPACE = "0b6c2f7e-5d1a-4c3b-8e9f-a47d2c61e5b8";

/**
 * The id of the approval a tool call asks for: named after the reply and the
 * call (a reply's call ids are its own), so a durable run's replay asks for
 * the same one, and another version of the reply for another.
 */
export function approvalIdFor(replyId: string, toolCallId: string): string {
  return uuidv5(`${replyId}\n${toolCallId}`, APPROVAL_NAMESPACE);
}

const CONTINUATION_NAMESPACE = "9e4a1b7c-2f3d-4e8a-b5c6-d7e8f9a0b1c2";

/** The turn that goes on with a reply after a round of decisions, in the durable run of the turn that asked: the same on every replay. */
export function continuationTurnId(turnId: string, round: number): string {
  return uuidv5(`${turnId}\n${round}`, CONTINUATION_NAMESPACE);
}

export interface LoadDecisionInput {
  /** The thread id came from the client (not created or generated in this turn). */
  clientThreadId: boolean;
  /** The client sent its own copy of the history (even an empty one). */
  clientSentHistory: boolean;
  /** createThread reported that the thread did not exist before this turn. */
  createdThisTurn: boolean;
  hasGet: boolean;
}

/** `get` runs only for a client-given thread, without client history, that existed before. */
export function shouldLoadHistory(input: LoadDecisionInput): boolean {
  return input.hasGet && input.clientThreadId && !input.clientSentHistory && !input.createdThisTurn;
}

export function historySource(input: { clientSentHistory: boolean; createdThisTurn: boolean; clientThreadId: boolean }): HistorySource {
  if (input.clientSentHistory) return "client";
  if (!input.clientThreadId || input.createdThisTurn) return "new";
  return "database";
}

/**
 * The model's input: the thread's latest summary (if it was compacted), the
 * earlier messages, then the new one, exactly once. A client that already put
 * the new message into its history copy (or a database read that already sees
 * it) must not make the model read it twice.
 */
export function buildModelMessages(
  history: ThreadMessage[],
  message: UserMessage,
  policy: HistoryPolicy = { policy: "all", length: 0 },
  summary?: ThreadMessage,
  /** What each attached file becomes (its contents, read by the turn); unset, a line names it. */
  fileInput?: FileInput,
): ModelMessage[] {
  return toModelMessages(applyHistoryPolicy(conversationWith(history, message, summary), policy), summaryForModel, fileInput);
}

/**
 * The thread as the model could read it: the latest summary, the earlier
 * messages, then the new one, once. Other system messages (older summaries a
 * client's copy may hold) are left out: the latest one stands for them.
 */
export function conversationWith(history: ThreadMessage[], message: UserMessage, summary?: ThreadMessage): ThreadMessage[] {
  return [
    ...(summary ? [summary] : []),
    ...history.filter((m) => m.id !== message.id && m.role !== "system"),
    userMessage(message.id, message.content, message.files),
  ];
}

/**
 * How much of the thread a turn must read for the widest of its agents'
 * policies: `undefined` for all of it, else the last N user messages (the new
 * one counted) and what follows each.
 */
export function widestWindow(policies: HistoryPolicy[]): number | undefined {
  let widest = 1;
  for (const { policy, length } of policies) {
    if (policy === "all") return undefined;
    if (policy === "lastN") widest = Math.max(widest, length, 1);
  }
  return widest;
}

/**
 * Whether the client's (signed, unbroken) copy holds everything the window
 * needs: it must end right before the new message (so it is not a stale copy
 * missing the latest turns) and reach back far enough: to where the model's
 * reading starts (the thread's first message, or the first after the latest
 * summary) or to the window's first user message. Without the new message's
 * seq (an adapter that does not number messages) only the start can be checked.
 */
export function clientHistoryCovers(args: {
  history: (ThreadMessage & { seq: number; parentId?: string | null })[];
  /** The seq of the user's new message, when the adapter gives it. */
  userSeq?: number;
  /** The message the new one follows (null: it starts the thread), when the adapter keeps versions. */
  userParentId?: string | null;
  window: number | undefined;
  /** The first seq the model reads: 1, or the one after what the latest summary stands for. */
  fromSeq?: number;
  seqAfter: (message: ThreadMessage & { seq: number }) => number;
}): boolean {
  const { history, userSeq, userParentId, window, seqAfter, fromSeq = 1 } = args;
  // Nothing before the new message: enough when the thread has nothing else, or the window is the new message alone.
  if (history.length === 0) return userSeq === undefined || userParentId === null || userSeq === fromSeq || window === 1;
  const last = history[history.length - 1];
  // On a path with versions beside it the seqs leave gaps: the new message's parent says what comes right before it.
  if (userParentId !== undefined ? last.id !== userParentId : userSeq !== undefined && seqAfter(last) !== userSeq) return false;
  if (history[0].seq <= fromSeq || history[0].parentId === null) return true;
  if (window === undefined) return false;
  const users = history.filter((m) => m.role === "user").length + 1;
  return users >= window;
}
