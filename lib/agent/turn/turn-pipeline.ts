import "server-only";
import type { ModelMessage, UIMessageChunk } from "ai";
import type { Reply } from "@threadline/history/contract";
import type { Part, ToolCallPart } from "@threadline/history/parts";
import type { ModelUsage } from "@threadline/history/usage";
import type { Agent, Network } from "../network/network";
import { runNetwork, type NetworkOutcome, type RunNetworkArgs } from "../network/run-network";
import { coalescing } from "../model/coalesce";
import { namesThread, type ThreadToName } from "../title";
import { modelInputChars } from "./input-budget";
import { approvalIdFor, type HistorySource } from "./lifecycle";
import type { StepRunner } from "./steps";
import { askedTooOften, inputTooLong, outOfTimeError, withinTurnTime } from "./turn-bounds";
import { endChunks, storeEnding, type Ending } from "./turn-ending";
import type { TurnDeps, TurnOutcome } from "./turn-types";

// Every turn goes through here once its entry has done its own part: a new
// message's turn (turn.ts) once the message is stored and the history read,
// a waiting reply's (continue-turn.ts) once its decided calls have run. From
// there the two are one: the turn's bounds, the network within its time, the
// usage its model calls report, the reply stored, the stream's end, and
// whether the thread is named.

/** Where an entry leaves its turn: the reply begun, what the models read, and what the entry adds to the turn's end. */
export interface ReplyStart {
  owner: string;
  threadId: string;
  turnId: string;
  historySource: HistorySource;
  /** The user's message the reply answers: its text sizes the "too long" error, its seq tells a thread's first reply. */
  message: { id: string; content: string; seq?: number };
  /** The reply's id, announced already with its start. */
  replyId: string;
  /** What the reply holds already: nothing for a new message's; a waiting reply's parts and its decided calls' results. */
  parts: Part[];
  network: Network;
  timeZone?: string;
  messagesFor: (agent: Agent) => ModelMessage[];
  historyTrim?: RunNetworkArgs["historyTrim"];
  /** A failure of the entry (earlier messages could not be summarized): no model is asked, the turn ends with it. */
  failure?: Error;
  /** A waiting reply going on: its agent goes on, after `round` rounds of decisions; `stopped`: a Stop came first. Unset: a new message's reply. */
  goesOn?: { agent: Agent; subAgentCall?: ToolCallPart; round: number; stopped: boolean };
  /** A regenerate's reply is a new version of this one. */
  replaces?: string;
  /** How a complete reply names its thread: as its first reply, again (its first message was edited), or not (a regenerate keeps the name). */
  naming: "first" | "rename" | "none";
  /** Run once the reply is stored: what the stream's end carries ahead of the reply's signature. */
  afterStore?: () => Promise<UIMessageChunk[]>;
  /** Whether the thread is compacted before its next turn; unset: it is not. */
  compactAfter?: (ending: Ending) => boolean;
  /** A waiting reply the user's message ended first (a durable run waiting for it is woken). */
  settledReply?: string;
}

export type PipelineDeps = TurnDeps & { step: StepRunner; newId: () => string };

/** Runs a turn with its token deltas coalesced (those that arrive close together go out as one chunk, the first at once), flushed however it ends. */
export async function withCoalescedPublish<D extends TurnDeps, R>(given: D, run: (deps: D) => Promise<R>): Promise<R> {
  const publish = coalescing(given.publish, given.coalesceWindowMs);
  try {
    return await run({ ...given, publish });
  } finally {
    await publish.flush().catch(() => {});
  }
}

/** The reply's first chunk: its id, and the model that writes it, for the page to show under it. */
export function startChunk(replyId: string, network: Pick<Network, "modelId">): UIMessageChunk {
  return { type: "start", messageId: replyId, ...(network.modelId ? { messageMetadata: { model: network.modelId } } : {}) };
}

/** The turn from its reply's start to its outcome. */
export async function answerFrom(start: ReplyStart, deps: PipelineDeps): Promise<TurnOutcome> {
  // A new message's failure is its ending: nothing of its reply is stored yet. A continuation's is thrown as its
  // runtime's failure, and its reply stays stored as it waited.
  const ran = start.goesOn ? await runReply(start, deps) : await runReply(start, deps).catch(failed);
  return endTurn(start, ran, deps);
}

/**
 * Why the models may not be asked at all, or undefined: a failure the entry
 * brought, or an input over the model's budget. Both kinds of turn pass here
 * once, before the network runs: a budget a turn must keep to (tokens spent,
 * a per-user allowance) is checked here.
 */
function refusal(start: ReplyStart): Error | undefined {
  if (start.failure) return start.failure;
  const { network } = start;
  const agent = start.goesOn?.agent ?? network.agents[0];
  const inputChars = modelInputChars(start.messagesFor(agent));
  if (network.maxInputChars !== undefined && inputChars > network.maxInputChars) {
    return inputTooLong(inputChars, network.maxInputChars, start.message.content.length);
  }
  return undefined;
}

