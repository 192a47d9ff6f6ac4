// What the chat page draws about its thread besides the messages, as one
// reducer: every change is an event, so no handler depends on another being
// declared first, and each rule can be tested without a browser.
import type { ChatStatus } from "@/lib/client/chat-engine";
import type { HistoryMessage } from "@/lib/protocol/threads";
import type { ChatDataParts, ChatMessage, HistorySource, PendingTurn } from "@/lib/protocol/chat";
import { isUnanswered, messageText, toChatMessage, type DataPart } from "@/lib/client/messages";
import type { RetriedReply } from "@/lib/client/retried-parts";
import { fromUIParts } from "@/lib/protocol/parts-codec";
import { filesOf } from "@threadline/history/parts-plain";
import type { FilePart } from "@threadline/history/parts";

/** What the turn is doing: waiting for the first chunk, streaming, or nothing. The page is busy unless idle. */
export type TurnPhase = "submitted" | "streaming" | "idle";

export function turnPhase(status: ChatStatus): TurnPhase {
  return status === "submitted" || status === "streaming" ? status : "idle";
}

export interface ThreadChatState {
  /** What the turn does before its reply starts (summarizing earlier messages), until it does. */
  notice: string | null;
  /** Retries of the reply being streamed (durable runtime), until the thread holds the reply without them. */
  retried: RetriedReply;
  stoppedReplyIds: ReadonlySet<string>;
  /** Counts the user's sends (and asks again): the list then jumps to the end. */
  sendCount: number;
  /** The page was rendered with a turn that had been interrupted, and nothing was asked since. */
  interrupted: boolean;
  /** Stop was pressed and the turn has not ended yet. */
  stopping: boolean;
  /** ?debug=true: the history setting in force and what the model was given. */
  history: { report: ChatDataParts["history"] | null; source: HistorySource | null };
  /** Earlier messages: where the next page begins (null: the start is shown). */
  older: { cursor: string | null; loading: boolean; error: string | null };
}

export type ThreadChatEvent =
  | { type: "asked" }
  | { type: "data"; part: DataPart }
  | { type: "stopping" }
  | { type: "reply-ended"; replyId: string; stopped: boolean }
  | { type: "retries-settled" }
  | { type: "older-loading" }
  | { type: "older-loaded"; cursor: string | null }
  | { type: "older-failed"; error: string }
  | { type: "redrawn"; olderCursor: string | null };

const NO_RETRIES: RetriedReply = { notices: [], replyId: null };

export function initialThreadChatState({ olderCursor, interrupted }: { olderCursor: string | null; interrupted: boolean }): ThreadChatState {
  return {
    notice: null,
    retried: NO_RETRIES,
    stoppedReplyIds: new Set(),
    sendCount: 0,
    interrupted,
    stopping: false,
    history: { report: null, source: null },
    older: { cursor: olderCursor, loading: false, error: null },
  };
}

export function threadChatReducer(state: ThreadChatState, event: ThreadChatEvent): ThreadChatState {
  switch (event.type) {
    case "asked":
      return { ...state, stopping: false, interrupted: false, retried: NO_RETRIES, sendCount: state.sendCount + 1 };
    case "data":
      return withDataPart(state, event.part);
    case "stopping":
      return { ...state, stopping: true };
    case "reply-ended": {
      const retried = state.retried.notices.length > 0 ? { ...state.retried, replyId: event.replyId } : state.retried;
      const stoppedReplyIds = event.stopped ? new Set(state.stoppedReplyIds).add(event.replyId) : state.stoppedReplyIds;
      return { ...state, stopping: false, notice: null, retried, stoppedReplyIds };
    }
    case "retries-settled":
      return { ...state, retried: NO_RETRIES };
    case "older-loading":
      return { ...state, older: { ...state.older, loading: true, error: null } };
    case "older-loaded":
      return { ...state, older: { cursor: event.cursor, loading: false, error: null } };
    case "older-failed":
      return { ...state, older: { ...state.older, loading: false, error: event.error } };
    case "redrawn":
      // Another version's path, from its latest page: what was said about the old path no longer applies.
      return { ...state, notice: null, interrupted: false, retried: NO_RETRIES, older: { cursor: event.olderCursor, loading: false, error: null } };
  }
}

function withDataPart(state: ThreadChatState, part: DataPart): ThreadChatState {
  switch (part.type) {
    case "data-thread":
      return { ...state, history: { ...state.history, source: part.data.historySource } };
    case "data-notice":
      return { ...state, notice: part.data.text };
    case "data-history":
      return { ...state, notice: null, history: { ...state.history, report: part.data } };
    case "data-retry":
      return { ...state, retried: { notices: [...state.retried.notices, part.data], replyId: null } };
    default:
      return state;
  }
}

/** The state of the page's last message when its turn had not finished well as the page was rendered, else null. */
export function unansweredTurn(history: HistoryMessage[], pendingTurn: PendingTurn | null): PendingTurn["state"] | null {
  const last = history.at(-1);
  return last?.role === "user" && last.id === pendingTurn?.messageId ? pendingTurn.state : null;
}

/**
 * Whether the page was rendered while a reply that waited for the user's
 * decision goes on: the thread ends with it, still stored as waiting, and the
 * turn of the user's message it answers runs again. The page follows it.
 */
export function continuingTurn(history: HistoryMessage[], pendingTurn: PendingTurn | null): boolean {
  const last = history.at(-1);
  if (last?.role !== "assistant" || last.status !== "waiting" || pendingTurn?.state !== "running") return false;
  return (last.parentId ?? history.at(-2)?.id) === pendingTurn.messageId;
}

/** A page of earlier messages put before the thread; a message the thread already holds is not added twice. */
export function withOlderMessages(messages: ChatMessage[], page: HistoryMessage[]): ChatMessage[] {
  const known = new Set(messages.map((m) => m.id));
  return [...page.filter((m) => !known.has(m.id)).map(toChatMessage), ...messages];
}

/** The message a URL's hash (as location.hash has it, "#" first) points at: #message-<id>, a search result. */
export function messageIdFromHash(hash: string): string | null {
  const target = decodeURIComponent(hash.slice(1));
  return target.startsWith("message-") ? target.slice("message-".length) : null;
}

/**
 * What Retry does after a failed turn: ask again for an unanswered message (no
 * second copy of it), or, after a reply that broke off, send the last message's
 * text anew as a new message. null: there is nothing to retry.
 */
export function retryOf(messages: ChatMessage[]): { askAgain: true } | { send: string; files: FilePart[] } | null {
  if (isUnanswered(messages)) return { askAgain: true };
  const lastUserMessage = messages.findLast((m) => m.role === "user");
  return lastUserMessage ? { send: messageText(lastUserMessage), files: filesOf({ parts: fromUIParts(lastUserMessage.parts) }) } : null;
}
