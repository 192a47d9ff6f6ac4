// The history lifecycle as small pure rules, one per row of the table in
// lib/history/types.ts. The turn runner (turn.ts) only sequences them.

import type { ModelMessage } from "ai";
import { toModelMessages } from "@/lib/history/codec";
import type { HistoryConfig, ThreadMessage, UserMessage } from "@/lib/history/types";
import { userMessage } from "@/lib/protocol/parts";
import { applyHistoryPolicy, type HistoryPolicy } from "@/lib/protocol/history-policy";

export type { HistorySource } from "@/lib/protocol/chat";
import type { HistorySource } from "@/lib/protocol/chat";

export type ThreadResolution =
  | { kind: "upsert"; threadId: string } // client id + createThread
  | { kind: "use-given"; threadId: string } // client id, no createThread
  | { kind: "create" } // no id + createThread
  | { kind: "generate" } // no id, no createThread, but get
  | { kind: "none" }; // no id and nothing to store it with

export function resolveThread(threadId: string | undefined, history: HistoryConfig): ThreadResolution {
  if (threadId) return history.createThread ? { kind: "upsert", threadId } : { kind: "use-given", threadId };
  if (history.createThread) return { kind: "create" };
  if (history.get) return { kind: "generate" };
  return { kind: "none" };
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
 * The model's input: earlier messages, then the new one, exactly once. A
 * client that already put the new message into its history copy (or a
 * database read that already sees it) must not make the model read it twice.
 */
export function buildModelMessages(history: ThreadMessage[], message: UserMessage, policy: HistoryPolicy = { policy: "all", length: 0 }): ModelMessage[] {
  return toModelMessages(applyHistoryPolicy(conversationWith(history, message), policy));
}

/** The thread as the model could read it: the earlier messages, then the new one, once. */
export function conversationWith(history: ThreadMessage[], message: UserMessage): ThreadMessage[] {
  return [...history.filter((m) => m.id !== message.id), userMessage(message.id, message.content)];
}
