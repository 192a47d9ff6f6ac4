import "server-only";
import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { AppError } from "@threadline/history/errors";
import type { TurnClaim, TurnRef, TurnStore } from "@threadline/history/contract";
import { runNow } from "./steps";
import { replayReply, signaturesChunk, stoppedChunk, threadChunk } from "./stream-chunks";
import type { TurnDeps, TurnInput, TurnOutcome } from "./turn-types";

// One turn per message. The same client message id sent again (a double
// click, a second tab, a resend after a crash) never starts a second answer:
// while the first runs, the second waits for it; once it has finished, the
// second is answered with what it stored; if its runner died, the second
// takes over and answers the same stored message, unless another message's
// turn has taken the thread meanwhile (then it is refused, as that message
// would refuse it: one turn per thread).

const WAIT_STEP_MS = 250;
/** How long a duplicate waits for the turn answering its message, when the network sets no turn bound. */
const DEFAULT_WAIT_MS = 10 * 60_000;

/** Waits `ms`, or less when `signal` aborts first. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * The claim opening the turn got, or, while another turn answers the
 * message, the one it gets once that turn has finished or died. The wait
 * ends early (a 409) when the client that asked hangs up: nobody would read
 * the answer, and a resend held open for minutes would hold a connection and
 * a claim query every quarter second.
 */
export async function claimOrWait(input: TurnInput, deps: TurnDeps, turns: TurnStore, threadId: string, opened: TurnClaim): Promise<TurnClaim> {
  const ask = () => turns.claimTurn({ owner: input.owner, threadId, messageId: input.message.id, turnId: input.turnId, leaseMs: deps.leaseMs ?? null });
  let claim = opened;
  const waitUntil = Date.now() + (deps.network.turnTimeoutMs ?? DEFAULT_WAIT_MS);
  let told = false;
  const gone = deps.requestSignal && deps.signal ? AbortSignal.any([deps.requestSignal, deps.signal]) : (deps.requestSignal ?? deps.signal);
  while (!claim.claimed && claim.running) {
    // A durable run does not wait outside its steps; Inngest runs one turn per thread at a time anyway.
    if (deps.retriesSteps || Date.now() > waitUntil || gone?.aborted) {
      throw new AppError("conflict:turn_in_progress", "This message is still being answered. Wait for the reply, or press Stop.");
    }
    // The client hears at once that its message waits, rather than nothing until the wait is over.
    if (!told) deps.onWaiting?.({ threadId });
    told = true;
    await sleep(WAIT_STEP_MS, gone);
    if (gone?.aborted) continue; // refused above, without asking again
    // Granted if the other turn's runner died meanwhile (its process, or its lease).
    claim = await ask();
  }
  return claim;
}

/** Answers a message another turn has answered already, with what that turn stored: no model call. */
export async function replayTurn(input: TurnInput, deps: TurnDeps, turns: TurnStore, threadId: string): Promise<TurnOutcome> {
  const step = deps.step ?? runNow;
  const newId = deps.generateId ?? randomUUID;
  const { message, reply } = await step("load-reply", () =>
    turns.replyTo({ owner: input.owner, threadId, messageId: input.message.id }),
  );
  deps.onReady?.({ threadId, historySource: "database", replayed: true });
  await step("announce-replay", async () => {
    await deps.publish(threadChunk(threadId, "database"));
    const signed = [message, reply].flatMap((m) =>
      m && deps.signer ? [{ id: m.id, signature: deps.signer(threadId, m), seq: m.seq, parentId: m.parentId }] : [],
    );
    await deps.publish({ type: "start", messageId: reply?.id ?? newId(), ...(reply?.model ? { messageMetadata: { model: reply.model } } : {}) });
    if (reply) await replayReply(deps.publish, reply.parts, newId);
    if (signed.length > 0) await deps.publish(signaturesChunk(signed));
    const end: UIMessageChunk[] =
      reply?.status === "incomplete"
        ? [{ type: "error", errorText: "This reply broke off before it was finished; what it wrote is kept." }]
        : [...(reply?.status === "stopped" ? [stoppedChunk] : []), { type: "finish", finishReason: "stop" }];
    for (const chunk of end) await deps.publish(chunk);
  });
  const status = reply?.status ?? "complete";
  return { threadId, historySource: "database", status, ...(reply ? { reply: { ...reply, role: "assistant" as const } } : {}), compact: false };
}

/**
 * Runs a turn that holds its message's claim: under its lease (renewed while
 * it runs; a Stop the renewal finds recorded aborts it, as the runtime's own
 * Stop does), and records how it ended unless storing its reply did (a
 * stored reply finishes its turn in the same statement). A turn that throws
 * is recorded failed: a resend, or a durable run's retry, may try again.
 */
export async function underLease<D extends TurnDeps>(
  turn: TurnRef & { owner: string },
  deps: D,
  work: (running: D) => Promise<TurnOutcome>,
): Promise<TurnOutcome> {
  const step = deps.step ?? runNow;
  const { turns } = deps.history;
  const stopped = new AbortController();
  const lease = deps.leaseMs ? holdLease(turn, turns, deps.leaseMs, () => stopped.abort(new Error("Stopped by the user"))) : undefined;
  const running: D = lease ? { ...deps, signal: deps.signal ? AbortSignal.any([deps.signal, stopped.signal]) : stopped.signal } : deps;
  const finish = (status: "done" | "failed") => step("finish-turn", async () => void (await turns.finishTurn({ ...turn, status })));
  try {
    const outcome = await work(running);
    if (!outcome.reply) await finish(outcome.status === "failed" ? "failed" : "done");
    return outcome;
  } catch (error) {
    await finish("failed").catch(() => {});
    throw error;
  } finally {
    lease?.stop();
  }
}

/**
 * Renews the turn's lease while it runs, a third of the lease at a time. A
 * Stop asked for the turn is heard at once by NOTIFY (lib/runtime/turn-stops.ts);
 * a renewal that finds one recorded calls `onStop` too, in case the
 * notification was lost (the listening connection was down).
 */
export function holdLease(turn: TurnRef & { owner: string }, turns: TurnStore, leaseMs: number, onStop: () => void): { stop(): void } {
  const renew = () =>
    turns
      .renewTurn({ ...turn, leaseMs })
      .then(({ held, stopRequested }) => {
        if (!held) console.error(`[turn ${turn.turnId}] lost its lease: another turn took the message over`);
        if (stopRequested) onStop();
      })
      .catch((error: Error) => console.error(`[turn ${turn.turnId}] could not renew its lease:`, error.message));
  const timer = setInterval(renew, Math.max(1_000, Math.floor(leaseMs / 3)));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
