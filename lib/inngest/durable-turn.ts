import "server-only";
import { StepError } from "inngest";
import type { Network } from "@/lib/agent/network/network";
import type { StepRunner } from "@/lib/agent/turn/steps";
import { nameThread } from "@/lib/agent/title";
import { runTurn, type TurnDeps, type TurnOutcome } from "@/lib/agent/turn/turn";
import { historySigner } from "@/lib/auth/history-signature";
import type { SessionSecret } from "@/lib/auth/secret";
import { isAuthorizedTurn } from "@/lib/auth/turn-authorization";
import { AppError } from "@threadline/history/errors";
import type { ApprovalStore, TurnHistory } from "@threadline/history/contract";
import { claimContinuation, continueClaimed, type ContinuationDeps, type ContinuationInput } from "@/lib/agent/turn/continue-turn";
import { continuationTurnId } from "@/lib/agent/turn/lifecycle";
import type { Publish } from "@/lib/agent/turn/stream-chunks";
import { REPLY_DECIDED_EVENT, type ReplyDecidedEventData, type ChatTurnEventData, type TurnChunkMessage, type TurnInput, type TurnRefusal } from "@/lib/protocol/turn-events";
import type { ActiveTurns } from "@/lib/runtime/active-turns";
import type { ProgressWriter, TurnProgress } from "@/lib/live/progress-writer";
import { batchedPublish } from "./batched-publish";
import type { TurnPublisher } from "./publisher";

/** The chat-turn function's retries of a failed step. */
export const CHAT_TURN_RETRIES = 3;

/** The most rounds of decisions one run waits for when the network sets none (MAX_TOOL_ROUNDS): each waits, and goes on, in steps of its own. */
const MAX_ROUNDS = 10;

const FAILED_TEXT = "The server failed while answering. Please try again.";
const CANCELLED_TEXT = "This reply was cancelled on the server. Send your message again for an answer.";

/**
 * How long a durable turn's token delta waits for company. Each publish is
 * an HTTP request to Inngest realtime, where inline a chunk costs a function
 * call: wider than inline's window, still under what the eye tells apart
 * from a steady stream.
 */
const DURABLE_COALESCE_WINDOW_MS = 50;

/** What a durable turn runs with: lib/app.ts's parts (or a test's), and where its output goes. */
export interface DurableTurnDeps {
  history: () => TurnHistory;
  network: () => Network;
  activeTurns: () => ActiveTurns;
  /** Checks the event's signature and signs the history the turn stores. */
  sessionSecret: SessionSecret;
  publisher: TurnPublisher;
  /** Where the turn's stream is kept while it runs, for a client that joins late; unset: nowhere. */
  turnProgress?: () => TurnProgress;
  /** The next step may run in another request (lib/inngest/checkpointing.ts): each step's end then writes the turn's progress. */
  stepsMayMove?: boolean;
  /** Where tool calls wait for the user's approval. */
  approvals: () => ApprovalStore;
  /** How long a call waits for the user's decision (TOOL_APPROVAL_TIMEOUT_HOURS). */
  approvalTimeoutMs: number;
  /** Whether replies teach memories (lib/memory/); unset: they do not. */
  learnsMemory?: () => boolean;
}

/**
 * A run waits for the decision event in slices, asking the database after
 * each: Inngest matches only events sent after a wait began, so a decision
 * made just before the run began to wait is found by the next look. The
 * first slices are short (a second, doubling), since a decision often comes
 * at once; then at most 10 minutes, or longer for a long timeout, so a run
 * takes at most a few hundred looks (it has a thousand steps).
 */
const FIRST_SLICE_MS = 1_000;
const MAX_SLICES = 200;
const MIN_LONGEST_SLICE_MS = 10 * 60_000;

/** The run as Inngest hands it to the function: its step tools (the part a turn uses) and which attempt this is. */
export interface DurableRun {
  step: {
    run(id: string, work: () => Promise<unknown>): Promise<unknown>;
    waitForEvent(id: string, options: { event: string; timeout: string; if: string }): Promise<unknown>;
  };
  attempt: number;
  maxAttempts?: number;
}

