// What a turn is given, what it depends on, and what it gives back: the
// contract between the turn runner (turn.ts), its helpers and the runtimes.
import type { TurnHistory, Reply } from "@threadline/history/contract";
import type { HistorySigner } from "@/lib/auth/history-signature";
import type { TurnInput } from "@/lib/protocol/turn-events";
import type { HistorySource } from "./lifecycle";
import type { Network } from "../network/network";
import type { StepRunner } from "./steps";
import type { ThreadToName } from "../title";
import type { Publish } from "./stream-chunks";

// The input is part of the protocol: the chat-turn event carries it.
export type { TurnInput };

export interface TurnDeps {
  history: TurnHistory;
  network: Network;
  publish: Publish;
  signal?: AbortSignal;
  /**
   * The request that asked for the turn: a turn that waits for another one
   * answering its message (a resend) stops waiting when its client hangs up.
   * The turn itself is not tied to it (closing the tab does not stop a reply).
   */
  requestSignal?: AbortSignal;
  step?: StepRunner;
  /** Called once the thread is known and the user's message is stored, before any model call. */
  onReady?: (ready: {
    threadId: string;
    historySource: HistorySource;
    /** Answered from what another turn stored: nothing runs. */
    replayed?: boolean;
  }) => void;
  /** Called when the turn waits for another turn answering its message, before it is ready (a runtime may answer the client meanwhile). */
  onWaiting?: (waiting: { threadId: string }) => void;
  generateId?: () => string;
  /** The clock a reply's parts are timed by (how long reasoning took); Date.now unless a test fixes it. */
  now?: () => number;
  /** How long a token delta waits for company (lib/agent/model/coalesce.ts); a test may fix it. */
  coalesceWindowMs?: number;
  /** Signs the messages this turn stores, so the client may send them back as trusted history. */
  signer?: HistorySigner;
  /** The runtime retries a failed step (durable): a model call that breaks off is retried, not kept as it was. */
  retriesSteps?: boolean;
  /** How long storing the reply keeps trying while the database is unreachable. */
  saveRetryMs?: number;
  /**
   * How long this turn's claim on its message lasts unless renewed; the turn
   * renews it while it runs. Unset: held until the turn finishes (a durable
   * run finishes what it starts).
   */
  leaseMs?: number;
}

export interface TurnOutcome {
  threadId: string;
  historySource: HistorySource;
  /** incomplete: the model broke off (or the turn ran out of time) and what it wrote was kept. */
  status: "complete" | "stopped" | "incomplete" | "waiting" | "failed";
  /** What the turn produced and stored (possibly nothing). */
  reply?: Reply;
  error?: Error;
  /** The thread has grown past the network's compaction threshold: compact it before the next turn. */
  compact: boolean;
  /** The thread is named by the model now that the turn is over (lib/agent/title.ts). */
  title?: ThreadToName;
  /** A reply that waited for the user's approval, which this turn's message ended (a durable run waiting for it is woken). */
  settledReply?: string;
}
