import "server-only";
import { randomUUID } from "node:crypto";
import { compactThread } from "@/lib/agent/compaction";
import { runNow } from "@/lib/agent/turn/steps";
import { nameThread, type ThreadToName } from "@/lib/agent/title";
import { runTurn, type TurnDeps, type TurnInput } from "@/lib/agent/turn/turn";
import { historySigner } from "@/lib/auth/history-signature";
import type { SessionSecret } from "@/lib/auth/secret";
import type { Network } from "@/lib/agent/network/network";
import type { ApprovalStore, TurnHistory } from "@threadline/history/contract";
import { continueTurn } from "@/lib/agent/turn/continue-turn";
import type { UIMessageChunk } from "ai";
import { AppError } from "@threadline/history/errors";
import { dataChunk, WAITING_NOTICE } from "@/lib/protocol/chat";
import type { ProgressWriter, TurnProgress } from "../live/progress-writer";
import type { ActiveTurns } from "./active-turns";
import { TurnChannel } from "./turn-channel";
import type { TurnStops } from "./turn-stops";
import type { StartedTurn, TurnRuntime } from "./types";

export const DEFAULT_TURN_LEASE_MS = 30_000;
const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 3_600_000;

/**
 * Runs each turn in this process, detached from the request: closing the tab
 * does not stop it, Stop does (from any process: ./turn-stops.ts). One turn
 * per thread at a time: this process's ActiveTurns refuses a second at once,
 * the database refuses it whatever process runs the first.
 * A thread that needs compacting is compacted, and a new thread named, after
 * its turn has ended and released the thread, so neither this reply nor the
 * next message waits.
 */
export class InlineRuntime implements TurnRuntime {
  readonly name = "inline";
  /** Threads being compacted now: a second request for one of them would only find nothing to do. */
  private readonly compacting = new Set<string>();
  constructor(
    private readonly deps: {
      history: () => TurnHistory;
      /** Where tool calls wait for the user's approval; unset: no call waits here, so none goes on. */
      approvals?: () => ApprovalStore;
      network: () => Network;
      /** How long a tool call waits for the user's decision (TOOL_APPROVAL_TIMEOUT_HOURS); 24 hours unless set. */
      approvalTimeoutMs?: number;
      /** Signs the history the turn stores, for the client to send back. */
      sessionSecret: SessionSecret;
      /**
       * How long a turn's claim on its message lasts unless renewed (it is
       * renewed a third of the way): if this process dies, the message may be
       * answered again once the claim has run out, or at once where the
       * database sees the process's session end (lib/db/runner-lock.ts).
       */
      leaseMs?: number;
      /** How long a finished reply keeps trying to be stored while the database is away. */
      saveRetryMs?: number;
      /** Where the turn's stream is kept while it runs, for a client that joins late; unset: nowhere. */
      turnProgress?: () => TurnProgress;
      /** Told of each reply stored complete, once the turn is over: its lesson (lib/memory/) learns from it. Unset: none does. */
      learn?: (lesson: { owner: string; threadId: string; replyId: string }) => void;
      /** Ids, clock and delta window a test fixes, so a turn's bytes are the same every run. */
      turnOptions?: Pick<TurnDeps, "generateId" | "now" | "coalesceWindowMs">;
    },
    private readonly active: ActiveTurns,
    private readonly stops: TurnStops,
  ) {}

  start(request: Omit<TurnInput, "turnId">, options: { signal?: AbortSignal } = {}): Promise<StartedTurn> {
    const input: TurnInput = { ...request, turnId: randomUUID() };
    const controller = new AbortController();
    const channel = new TurnChannel();
    const claim = (threadId: string) => (this.active.claim(threadId, input.owner, controller, input.turnId, input.message.id) ? threadId : undefined);
    // Claimed before any await, so two requests for one thread cannot both pass.
    let claimed = input.threadId ? claim(input.threadId) : undefined;
    let asked = Boolean(input.threadId);
    // Known once the turn runs (a replay of another turn's reply keeps none).
    let progress: ProgressWriter | undefined;
    const publish = (chunk: UIMessageChunk): void => {
      channel.publish(chunk);
      progress?.push({ attempt: 0, chunk });
    };

    return new Promise<StartedTurn>((resolve, reject) => {
      let ready = false;
      this.deps
        .sessionSecret()
        .then((secret) =>
          runTurn(input, {
            ...this.turnDeps(secret, input.owner, publish, controller.signal),
            requestSignal: options.signal,
            onWaiting: ({ threadId }) => {
              if (ready) return;
              ready = true;
              channel.publish(dataChunk("notice", { text: WAITING_NOTICE }));
              resolve({ threadId, stream: channel.readable() });
            },
            onReady: ({ threadId, historySource, replayed }) => {
              // A replay runs nothing: there is nothing to hold or to stop.
              if (!asked && !replayed) {
                claimed = claim(threadId);
                asked = true;
              }
              if (!replayed) progress = this.deps.turnProgress?.().writer(input.turnId);
              if (ready) return;
              ready = true;
              resolve({ threadId, historySource, stream: channel.readable() });
            },
          }),
        )
        .then((outcome) => {
          if (outcome.error) console.error(`[turn ${outcome.threadId}] failed:`, outcome.error);
          return outcome;
        })
        .catch((error) => {
          if (!ready) return reject(error);
          // A refusal after the client was told its message waits (it waited too long) is told as it is.
          if (error instanceof AppError) return publish({ type: "error", errorText: error.message });
          console.error("[turn] failed after the stream started:", error);
          publish({ type: "error", errorText: "The server failed while answering. Please try again." });
        })
        .finally(() => {
          channel.close();
          void progress?.end();
          if (claimed) this.active.release(claimed, controller);
        })
        .then((outcome) => {
          // Once the stream has ended and the thread is free: neither waits on these model calls.
          if (outcome?.title) this.nameLater(outcome.title);
          if (outcome?.compact) this.compactLater(input.owner, outcome.threadId);
          if (outcome) this.learnFrom(input.owner, outcome);
        });
    });
  }