/** A refusal (not found, duplicate) and whether a step has already told the route. */
export type Refusal = TurnRefusal & { announced: boolean };

/** What a step hands back: its work's value, or the refusal it has already announced. */
type StepOutcome<T> = { value: T } | { refused: TurnRefusal };

/** A step refused the turn and told the route; the run ends without a retry or a second announcement. */
class RefusalAnnounced extends Error {
  constructor(readonly refusal: TurnRefusal) {
    super(refusal.message);
    this.name = "RefusalAnnounced";
  }
}

/** The refusal an error stands for, or undefined for a failure (which a retry may mend). */
export function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof RefusalAnnounced) return { ...error.refusal, announced: true };
  if (error instanceof AppError && error.kind !== "internal") return { code: error.code, message: error.message, announced: false };
  return undefined;
}

/**
 * One attempt of the chat-turn function's run: the turn of the event, each
 * side effect a durable step, its chunks published as they come (one realtime
 * request at a time; what the turn writes meanwhile goes in the next one).
 */
export class DurableTurn {
  private readonly controller = new AbortController();
  private readonly output = batchedPublish<TurnChunkMessage>((messages) => this.deps.publisher.chunks(this.input.turnId, messages));
  /** Known once the thread exists: Stop finds the model call by it. */
  private threadId: string | undefined;
  /** The turn this run runs now: the event's, then each going on after a round of decisions (Stop names it). */
  private turnId: string;
  /**
   * This attempt's writer of the turn's progress, known once the turn runs (a
   * replay of another turn's reply keeps none). Where a step may run in
   * another process than the next (no checkpointing, a failed step's retry),
   * it writes what it holds before it returns, so the rows stay in order and
   * none is left behind in a request that has ended.
   */
  private progress: ProgressWriter | undefined;
  /** A step of this run was answered from Inngest's memo: an earlier request ran it. */
  private continued = false;

  private constructor(
    private readonly input: TurnInput,
    private readonly secret: string,
    private readonly deps: DurableTurnDeps,
    private readonly run: DurableRun,
  ) {
    this.turnId = input.turnId;
  }

  /** The event's turn, or undefined when this app did not sign it: checked before any step, so a forged event neither writes nor reads. */
  static async open(data: ChatTurnEventData, deps: DurableTurnDeps, run: DurableRun): Promise<DurableTurn | undefined> {
    const { concurrencyKey: _key, authorization, ...input } = data;
    const secret = await deps.sessionSecret();
    return isAuthorizedTurn(input, authorization, secret) ? new DurableTurn(input, secret, deps, run) : undefined;
  }

  get owner(): string {
    return this.input.owner;
  }

  /** Runs the turn to its end, every chunk published. */
  async answer(): Promise<TurnOutcome> {
    const outcome = await runTurn(this.input, {
      ...this.turnDeps(),
      onReady: (ready) => {
        this.threadId = ready.threadId;
        if (!ready.replayed) this.progress ??= this.newWriter(this.input.turnId);
      },
    });
    await this.output.flush();
    await this.progress?.end();
    return outcome;
  }

  /** The most rounds of decisions this run goes on after: the last may ask no more, so the reply never waits past it. */
  get maxRounds(): number {
    return this.deps.network().maxToolRounds ?? MAX_ROUNDS;
  }

