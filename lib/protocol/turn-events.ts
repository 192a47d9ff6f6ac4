// The contract between the app and its durable functions: the event that
// starts a turn, the realtime messages the run publishes, and the event that
// asks for a thread's compaction. Isomorphic: only types and constants,
// shared by the runtimes (which send and subscribe) and inngest/functions
// (which run and publish).
import type { UIMessageChunk } from "ai";
import type { ThreadMessage, UserMessage } from "@threadline/history/parts";
import type { HistoryPolicy } from "./history-policy";
import type { ThreadOrigin } from "@threadline/history/thread-source";

export const CHAT_TURN_EVENT = "threadline/chat.turn";

/** What a turn is given: the runtimes' input, and the heart of the chat-turn event. */
export interface TurnInput {
  owner: string;
  /** This turn's id: stable across a durable run's retries, new for every request; names the realtime channel. */
  turnId: string;
  /** The thread the client named, if any. */
  threadId?: string;
  message: UserMessage;
  /** The client's copy of the earlier messages (verified by the route, with their seqs); undefined when it sent none. */
  clientHistory?: (ThreadMessage & { seq: number })[];
  /** The history policy the page's URL asked for; the operator's setting wins over it. */
  historyPolicy?: Partial<HistoryPolicy>;
  /** A new version of this message of the thread: a reply (regenerate `message`'s answer) or a user's message (edit it into `message`). */
  replaces?: string;
  /** Where the thread comes from if this turn makes it (packages/history/src/thread-source.ts); unset: the chat page. */
  origin?: ThreadOrigin;
  /** The user's IANA time zone, as their page said (the tools read it); unset: UTC. */
  timeZone?: string;
  /** The model picked to answer (`provider:model`, one on offer); unset: the default. */
  model?: string;
  /** A temporary chat's first message: the thread it starts neither reads nor writes memory. Ignored for a later message. */
  temporary?: boolean;
}

/** The chat-turn event: the turn, and what Inngest and the function need to run it. */
export interface ChatTurnEventData extends TurnInput {
  /** The thread, or for a new thread the turn: one running turn per key. */
  concurrencyKey: string;
  /** This app's signature over the turn (lib/auth/turn-authorization.ts); an event without it is refused. */
  authorization: string;
}

/** A chunk of the turn's UI message stream, tagged with the step and the attempt of it that produced it. */
export interface TurnChunkMessage {
  attempt: number;
  /** The durable step that published it; none for chunks published once, outside the steps that stream. */
  step?: string;
  chunk: UIMessageChunk;
}

/** One realtime message of a turn: the chunks published since the previous one, in order. */
export interface TurnChunkBatch {
  messages: TurnChunkMessage[];
}

/** Why a turn ended before it streamed anything (404, 409, …): the route answers with it. */
export interface TurnRefusal {
  code: string;
  message: string;
}

/**
 * Sent when a waiting reply's wait may be over: a decision left it no
 * undecided call, or a new message or Stop ended it. The chat-turn run that
 * asked wakes (it waits for its reply's id) and asks the database whether it
 * may go on, so a forged or repeated event only makes it look sooner.
 */
export const REPLY_DECIDED_EVENT = "threadline/reply.decided";

export interface ReplyDecidedEventData {
  owner: string;
  threadId: string;
  replyId: string;
}

/** Sent when an agent has scheduled a reminder: a run sleeps until it is due, then posts it (inngest/functions/post-reminder.ts). */
export const REMINDER_SCHEDULED_EVENT = "threadline/reminder.scheduled";

/** The reminder only: the run reads it from the database when due, so a cancelled or deleted one posts nothing. */
export interface ReminderScheduledEventData {
  id: string;
  /** ISO 8601: when the run wakes. */
  dueAt: string;
}

/** Sent by a turn whose thread has grown past the compaction threshold. */
export const THREAD_COMPACT_EVENT = "threadline/thread.compact";

/** Learn memories from a reply, once it is stored (lib/memory/learning.ts). */
export const MEMORY_LESSON_EVENT = "threadline/memory.lesson";

export interface MemoryLessonEventData {
  owner: string;
  threadId: string;
  replyId: string;
  /** This app's signature over the three (lib/auth/turn-authorization.ts). */
  authorization: string;
}

/**
 * Names the thread only. The function decides from the database whether and
 * what to compact, so a repeated event can do no more than a compaction that
 * was due anyway; one this app did not sign is refused before any work.
 */
export interface ThreadCompactEventData {
  owner: string;
  threadId: string;
  /** This app's signature over the owner and the thread (lib/auth/turn-authorization.ts). */
  authorization: string;
}
