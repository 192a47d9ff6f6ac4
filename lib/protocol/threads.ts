// What the thread and search API answers (GET /api/threads, /api/threads/:id
// and its messages, history and timeline, GET /api/search), in one place for
// the routes that send it and the browser that reads it. Isomorphic: types and
// constants only. The cursors in these pages are lib/protocol/cursors.ts's.
import type { Feedback } from "./feedback";
import type { Part, Role } from "@threadline/history/parts";
import type { MessageVersions, StoredMessage } from "@threadline/history/messages";
import type { ThreadOrigin } from "@threadline/history/thread-source";

// A stored message and its versions travel as the history keeps them.
export type { MessageVersions, ReplyStatus, StoredMessage } from "@threadline/history/messages";

/** A thread as the sidebar lists it, with where it came from (packages/history/src/thread-source.ts). */
export interface ThreadSummary extends ThreadOrigin {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  /** The model its latest reply was written with (`provider:model`); null before its first. The page's picker starts from it. */
  model: string | null;
}

/**
 * One thread: GET and PATCH /api/threads/:id, and the new thread of
 * POST /api/threads/:id/fork (body ForkThreadRequest) and POST /api/threads/import (201).
 */
export interface ThreadResponse {
  thread: ThreadSummary;
}

/** POST /api/threads/:id/fork: the message the fork ends with, which must be on the thread's active path. */
export interface ForkThreadRequest {
  messageId: string;
}

/** A thread as GET /api/threads lists it: the summary, and what the sidebar marks on it. */
export interface ThreadListItem extends ThreadSummary {
  /** A reply is being written now (its turn runs, on any server). */
  hasActiveGeneration: boolean;
  /** When the owner last opened the thread or saw a reply end in it (POST /api/threads/:id/read), else when it was made. */
  lastReadAt: string | null;
  /** When the thread's latest message was stored, if it is a reply; null while the latest is the user's (no answer yet, or it failed). */
  lastReplyAt: string | null;
  /** That reply is newer than lastReadAt: the owner has not seen it. */
  unseen: boolean;
  /** The thread's reminders still to come, soonest first: the first few (LISTED_REMINDERS) of reminderCount. */
  reminders: ListedReminder[];
  reminderCount: number;
  /** A temporary chat: its turns neither read nor write memory (unset: an ordinary thread). */
  temporary?: true;
}

/** A reminder as the sidebar lists it under its thread. */
export interface ListedReminder {
  id: string;
  text: string;
  dueAt: string;
}

/** How many of a thread's reminders the list carries; the rest are counted. */
export const LISTED_REMINDERS = 3;

/** GET /api/threads: the owner's threads, most recent activity first, and where the next page starts. */
export interface ThreadPage {
  threads: ThreadListItem[];
  nextCursor: string | null;
}

/** POST /api/threads/:id/read: the thread counts as read up to this moment (the server's clock). */
export interface ThreadRead {
  lastReadAt: string;
}

/**
 * GET /api/threads/events (server-sent events, `data: <ThreadNews>`): one
 * event per change to the owner's threads, saying which; the client reads
 * the list again. Heartbeat comments (`: …`) keep idle connections open.
 */
export interface ThreadNews {
  type: "threads";
  /** The thread that changed, when the server knows it. */
  threadId?: string;
}

/** One message of a thread's history, as the server serves it. */
export interface HistoryMessage extends StoredMessage {
  /** The server's signature (lib/auth/history-signature.ts): the client sends it back with its copy. */
  signature?: string;
  /** A reply that waits for several decisions: those made so far, by approval id (the rest still wait). Not signed: no part of the message. */
  decided?: DecidedSoFar;
  /** A reply that was given memories: their ids, in the order the model read them. Not signed: no part of the message. */
  memoriesUsed?: string[];
}

/** The decisions made so far on a waiting reply's calls, by approval id. */
export type DecidedSoFar = Record<string, { approved: boolean; reason?: string }>;

/** How many messages a page of a thread holds, unless the request says. */
export const MESSAGES_PAGE = 50;

/** GET /api/threads/:id/messages: a page of the thread, oldest first, and the cursor of the page before it (null at the start). */
export interface MessagesPage {
  messages: HistoryMessage[];
  nextCursor: string | null;
}

/** GET /api/threads/:id/versions: every message of the active path that has other versions, in path order. */
export interface VersionsPage {
  versions: MessageVersions[];
}

/**
 * POST /api/threads/:id/versions {messageId}: the version is on the active
 * path; the thread's versions and its latest page (as GET messages gives it)
 * after the switch, so a client redraws the new path in one round trip.
 */
export interface SelectedVersion extends VersionsPage, MessagesPage {}

/** One entry of the flat view (GET /api/threads/:id/history): a message's user or assistant text. */
export interface FlatMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  createdAt: string;
}

/**
 * Something that happened to one of the thread's documents, as the timeline
 * tells it after the message it belongs with: "Researcher revised Plan (v3)",
 * "You revised Plan (v4)".
 */
export interface DocumentTimelineEvent {
  type: "document-event";
  documentId: string;
  title: string;
  version: number;
  /** The agent that wrote the version, or "you". */
  author: string;
  action: "created" | "revised";
  text: string;
}

/** One part of the thread as GET /api/threads/:id/timeline serves it, or an event of one of its documents. */
/** `feedback`: what the owner thought of the reply the part belongs to. */
export type TimelineEntry = (Part | DocumentTimelineEvent) & {
  id: string;
  messageId: string;
  role: Role;
  createdAt: string;
  callId?: string;
  model?: string;
  feedback?: Feedback;
  /** The memories the reply this part belongs to was given, by id. */
  memoriesUsed?: string[];
};

/** A thread that matches a search, with where it matched. */
export interface SearchResult {
  threadId: string;
  title: string;
  /** The best-matching message, when the match is in what was said (not only the title). */
  messageId?: string;
  snippet: string;
  /** [start, end) offsets in `snippet` of each matched word. */
  highlights: [number, number][];
  updatedAt: string;
}

/** GET /api/search: results best first, and where the next page starts. */
export interface SearchPage {
  results: SearchResult[];
  nextCursor: string | null;
}
