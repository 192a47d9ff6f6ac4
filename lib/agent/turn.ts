import "server-only";
import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { AppError } from "@/lib/errors";
import { modelInputChars } from "./input-budget";
import type { OpenedTurn, Reply, SummaryMessage, ThreadMessage } from "@/lib/history/types";
import { userMessage } from "@/lib/protocol/parts";
import {
  buildModelMessages,
  clientHistoryCovers,
  conversationWith,
  historySource,
  resolveThread,
  threadIdForFirstMessage,
  shouldLoadHistory,
  widestWindow,
} from "./lifecycle";
import { agentHistoryPolicy, type Agent } from "./network";
import { dataChunk } from "@/lib/protocol/chat";
import { applyHistoryPolicy } from "@/lib/protocol/history-policy";
import { coalescing } from "./coalesce";
import { canCompact, compactThread, historyCount, messageChars, needsCompaction, sizeLimits } from "./compaction";
import { runNetwork } from "./run-network";
import { DEFAULT_SAVE_RETRY_MS, saveFailure, saveReply } from "./save-retry";
import { claimOrWait, holdLease, replayTurn } from "./turn-claims";
import { runNow } from "./steps";
import type { TurnDeps, TurnInput, TurnOutcome } from "./turn-types";
import { seqAfter } from "@/lib/auth/history-signature";
import { signaturesChunk, stoppedChunk, threadChunk } from "./stream-chunks";

export type { StepOptions, StepRunner } from "./steps";
export type { TurnDeps, TurnInput, TurnOutcome } from "./turn-types";

export async function runTurn(input: TurnInput, given: TurnDeps): Promise<TurnOutcome> {
  // Token deltas that arrive close together go out as one chunk (the first at once).
  const publish = coalescing(given.publish);
  const deps: TurnDeps = { ...given, publish };
  try {
    return await runTurnWith(input, deps);
  } finally {
    await publish.flush().catch(() => {});
  }
}

async function runTurnWith(input: TurnInput, deps: TurnDeps): Promise<TurnOutcome> {
  const { history } = deps;
  const step = deps.step ?? runNow;
  const newId = deps.generateId ?? randomUUID;
  const scope = { owner: input.owner };

  // 1. The thread. With turns, a first message's thread is named after the
  // message, so the same message sent twice can never start two threads.
  const resolution = resolveThread(input.threadId, history);
  const firstThreadId = history.claimTurn || history.openTurn ? threadIdForFirstMessage(input.owner, input.message.id) : undefined;
  let threadId: string;
  let createdThisTurn = false;
  let messagesBefore: number | undefined;
  let summary: SummaryMessage | undefined;
  // Thread, claim and the user's message in one round trip, where the adapter can.
  let opened: OpenedTurn | undefined;
  switch (resolution.kind) {
    case "upsert":
    case "create": {
      if (history.openTurn) {
        const target = resolution.kind === "upsert" ? resolution.threadId : firstThreadId!;
        const turn = { messageId: input.message.id, turnId: input.turnId };
        opened = await step("open-turn", () =>
          history.openTurn!({ ...scope, ...turn, threadId: target, message: input.message, leaseMs: deps.leaseMs ?? null }),
        );
        ({ threadId, created: createdThisTurn, messages: messagesBefore, summary } = opened);
        break;
      }
      const created = await step("create-thread", () =>
        history.createThread!({ ...scope, threadId: resolution.kind === "upsert" ? resolution.threadId : firstThreadId }),
      );
      threadId = created.threadId;
      createdThisTurn = created.created;
      messagesBefore = created.messages;
      summary = created.summary;
      break;
    }
    case "use-given":
      threadId = resolution.threadId;
      break;
    case "generate":
    case "none":
      // Generated inside a step so that a replay of the run agrees on it.
      threadId = firstThreadId ?? (await step("generate-thread-id", async () => newId()));
      createdThisTurn = true;
      break;
  }

  const clientThreadId = resolution.kind === "upsert" || resolution.kind === "use-given";
  const thread: ThreadState = { threadId, createdThisTurn, messagesBefore, summary, clientThreadId, userSeq: opened?.userSeq };

  // Who answers this message: one turn per client message id, however often it was sent.
  if (history.claimTurn) {
    const claim = await claimOrWait(input, deps, threadId, opened?.claim);
    if (!claim.claimed) return replayTurn(input, deps, claim.threadId);
    // Claimed after waiting for a turn that died: its message is stored already.
  }
  // A runner that dies stops renewing its lease, and the message may be answered again.
  const lease = deps.leaseMs && history.renewTurn ? holdLease(input, history, deps.leaseMs) : undefined;
  const finish = (status: "done" | "failed") =>
    step("finish-turn", async () => void (await history.finishTurn?.({ ...scope, messageId: input.message.id, turnId: input.turnId, status })));
  try {
    const outcome = await answerTurn(input, deps, thread);
    // A stored reply finished its turn in the same statement.
    if (!outcome.reply) await finish(outcome.status === "failed" ? "failed" : "done");
    return outcome;
  } catch (error) {
    // A resend (or the durable run's retry) may try again.
    await finish("failed").catch(() => {});
    throw error;
  } finally {
    lease?.stop();
  }
}

