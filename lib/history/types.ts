// The history adapter contract. Every hook is optional; the turn runner
// (lib/agent/turn.ts) calls them in this order:
//
// | hook              | when                                                        | must |
// |-------------------|-------------------------------------------------------------|------|
// | createThread      | start of every turn                                         | no threadId: create one; a threadId: upsert it |
// | appendUserMessage | once the thread exists, before any agent runs               | store the message at once, idempotent on its id |
// | get               | client-given thread, no client history, not created now     | the history in order; unknown thread → [] |
// | appendResults     | after the run (also after Stop: what was produced)          | only this run's reply, in one transaction |
import type { ReplyStatus, StoredMessage } from "./codec";
import type { ThreadMessage } from "@/lib/protocol/parts";

export type { Role, ThreadMessage } from "@/lib/protocol/parts";
export type { ReplyStatus, StoredMessage } from "./codec";

/** The user's new message as the client sent it. */
export interface UserMessage {
  /** The client's id for this message: the idempotency key. */
  id: string;
  role: "user";
  content: string;
}

/** What one run produced: one assistant message, its parts in the order they were produced. */
export interface Reply extends ThreadMessage {
  role: "assistant";
  status: ReplyStatus;
}

/** One message of a thread's history, as the server serves it. */
export interface HistoryMessage extends StoredMessage {
  /** The server's signature (lib/auth/history-signature.ts): the client sends it back with its copy. */
  signature?: string;
}

export interface ThreadScope {
  /** The identity the turn runs for; adapters must never touch another owner's thread. */
  owner: string;
}

export interface HistoryConfig {
  /** No threadId: create a thread. A threadId: upsert it. Must refuse another owner's thread. */
  createThread?(ctx: ThreadScope & { threadId?: string }): Promise<{ threadId: string; created: boolean; /** Messages it held before this turn. */ messages?: number }>;
  /**
   * The thread's history in order; an unknown thread gives [], never an error.
   * With `lastUserMessages`, only the last that many user messages and
   * everything after each (what a lastN history policy reads).
   */
  get?(ctx: ThreadScope & { threadId: string; lastUserMessages?: number }): Promise<StoredMessage[]>;
  /**
   * Store the user's message at once; the same message id twice stores it once.
   * `duplicate` is true only when another turn stored it: a retry of the same
   * turn (same turnId) finds its own row and goes on.
   */
  appendUserMessage?(ctx: ThreadScope & { threadId: string; turnId: string; message: UserMessage }): Promise<{ duplicate: boolean; seq?: number }>;
  /** Store only this run's reply (every part of it), in one transaction; `seq` is its first part's. */
  appendResults?(ctx: ThreadScope & { threadId: string; reply: Reply }): Promise<{ seq?: number } | void>;
}
