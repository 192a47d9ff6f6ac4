import "server-only";
import { randomUUID } from "node:crypto";
import { denialText } from "@threadline/history/approvals";
import type { ApprovalStore, ContinuationClaim, DecidedCall, StoredMessage } from "@threadline/history/contract";
import { notFoundThread } from "@threadline/history/errors";
import { filesOf, type Part, type ToolCallPart, type ToolResultPart } from "@threadline/history/parts";
import { agentHistoryPolicy, withDynamicTools, withModel, type Agent, type Network } from "../network/network";
import { runTool } from "../network/tools/run-tool";
import type { ToolContext } from "../network/tools/types";
import { buildModelMessages, conversationWith, widestWindow } from "./lifecycle";
import { withMemories } from "../model/turn-memory";
import { fileInputFor } from "./files-in-window";
import { runNow, type StepRunner } from "./steps";
import { ChunkWriter, replayReply, threadChunk } from "./stream-chunks";
import { underLease } from "./turn-claims";
import { answerFrom, startChunk, withCoalescedPublish } from "./turn-pipeline";
import type { TurnDeps, TurnOutcome } from "./turn-types";

// A reply that waited for the user's approval goes on as a turn of its own
// once every call it asked about is decided: on whichever server the decision
// reached, or the one that finds it left undone. It takes the claim of the
// user's message the reply answers, with its lease, as that message's turn
// did, so one turn goes on and a thread runs one turn at a time.

export interface ContinuationInput {
  owner: string;
  threadId: string;
  /** The reply that waits. */
  replyId: string;
  turnId: string;
  /** Prefixes this turn's step ids: a durable run goes on with its reply after each round of decisions, in the run that asked. */
  round: string;
  /** The user's IANA time zone, as the asking turn had it: a call runs in its deciding page's zone when that said one. */
  timeZone?: string;
}

export interface ContinuationDeps extends TurnDeps {
  approvals: ApprovalStore;
  /** How long a call waits for the user; one undecided longer is denied as expired. */
  approvalTimeoutMs: number;
}

/** The turn's outcome, or why it did not go on: the reply no longer waits, a call is undecided, or another turn runs. */
export type ContinuationOutcome = TurnOutcome | { refused: "not_waiting" | "pending" | "busy" };

/** Claims going on with the reply, and goes on if it may. */
export async function continueTurn(input: ContinuationInput, deps: ContinuationDeps): Promise<ContinuationOutcome> {
  const claim = await claimContinuation(input, deps, "claim");
  return claim.claimed ? continueClaimed(input, deps, claim) : { refused: claim.refused };
}

/** The claim on going on with the reply, as a step named `id` (a durable run asks again after each wait). */
export async function claimContinuation(input: ContinuationInput, deps: ContinuationDeps, id: string): Promise<ContinuationClaim> {
  const { owner, threadId, replyId, turnId } = input;
  const claim = await (deps.step ?? runNow)(`${input.round}:${id}`, () =>
    deps.approvals.claimContinuation({ owner, threadId, replyId, turnId, leaseMs: deps.leaseMs ?? null, timeoutMs: deps.approvalTimeoutMs }),
  );
  if (!claim) throw notFoundThread();
  return claim;
}

/** Goes on with the reply under the claim this turn holds. */
export async function continueClaimed(
  input: ContinuationInput,
  given: ContinuationDeps,
  claim: Extract<ContinuationClaim, { claimed: true }>,
): Promise<TurnOutcome> {
  const base = given.step ?? runNow;
  const step: StepRunner = (id, work, options) => base(`${input.round}:${id}`, work, options);
  return withCoalescedPublish({ ...given, step }, (deps) => {
    deps.onReady?.({ threadId: input.threadId, historySource: "database" });
    return underLease({ owner: input.owner, messageId: claim.messageId, turnId: input.turnId }, deps, (running) => goOn(input, running, claim));
  });
}

/**
 * The reply again from its start, each decided call's result, then on into
 * the pipeline every turn ends in (./turn-pipeline.ts), where the agent whose
 * call asked goes on.
 */