  /**
   * Goes on with the reply the turn left waiting, once the user has decided
   * on its calls: the run waits for the decision event (a slice at a time,
   * asking the database after each), then goes on in steps of its own, as
   * the turn `round` of the user's message. Undefined: nothing to go on with
   * (a new message or Stop ended the wait).
   */
  async goOn(replyId: string, round: number): Promise<TurnOutcome | undefined> {
    const threadId = this.threadId;
    if (threadId === undefined) return undefined;
    const turnId = continuationTurnId(this.input.turnId, round);
    let input: ContinuationInput = { owner: this.input.owner, threadId, replyId, turnId, round: `round-${round}`, timeZone: this.input.timeZone };
    const deps = this.continuationDeps(turnId);
    const longest = Math.max(MIN_LONGEST_SLICE_MS, Math.ceil(this.deps.approvalTimeoutMs / MAX_SLICES));
    const looks = MAX_SLICES + Math.ceil(Math.log2(longest / FIRST_SLICE_MS)) + 1;
    for (let look = 0, sliceMs = FIRST_SLICE_MS; look < looks; look++, sliceMs = Math.min(longest, sliceMs * 2)) {
      const claim = await claimContinuation(input, deps, `claim:${look}`);
      if (claim.claimed) {
        this.turnId = turnId;
        const outcome = await continueClaimed(input, deps, claim);
        await this.output.flush();
        await this.progress?.end();
        return outcome;
      }
      if (claim.refused === "not_waiting") return undefined;
      const decided = (await this.run.step.waitForEvent(`${input.round}:decided:${look}`, {
        event: REPLY_DECIDED_EVENT,
        timeout: `${Math.ceil(sliceMs / 1000)}s`,
        if: `async.data.replyId == "${replyId}"`,
      })) as { data?: Partial<ReplyDecidedEventData> } | null;
      // A guest who signed up while the reply waited decides as the account the thread moved to: the run goes on
      // as the thread's owner now. Nothing is trusted by it: the claim finds the thread only if it is theirs.
      if (typeof decided?.data?.owner === "string" && decided.data.owner !== input.owner) input = { ...input, owner: decided.data.owner };
    }
    return undefined;
  }

  private continuationDeps(turnId: string): ContinuationDeps {
    return {
      ...this.turnDeps(),
      approvals: this.deps.approvals(),
      approvalTimeoutMs: this.deps.approvalTimeoutMs,
      onReady: () => {
        this.progress = this.newWriter(turnId);
      },
    };
  }

  /** What each turn of this run runs with, the message's and each going on after a round of decisions alike. */
  private turnDeps(): TurnDeps {
    return {
      history: this.deps.history(),
      // Inngest retries the failed step durably; retrying inside it as well would multiply the wait.
      network: { ...this.deps.network(), maxRetries: 0 },
      publish: this.publish,
      coalesceWindowMs: DURABLE_COALESCE_WINDOW_MS,
      step: this.step,
      signal: this.controller.signal,
      signer: historySigner(this.secret, this.input.owner),
      retriesSteps: true,
    };
  }

  /**
   * A request that goes on with a run begun by an earlier one (after a failed
   * step, a wait, or a request per step) may be followed by yet another: its
   * writer writes at each step's end and writes its end, as where steps move.
   */
  private newWriter(turnId: string): ProgressWriter | undefined {
    return this.deps.turnProgress?.().writer(turnId, { stepsMove: this.deps.stepsMayMove || this.continued });
  }

  /** Names a new thread, in a memoized step after the one that published the finish. */
  async nameThread(outcome: TurnOutcome): Promise<void> {
    if (outcome.title) await nameThread(outcome.title, { history: this.deps.history(), network: this.deps.network(), step: this.step });
  }

  private readonly publish: Publish = (chunk, origin) => {
    const message: TurnChunkMessage = { attempt: this.run.attempt, step: origin?.step, chunk };
    this.output.push(message);
    this.progress?.push(message);
  };

  /**
   * A side effect of the turn as a durable step. A refusal (not found,
   * duplicate) will not change on a retry: the step tells the route at once
   * and returns the refusal as its (memoized) value; the run then ends
   * without retrying.
   */
  private readonly step: StepRunner = async <T>(id: string, work: () => Promise<T>, options?: { stoppable?: boolean }) => {
    let ran = false;
    const outcome = (await this.run.step.run(id, async (): Promise<StepOutcome<T>> => {
      ran = true;
      // Stop can reach a model call only while it runs, here in this process.
      const stoppable = options?.stoppable ? this.threadId : undefined;
      if (stoppable !== undefined) {
        this.deps.activeTurns().track(stoppable, this.input.owner, this.controller, this.turnId);
        // A Stop recorded while none of this run's steps ran (queued, between steps, a retry's wait) reached no process.
        if (await this.stopRecorded()) this.controller.abort(new Error("Stopped by the user"));
      }
      try {
        const value = await work();
        // A step is done once what it wrote has been published.
        await this.output.flush();
        await this.progress?.flush();
        return { value };
      } catch (error) {
        await this.output.flush().catch(() => {});
        const refusal = refusalOf(error);
        // A failure is retried in a new request; a refusal ends the run here.
        await (refusal ? this.progress?.flush() : this.progress?.handOver());
        if (!refusal) throw error;
        await this.announce(refusal);
        return { refused: { code: refusal.code, message: refusal.message } };
      } finally {
        if (stoppable !== undefined) this.deps.activeTurns().release(stoppable, this.controller);
      }
    })) as StepOutcome<T>;
    // A step Inngest answered from its memo: this request goes on with a run an earlier request began.
    if (!ran) this.continued = true;
    if ("refused" in outcome) throw new RefusalAnnounced(outcome.refused);
    return outcome.value;
  };