  goOn({ owner, threadId, replyId }: { owner: string; threadId: string; replyId: string }): Promise<boolean> {
    const turnId = randomUUID();
    const controller = new AbortController();
    let progress: ProgressWriter | undefined;
    let tracked = false;
    // Nobody's request waits on this stream: it is read through GET /api/threads/:id/stream.
    const publish = (chunk: UIMessageChunk): void => progress?.push({ attempt: 0, chunk });
    const approvals = this.deps.approvals?.();
    if (!approvals) return Promise.resolve(false);
    return new Promise<boolean>((resolve, reject) => {
      let ready = false;
      this.deps
        .sessionSecret()
        .then((secret) =>
          continueTurn(
            { owner, threadId, replyId, turnId, round: "continue" },
            {
              ...this.turnDeps(secret, owner, publish, controller.signal),
              approvals,
              approvalTimeoutMs: this.deps.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
              onReady: () => {
                this.active.track(threadId, owner, controller, turnId);
                tracked = true;
                progress = this.deps.turnProgress?.().writer(turnId);
                ready = true;
                resolve(true);
              },
            },
          ),
        )
        .then((outcome) => {
          if ("refused" in outcome) return resolve(false);
          if (outcome.error) console.error(`[turn ${threadId}] going on after a decision failed:`, outcome.error);
          return outcome;
        })
        .catch((error) => {
          if (!ready) return reject(error);
          console.error("[turn] failed going on after a decision:", error);
          publish({ type: "error", errorText: "The server failed while answering. Please try again." });
        })
        .finally(() => {
          void progress?.end();
          if (tracked) this.active.release(threadId, controller);
        })
        .then((outcome) => {
          // Once the thread is free, as after a first turn: a first reply that waited is named now.
          if (outcome && "title" in outcome && outcome.title) this.nameLater(outcome.title);
          if (outcome && !("refused" in outcome)) this.learnFrom(owner, outcome);
        });
    });
  }

  /** What a turn runs with here, a new message's and one going on after the user's decisions alike. */
  private turnDeps(secret: string, owner: string, publish: TurnDeps["publish"], signal: AbortSignal): TurnDeps {
    return {
      history: this.deps.history(),
      network: this.deps.network(),
      publish,
      signal,
      signer: historySigner(secret, owner),
      leaseMs: this.deps.leaseMs ?? DEFAULT_TURN_LEASE_MS,
      saveRetryMs: this.deps.saveRetryMs,
      ...this.deps.turnOptions,
    };
  }

  /** A reply stored complete teaches the person's memory, off this turn's path. */
  private learnFrom(owner: string, outcome: { threadId: string; status: string; reply?: { id: string } }): void {
    if (outcome.status === "complete" && outcome.reply) this.deps.learn?.({ owner, threadId: outcome.threadId, replyId: outcome.reply.id });
  }

  private nameLater(thread: ThreadToName): void {
    void nameThread(thread, { history: this.deps.history(), network: this.deps.network(), step: runNow });
  }

  private compactLater(owner: string, threadId: string): void {
    if (this.compacting.has(threadId)) return;
    this.compacting.add(threadId);
    // After the turn's own cleanup (the stream closed, the thread released).
    void new Promise<void>((resolve) => setImmediate(resolve))
      .then(() =>
        compactThread({ owner, threadId }, { history: this.deps.history(), network: this.deps.network(), step: runNow, newId: randomUUID }),
      )
      .then(
        () => undefined,
        (error) => console.error(`[thread ${threadId}] compaction failed; the next turn tries again:`, error),
      )
      .finally(() => this.compacting.delete(threadId));
  }

  stop(owner: string, threadId: string): Promise<boolean> {
    return this.stops.stop(owner, threadId).then(({ stopped }) => stopped);
  }
}
