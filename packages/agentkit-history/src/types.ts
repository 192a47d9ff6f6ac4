// The package's public types, written here in terms of its own and its peers'
// types only: dist/index.d.ts is declared from this file, so an AgentKit app
// never sees (or needs) the Threadline app's sources behind the package.
import type { HistoryConfig, State, StateData } from "@inngest/agent-kit";

export interface AgentKitHistoryOptions<T extends StateData = StateData> {
  /**
   * Whose threads the network reads and writes: a user's id, or how to find it
   * in the run's state. Another owner's thread is not found.
   */
  owner: string | ((ctx: { state: State<T> }) => string);
  /**
   * The network's own id for a conversation, and what it says about it (a JSON
   * object of at most 4,096 characters), kept by a thread the network makes:
   * Threadline lists it as from "agentkit" with these. A thread that exists
   * keeps what it has.
   */
  sourceId?: string | ((ctx: { state: State<T> }) => string | undefined);
  sourceMetadata?: Record<string, unknown> | ((ctx: { state: State<T> }) => Record<string, unknown> | undefined);
}

/** An AgentKit history whose four hooks are all present. */
export type AgentKitHistory<T extends StateData = StateData> = Required<HistoryConfig<T>>;

/**
 * How a hook refuses: "not_found:thread" (no such thread for this owner, or an
 * id that cannot be one) or "conflict:duplicate_message" (a user message id the
 * thread already holds: it is stored once and not answered again). Under
 * Inngest it is the `cause` of the NonRetriableError the step fails with.
 */
export interface ThreadlineError extends Error {
  name: "AppError";
  code: `${string}:${string}`;
  /** The HTTP status the Threadline app answers it with. */
  status: number;
}

export interface MigrateOptions {
  log?: (message: string) => void;
  /** How long to wait for another process's migration run to finish (default 60 s). */
  lockWaitMs?: number;
}