  private async stopRecorded(): Promise<boolean> {
    const { owner, message } = this.input;
    const turnId = this.turnId;
    const turns = this.deps.history().turns;
    // The Stop's NOTIFY still reaches the step once it runs; a failed look only loses this early check.
    return (await turns?.stopRequested({ owner, messageId: message.id, turnId }).catch(() => false)) ?? false;
  }

  /** Tells the route why the turn will not run; it answers with it. */
  announce(refusal: Refusal): Promise<void> {
    return this.deps.publisher.refused(this.input.turnId, { code: refusal.code, message: refusal.message });
  }

  /** Whether the run is about to fail for good: a step out of retries, or the last attempt. */
  failsForGood(error: unknown): boolean {
    return error instanceof StepError || this.run.attempt + 1 >= (this.run.maxAttempts ?? CHAT_TURN_RETRIES + 1);
  }

  /**
   * Ends the client's stream now rather than letting it time out, and frees
   * the message: sent once more, it is not a duplicate of a turn that is over.
   */
  async fail(): Promise<void> {
    await this.output.flush().catch(() => {});
    const failed: TurnChunkMessage = { attempt: this.run.attempt, chunk: { type: "error", errorText: FAILED_TEXT } };
    this.progress?.push(failed);
    await this.progress?.end();
    await this.deps.publisher.chunks(this.input.turnId, [failed]).catch(() => {});
    const { owner, message } = this.input;
    const turnId = this.turnId;
    await this.deps
      .history()
      .turns?.finishTurn({ owner, messageId: message.id, turnId, status: "failed" })
      .catch(() => {});
  }

  /**
   * After the run has failed for good: ends its turn (the message's, or a
   * round's that went on after the user's decisions) unless the run ended it.
   * A run whose process died on its last attempt ran no catch, and its turn,
   * held by no lease, would keep the thread from every next message. A turn
   * another run holds is left alone (its id differs). Unless the run was
   * refused (the route has answered already), the client's stream ends now
   * rather than at its idle timeout.
   */
  async endFailedRun({ refused }: { refused: boolean }): Promise<void> {
    await this.endOpenTurns(refused ? undefined : FAILED_TEXT);
  }

  /**
   * After the run was cancelled (from Inngest's dashboard or REST API, or a
   * bulk cancellation): Inngest stops it between steps, and a turn it had
   * opened and not yet stored would keep its thread busy for good. Ended as
   * a failed run's is: the same message sent again is answered.
   */
  async endCancelledRun(): Promise<void> {
    await this.endOpenTurns(CANCELLED_TEXT);
  }

  /** Ends the run's turns that are still open (a stored reply's turn counts as done) and tells the client `told`. */
  private async endOpenTurns(told: string | undefined): Promise<void> {
    const { owner, message, turnId } = this.input;
    const turns = this.deps.history().turns;
    const ids = [turnId, ...Array.from({ length: this.maxRounds }, (_, round) => continuationTurnId(turnId, round + 1))];
    await Promise.all(ids.map((id) => turns?.finishTurn({ owner, messageId: message.id, turnId: id, status: "failed" })));
    if (told) await this.deps.publisher.chunks(turnId, [{ attempt: this.run.attempt, chunk: { type: "error", errorText: told } }]);
  }
}
