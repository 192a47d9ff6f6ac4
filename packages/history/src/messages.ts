// A thread's message as the history stores and reads it back: where it sits
// (seq, the message it follows) and how its reply ended. Isomorphic: types only.
import type { ThreadMessage } from "./parts";

/**
 * complete; stopped by the user; incomplete: the model's stream broke off, and
 * this is what it had written; waiting: a tool call in it waits for the user's
 * approval, and the reply goes on once they decide.
 */
export type ReplyStatus = "complete" | "stopped" | "incomplete" | "waiting";

/** A message as the server stored it. */
export interface StoredMessage extends ThreadMessage {
  /** The seq of its first part: where it sits in the thread. */
  seq: number;
  /** The message it follows on its path (null: it starts the thread); absent where the store keeps no versions. */
  parentId?: string | null;
  createdAt: string;
  /** "stopped" (the user pressed Stop) or "incomplete" (the model broke off): the parts are what was produced so far. */
  status: ReplyStatus;
  /** A reply: the model that wrote it (`provider:model`), where the store recorded one. */
  model?: string;
  /** Posted by a reminder when it came due: it answers no message, so there is nothing to regenerate. */
  reminder?: true;
}

/** A message on the active path that has other versions: its siblings (itself among them), oldest first. */
export interface MessageVersions {
  messageId: string;
  /** Ids of every version, in the order they were written. */
  versions: string[];
  /** 1-based place of `messageId` among `versions` ("2 / 3"). */
  position: number;
}