/** The network within the turn's bounds: past its time the turn ends as if stopped, keeping what was written, and says why. */
async function runReply(start: ReplyStart, deps: PipelineDeps): Promise<Ending> {
  const { network, goesOn } = start;
  const usage: ModelUsage[] = [];
  const wrote = (parts: Part[], status: Reply["status"]): Reply | undefined =>
    parts.length > 0 ? { id: start.replyId, role: "assistant", parts, status, ...(network.modelId ? { model: network.modelId } : {}), usage } : undefined;
  const ended = (outcome: NetworkOutcome, failure?: Error): Ending => {
    const status = outcome.stopped ? "stopped" : outcome.failure !== undefined ? "incomplete" : outcome.waiting ? "waiting" : "complete";
    if (status !== "incomplete") return { status, reply: wrote(outcome.parts, status) };
    return { status, reply: wrote(outcome.parts, status), failure: failure ?? new Error(outcome.failure) };
  };
  // A Stop that came before the decided calls ran: the model is not asked again.
  if (goesOn?.stopped) return ended({ parts: start.parts, stopped: true });
  const refused = refusal(start);
  if (refused) {
    // What the reply holds already (a waiting reply's decided calls) is kept; a reply with nothing yet fails.
    return start.parts.length > 0 ? ended({ parts: start.parts, stopped: false, failure: refused.message }, refused) : failed(refused);
  }
  const ran = await withinTurnTime(network, deps.signal, (signal) =>
    runNetwork({
      network,
      usage,
      messagesFor: start.messagesFor,
      historyTrim: start.historyTrim,
      context: { owner: start.owner, threadId: start.threadId, signal, timeZone: start.timeZone, replyId: start.replyId },
      publish: deps.publish,
      step: deps.step,
      newId: deps.newId,
      approvalIdFor: (toolCallId) => approvalIdFor(start.replyId, toolCallId),
      mayNotAsk: goesOn ? askedTooOften(network, goesOn.round) : undefined,
      now: deps.now,
      retriesSteps: deps.retriesSteps,
      ...(goesOn ? { resume: { agent: goesOn.agent, parts: start.parts, ...(goesOn.subAgentCall ? { subAgentCall: goesOn.subAgentCall } : {}) } } : {}),
    }),
  );
  if (ran.outOfTime && ran.outcome.stopped) {
    const outOfTime = outOfTimeError(network);
    return ended({ ...ran.outcome, stopped: false, failure: outOfTime.message }, outOfTime);
  }
  return ended(ran.outcome);
}

/** The reply stored (only this run's, in one statement), the stream's end, and what the runtime does once the turn is over. */
async function endTurn(start: ReplyStart, ran: Ending, deps: PipelineDeps): Promise<TurnOutcome> {
  const { owner, threadId } = start;
  const turn = { messageId: start.message.id, turnId: start.turnId };
  // A reply that could not be stored: a new message may be sent again; a continuation's went on from a stored one.
  const ending = await storeEnding(ran, { owner, threadId, turn, replaces: start.replaces, sendAgain: !start.goesOn }, deps);
  const ahead = (await start.afterStore?.()) ?? [];
  await deps.step("announce-end", async () => {
    // The calls' settlements, made in the background while the reply was stored, have landed before the turn says it is done.
    await start.network.spend?.settled?.(owner);
    for (const chunk of endChunks(ending, threadId, deps.signer, ahead)) await deps.publish(chunk);
  });
  return {
    threadId,
    historySource: start.historySource,
    status: ending.status,
    reply: ending.status === "failed" ? undefined : ending.reply,
    error: ending.status === "failed" || ending.status === "incomplete" ? ending.failure : undefined,
    compact: start.compactAfter?.(ending) ?? false,
    title: threadToName(start, ending),
    ...(start.settledReply ? { settledReply: start.settledReply } : {}),
  };
}

/**
 * Whether the runtime names the thread once the turn is over: after its
 * first complete reply (a first reply that waited, once it has gone on), or
 * after an edit of its first message. The title is asked for after the
 * stream's finish (lib/agent/title.ts says why).
 */
function threadToName({ owner, threadId, message, naming }: ReplyStart, ending: Ending): ThreadToName | undefined {
  // A stopped reply was ended by the user, who asked for nothing more; a broken-off one has no model to ask.
  if (ending.status !== "complete" || !ending.reply || ending.replySeq === undefined) return undefined;
  const named = naming === "rename" || (naming === "first" && namesThread({ userSeq: message.seq, replySeq: ending.replySeq }));
  return named ? { owner, threadId, message: message.content, reply: ending.reply, renaming: naming === "rename" } : undefined;
}

const failed = (error: unknown): Ending => ({ status: "failed", failure: error instanceof Error ? error : new Error(String(error)) });