async function goOn(input: ContinuationInput, deps: ContinuationDeps, { messageId, decisions, round }: Extract<ContinuationClaim, { claimed: true }>): Promise<TurnOutcome> {
  const step = deps.step ?? runNow;
  const newId = deps.generateId ?? randomUUID;
  const { owner, threadId, replyId } = input;
  const { history } = deps;
  const { message, reply } = await step("load-reply", () => history.turns.replyTo({ owner, threadId, messageId }));
  if (!message || !reply || reply.id !== replyId || reply.status !== "waiting") return { threadId, historySource: "database", status: "complete", compact: false };
  // The reply goes on with the model that began it, while it is still on offer.
  const network = await withDynamicTools(withModel(deps.network, reply.model), step);

  // The model reads the thread up to the user's message, as the turn that asked did.
  const policyFor = (agent: Agent) => agentHistoryPolicy(network, agent);
  const summary = (await step("read-summary", async () => (await history.summaries.latest({ owner, threadId })) ?? null)) ?? undefined;
  const fromSeq = summary ? summary.parts[0].throughSeq + 1 : undefined;
  const window = widestWindow(network.agents.map(policyFor));
  const earlier = await step("load-history", () => history.get({ owner, threadId, lastUserMessages: window, fromSeq, untilSeq: message.seq }));
  const asked = { id: message.id, role: "user" as const, content: userText(message), files: filesOf(message) };
  const fileInput = await fileInputFor(network, owner, conversationWith(earlier, asked, summary), network.agents.map(policyFor));

  // The memories the reply was given when it started: it goes on knowing what it knew.
  const memory = network.memory;
  const memories = memory
    ? await step("memory:given", () =>
        memory.given({ owner, threadId, replyId }).catch((error: unknown) => {
          console.error(`[thread ${threadId}] the memories the reply was given could not be read; it goes on without them:`, error);
          return [];
        }),
      )
    : [];

  await step("announce-replay", async () => {
    await deps.publish(threadChunk(threadId, "database"));
    await deps.publish(startChunk(replyId, network));
    await replayReply(deps.publish, reply.parts, newId);
  });

  // A Stop that came as this turn claimed the reply was recorded for it (threadline_request_stop takes the same
  // lock as the claim): its approved calls do not run, and are recorded as stopped.
  const stopAsked =
    deps.signal?.aborted === true || (await step("stop-asked", () => history.turns.stopRequested({ owner, messageId, turnId: input.turnId })));
  const context = { owner, threadId, signal: deps.signal, timeZone: input.timeZone, replyId };
  const parts: Part[] = [...reply.parts];
  for (const call of unanswered(reply.parts)) {
    const decided = decisions.find((d) => d.id === call.approval?.id);
    const decision = stopAsked && decided?.outcome === "approved" ? { ...decided, outcome: "stopped" as const } : decided;
    const result = await step(`decided:${call.toolCallId}`, async () => {
      const decided = await decidedResult(call, decision, network, {
        ...context,
        idempotencyKey: decision?.id,
        timeZone: decision?.timeZone ?? context.timeZone,
      });
      await new ChunkWriter(deps.publish, "decided", insideOf(call)).approvedResult(decided);
      return decided;
    });
    parts.push(result);
    if (decision?.outcome === "approved") {
      // Kept before anything else runs: a turn that goes on after a crash finds the call answered, and runs it no more.
      const kept = { id: replyId, role: "assistant" as const, parts, status: "waiting" as const, ...(network.modelId ? { model: network.modelId } : {}) };
      await step(`keep:${call.toolCallId}`, () => history.appendResults({ owner, threadId, reply: kept }));
    }
  }

  // The agent whose call asked goes on; a call that ran inside a sub-agent's call finishes that call first.
  const asking = lastAsking(reply.parts);
  const subAgentCall = asking?.parentCallId
    ? reply.parts.find((p): p is ToolCallPart => p.type === "tool-call" && p.toolCallId === asking.parentCallId)
    : undefined;
  const agent = network.agents.find((a) => a.name === (subAgentCall ?? asking)?.agentName) ?? network.agents[0];
  return answerFrom(
    {
      owner,
      threadId,
      turnId: input.turnId,
      historySource: "database",
      message: { id: message.id, content: asked.content, seq: message.seq },
      replyId,
      parts,
      network,
      timeZone: input.timeZone,
      messagesFor: (a) => withMemories(buildModelMessages(earlier, asked, policyFor(a), summary, fileInput), memories),
      goesOn: { agent, subAgentCall, round, stopped: stopAsked || deps.signal?.aborted === true },
      // A thread whose first reply waited for decisions is named once that reply is complete, as a first turn's would be.
      naming: "first",
    },
    { ...deps, step, newId },
  );
}

/** A decided call's result: an approved call run (once: it is kept at once), any other the words the model reads of why it did not. */
async function decidedResult(
  call: ToolCallPart,
  decision: DecidedCall | undefined,
  { agents, dynamicTools }: Pick<Network, "agents" | "dynamicTools">,
  context: ToolContext,
): Promise<ToolResultPart & { approval: NonNullable<ToolResultPart["approval"]> }> {
  const id = call.approval?.id ?? "";
  const agentName = call.agentName ? { agentName: call.agentName } : {};
  const inside = insideOf(call) ?? {};
  if (decision?.outcome === "approved") {
    const listed = agents.find((a) => a.name === call.agentName)?.tools ?? agents.flatMap((a) => a.tools ?? []);
    // A listed tool missing now (its MCP server was down when this turn listed) is looked for again; one whose server
    // cannot be reached throws, failing this step: the runtime tries the call again rather than storing "no such tool".
    const unlisted = listed.some((t) => t.name === call.toolName) ? undefined : await dynamicTools?.unlisted?.(call.toolName);
    const tools = unlisted ? [...listed, unlisted] : listed;
    return { ...(await runTool(tools, call, { ...context, retryUnavailable: true })), approval: { id, outcome: "approved" }, ...inside };
  }
  // No decision on record can only be one the claim expired; said so rather than run.
  const outcome = decision ? decision.outcome : "expired";
  const reason = outcome === "denied" && decision?.reason ? { reason: decision.reason } : {};
  return {
    type: "tool-result",
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    error: denialText(outcome, decision?.reason),
    approval: { id, outcome, ...reason },
    ...agentName,
    ...inside,
  };
}

/** The calls that asked for approval and have no result yet, in the reply's order. */
function unanswered(parts: Part[]): ToolCallPart[] {
  const answered = new Set(parts.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : [])));
  return parts.filter((p): p is ToolCallPart => p.type === "tool-call" && p.approval !== undefined && !answered.has(p.toolCallId));
}

/** The call that asked last. */
const lastAsking = (parts: Part[]) => parts.findLast((p): p is ToolCallPart => p.type === "tool-call" && p.approval !== undefined);

/** The sub-agent call a call ran inside, as its result runs in it too. */
const insideOf = (call: ToolCallPart) =>
  call.parentCallId ? { parentCallId: call.parentCallId, rootCallId: call.rootCallId ?? call.parentCallId } : undefined;


/** The user's message as the model reads it. */
const userText = (message: StoredMessage) => message.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