/** Where the turn stands once its thread is known. */
interface ThreadState {
  threadId: string;
  createdThisTurn: boolean;
  /** User and assistant messages the thread held before this turn, when the adapter says. */
  messagesBefore?: number;
  summary?: SummaryMessage;
  /** The thread id came from the client. */
  clientThreadId: boolean;
  /** The user's message's seq, when opening the turn stored it already. */
  userSeq?: number;
}

/** The turn from the user's message on: store it, read the history, run the network, store the reply. */
async function answerTurn(input: TurnInput, deps: TurnDeps, thread: ThreadState): Promise<TurnOutcome> {
  const { history, network, publish } = deps;
  const step = deps.step ?? runNow;
  const newId = deps.generateId ?? randomUUID;
  const scope = { owner: input.owner };
  const { threadId, createdThisTurn, messagesBefore, clientThreadId } = thread;
  let summary = thread.summary;

  // 2. The user's message, at once: it survives a failed run and makes "regenerate" possible.
  let userSeq = thread.userSeq;
  if (history.appendUserMessage && userSeq === undefined) {
    const { duplicate, seq } = await step("append-user-message", () =>
      history.appendUserMessage!({ ...scope, threadId, turnId: input.turnId, message: input.message }),
    );
    // With turns, the claim already decided who answers a message sent twice.
    if (duplicate && !history.claimTurn) {
      throw new AppError("conflict:duplicate_message", "This message was already sent; its reply is in the thread.");
    }
    userSeq = seq;
  }

  // What each agent reads of the thread: the history policy in force (the
  // operator's, the URL's, or the agent's own), and so the window to read.
  const policyFor = (agent: Agent) => agentHistoryPolicy(network, agent, input.historyPolicy);
  const window = widestWindow(network.agents.map(policyFor));

  // A compacted thread is read from after what its latest summary stands for.
  let fromSeq = summary ? summary.parts[0].throughSeq + 1 : undefined;

  // The client's copy is used when it holds the whole window; otherwise the database's is read.
  const useClientHistory =
    input.clientHistory !== undefined &&
    clientHistoryCovers({ history: input.clientHistory, userSeq, window, fromSeq, seqAfter });
  const source = historySource({ clientSentHistory: useClientHistory, createdThisTurn, clientThreadId });
  deps.onReady?.({ threadId, historySource: source });
  // Chunks outside the model call are published in steps of their own: a
  // durable runtime replays the code between steps, and they must go out once.
  const announce = (id: string, ...chunks: UIMessageChunk[]) =>
    step(id, async () => {
      for (const chunk of chunks) await publish(chunk);
    });
  await announce("announce-thread", threadChunk(threadId, source));

  // 3. The history: the client's copy, or the window of it the database holds.
  let earlier: (ThreadMessage & { seq: number })[] = useClientHistory ? input.clientHistory!.filter((m) => m.seq >= (fromSeq ?? 1)) : [];
  if (shouldLoadHistory({ clientThreadId, clientSentHistory: useClientHistory, createdThisTurn, hasGet: Boolean(history.get) })) {
    earlier = await step("load-history", () => history.get!({ ...scope, threadId, lastUserMessages: window, fromSeq }));
  }
  // Each agent's view of it, read from `earlier` and `summary` when called: compaction below may replace them.
  const messagesFor = (agent: Agent) => buildModelMessages(earlier, input.message, policyFor(agent), summary);
  const entryAgent = network.agents[0];
  let messages = messagesFor(entryAgent);

  // 3b. A history too big for the model is compacted first, as steps of this
  // turn; a failure ends the turn below, with what went wrong.
  const overBudget = network.maxInputChars !== undefined && modelInputChars(messages) > network.maxInputChars;
  let compactionFailure: Error | undefined;
  if (userSeq !== undefined && canCompact(history, network) && overBudget) {
    await announce("announce-compacting", dataChunk("notice", { text: "Summarizing earlier messages…" }));
    try {
      await compactThread({ ...scope, threadId, beforeSeq: userSeq }, { history, network, step, newId });
      const latest = await step("read-summary", () => history.summary!({ ...scope, threadId }));
      if (latest && latest.seq !== summary?.seq) {
        summary = latest;
        fromSeq = latest.parts[0].throughSeq + 1;
        earlier = earlier.filter((m) => m.seq >= fromSeq!);
        messages = messagesFor(entryAgent);
      }
    } catch (error) {
      compactionFailure = new Error(`Earlier messages could not be summarized to fit the model's input: ${errorText(error)}`, { cause: error });
    }
  }

  // The latest summary, signed, for a client whose copy lacks it (it was
  // written after that client's last turn): its next copy then fits together.
  if (summary && deps.signer && !input.clientHistory?.some((m) => m.id === summary.id)) {
    const { id, seq, createdAt, parts } = summary;
    const { text, throughSeq, summarizedMessages } = parts[0];
    const signature = deps.signer(threadId, summary);
    await announce("announce-summary", dataChunk("compacted", { id, seq, signature, createdAt, text, throughSeq, summarizedMessages }));
  }
  // 4. What the entry agent is given, for the debug panel and the budget.
  const entry = policyFor(entryAgent);
  const conversation = () => conversationWith(earlier, input.message, summary);
  // The whole thread's size, when the adapter says; otherwise as far as this turn read it.
  const inThread = messagesBefore !== undefined ? messagesBefore + 1 : conversation().length;
  const inputChars = modelInputChars(messages);
  await announce(
    "announce-history",
    dataChunk("history", {
      policy: entry.policy,
      length: entry.length,
      source: entry.source,
      threadMessages: inThread,
      sentMessages: messages.length,
      // About four characters a token: an estimate for the debug panel, not a bill.
      sentTokens: Math.ceil(inputChars / 4),
      window: window ?? null,
    }),
  );

  // The user's message signed where it sits, for the client to send back with its copy.
  if (deps.signer && userSeq !== undefined) {
    const signature = deps.signer(threadId, { ...userMessage(input.message.id, input.message.content), seq: userSeq });
    await announce("announce-user-signature", signaturesChunk([{ id: input.message.id, signature, seq: userSeq }]));
  }

  // 5. The network.
  const replyId = await step("assistant-message-id", async () => newId());
  await announce("announce-start", { type: "start", messageId: replyId });
  let status: TurnOutcome["status"] = "complete";
  let failure: Error | undefined;
  let reply: Reply | undefined;
  // The whole turn's bound: past it the turn ends as if stopped, keeping what was written.
  const deadline = new AbortController();
  const deadlineTimer = network.turnTimeoutMs === undefined ? undefined : setTimeout(() => deadline.abort(), network.turnTimeoutMs);
  deadlineTimer?.unref();
  const signal = deps.signal ? AbortSignal.any([deps.signal, deadline.signal]) : deadline.signal;
  try {
    if (compactionFailure) throw compactionFailure;
    if (network.maxInputChars !== undefined && inputChars > network.maxInputChars) throw tooLong(inputChars, network.maxInputChars, input.message.content.length);
    const outcome = await runNetwork({
      network,
      messagesFor,
      historyTrim: (agent) => ({ ...policyFor(agent), from: inThread, to: applyHistoryPolicy(conversation(), policyFor(agent)).length }),
      context: { owner: input.owner, threadId, signal },
      publish,
      step,
      newId,
      retriesSteps: deps.retriesSteps,
    });
    const outOfTime = outcome.stopped && deadline.signal.aborted && !deps.signal?.aborted;
    if (outOfTime) {
      failure = new Error(`The reply took longer than ${Math.round(network.turnTimeoutMs! / 1000)} s and was ended; what it wrote is kept.`);
    } else if (outcome.failure !== undefined) {
      failure = new Error(outcome.failure);
    }
    status = failure ? "incomplete" : outcome.stopped ? "stopped" : "complete";
    reply = { id: replyId, role: "assistant", parts: outcome.parts, status: status as Reply["status"] };
  } catch (error) {
    status = "failed";
    failure = error instanceof Error ? error : new Error(String(error));
  } finally {
    clearTimeout(deadlineTimer);
  }

  // 6. The reply: only this run's, in one statement. A stopped reply keeps what was written.
  const toStore = reply && reply.parts.length > 0 ? reply : undefined;
  let replySeq: number | undefined;
  if (toStore && history.appendResults) {
    try {
      const saved = await step("append-results", () =>
        saveReply(() => history.appendResults!({ ...scope, threadId, reply: toStore, turn: { messageId: input.message.id, turnId: input.turnId } }), {
          retryMs: deps.saveRetryMs ?? DEFAULT_SAVE_RETRY_MS,
          turnId: input.turnId,
        }),
      );
      if ("refused" in saved) {
        status = "failed";
        failure = new Error(`The reply could not be saved: ${saved.refused}. Copy it if you need it.`);
      } else {
        replySeq = saved.seq;
      }
    } catch (error) {
      status = "failed";
      failure = new Error(`The reply could not be saved: ${saveFailure(error)}. Copy it if you need it, then send your message again.`, {
        cause: error,
      });
    }
  }

  const signed: UIMessageChunk[] = [];
  if (deps.signer && toStore && replySeq !== undefined && status !== "failed") {
    const signature = deps.signer(threadId, { ...toStore, seq: replySeq });
    signed.push(signaturesChunk([{ id: toStore.id, signature, seq: replySeq }]));
  }
  if (status === "failed" || status === "incomplete") {
    // The error shows beside what was written (kept, when the reply is incomplete).
    await announce("announce-end", ...signed, { type: "error", errorText: failure!.message });
  } else {
    const finish: UIMessageChunk = { type: "finish", finishReason: status === "stopped" ? "other" : "stop" };
    await announce("announce-end", ...signed, ...(status === "stopped" ? [stoppedChunk] : []), finish);
  }
  // The thread's size after this turn, as the model would next read it, says whether to compact it.
  const threadMessages = messagesBefore === undefined ? undefined : messagesBefore + 1 + (replySeq !== undefined ? 1 : 0);
  const nextInputChars = inputChars + (replySeq !== undefined && toStore ? messageChars(toStore) : 0);
  const compact =
    threadMessages !== undefined &&
    history.appendSummary !== undefined &&
    needsCompaction(historyCount(threadMessages, summary?.parts[0]), network.compaction, {
      chars: nextInputChars,
      limits: sizeLimits(network.maxInputChars),
    });
  return { threadId, historySource: source, status, reply: status === "failed" ? undefined : toStore, error: failure, compact };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The clear error of a model input over the budget even after compaction: the new message, or what the thread holds. */
function tooLong(inputChars: number, maxInputChars: number, messageChars: number): Error {
  const sizes = `${inputChars.toLocaleString("en")} characters; the limit is ${maxInputChars.toLocaleString("en")}`;
  if (messageChars > maxInputChars) return new Error(`This message is too long to send to the model (${sizes}). Send a shorter one.`);
  return new Error(`This thread is too long to send to the model (${sizes}). Start a new thread to go on.`);
}
