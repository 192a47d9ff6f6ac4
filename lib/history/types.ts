// The history adapter contract. Every hook is optional; the turn runner
// (lib/agent/turn.ts) calls them in the order DESIGN.md's lifecycle table gives.

export type Role = "user" | "assistant";

export interface UserMessage {
  /** The client's id for this message: the idempotency key. */
  id: string;
  role: "user";
  content: string;
}

export interface AgentResult {
  /** Also the id of the assistant message the client sees while it streams. */
  id: string;
  role: "assistant";
  agentName: string;
  content: string;
  /** "stopped" when the user pressed Stop: the text is what was written so far. */
  status: "complete" | "stopped";
}

/** What the model needs of an earlier message. */
export interface ConversationMessage {
  id: string;
  role: Role;
  content: string;
}

/** One message of a thread's history, in the shape GET /api/threads/:id/history returns. */
export interface HistoryMessage extends ConversationMessage {
  createdAt: string;
  /** The server's signature (lib/auth/history-signature.ts): the client sends it back with its copy. */
  signature?: string;
}

export interface ThreadScope {
  /** The identity the turn runs for; adapters must never touch another owner's thread. */
  owner: string;
}

export interface HistoryConfig {
  /** No threadId: create a thread. A threadId: upsert it. Must refuse another owner's thread. */
  createThread?(ctx: ThreadScope & { threadId?: string }): Promise<{ threadId: string; created: boolean }>;
  /** The thread's history in order; an unknown thread gives [], never an error. */
  get?(ctx: ThreadScope & { threadId: string }): Promise<HistoryMessage[]>;
  /**
   * Store the user's message at once; the same message id twice stores it once.
   * `duplicate` is true only when another turn stored it: a retry of the same
   * turn (same turnId) finds its own row and goes on.
   */
  appendUserMessage?(ctx: ThreadScope & { threadId: string; turnId: string; message: UserMessage }): Promise<{ duplicate: boolean }>;
  /** Store only this turn's results, all in one transaction. */
  appendResults?(ctx: ThreadScope & { threadId: string; results: AgentResult[] }): Promise<void>;
}
