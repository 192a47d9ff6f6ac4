import "server-only";
import { randomUUID } from "node:crypto";
import type { ModelMessage, UIMessageChunk } from "ai";
import { AppError } from "@threadline/history/errors";
import { modelInputChars } from "./input-budget";
import type { Ending } from "./turn-ending";
import { answerFrom, startChunk, withCoalescedPublish, type ReplyStart } from "./turn-pipeline";
import type { SummaryMessage, ThreadMessage, TurnClaim } from "@threadline/history/contract";
import { userMessage, type UserMessage } from "@threadline/history/parts";
import type { FileInput } from "@/lib/protocol/parts-codec";
import {
  buildModelMessages,
  clientHistoryCovers,
  conversationWith,
  historySource,
  threadIdForFirstMessage,
  shouldLoadHistory,
  widestWindow,
  type HistorySource,
} from "./lifecycle";
import { agentHistoryPolicy, withDynamicTools, withModel, type Agent } from "../network/network";
import { dataChunk } from "@/lib/protocol/chat";
import { applyHistoryPolicy, type ResolvedHistoryPolicy } from "@/lib/protocol/history-policy";
import { fileInputFor } from "./files-in-window";
import {
  canCompact,
  compactThread,
  historyCount,
  messageChars,
  needsCompaction,
  sizeLimits,
  storeSummary,
  summarizeThread,
  type SummaryDraft,
} from "../compaction";
import { claimOrWait, replayTurn, underLease } from "./turn-claims";
import { runNow, type StepRunner } from "./steps";
import type { TurnDeps, TurnInput, TurnOutcome } from "./turn-types";
import { seqAfter } from "@/lib/auth/history-signature";
import { signaturesChunk, threadChunk } from "./stream-chunks";
import { recallChars, withMemories, type RecalledMemory } from "../model/turn-memory";

export type { StepOptions, StepRunner } from "./steps";
export type { TurnDeps, TurnInput, TurnOutcome } from "./turn-types";

/**
 * A new message's turn, in steps: open it (the thread, the claim on the
 * message and the message), store the user's message, read the history,
 * compact it first if it is too big, tell the client what the model is
 * given; then the pipeline every turn ends in (./turn-pipeline.ts): run the
 * network, store the reply, end the stream, and say whether to compact the
 * thread before the next turn and whether to name it.
 */
export async function runTurn(input: TurnInput, given: TurnDeps): Promise<TurnOutcome> {
  return withCoalescedPublish(given, async (deps) =>
    // The model the user picked answers, while it is on offer; else the default does, and the reply says which.
    // The MCP servers' tools as kept, listed in a step (a durable run's replays agree); a server that is down is left out.
    runTurnWith(input, { ...deps, network: await withDynamicTools(withModel(given.network, input.model), given.step) }),
  );
}

async function runTurnWith(given: TurnInput, deps: TurnDeps): Promise<TurnOutcome> {
  const { turns } = deps.history;
  const thread = await openThread(given, deps);
  // A regenerate answers the user's message as the thread holds it, whatever the request said it was.
  const input = thread.message ? { ...given, message: thread.message } : given;
  // Who answers this message: one turn per client message id, however often it was sent.
  const claim = await claimOrWait(input, deps, turns, thread.threadId, thread.claim);
  if (!claim.claimed) return replayTurn(input, deps, turns, claim.threadId);
  // A runner that dies takes its session's lock with it (lib/db/runner-lock.ts), or stops
  // renewing its lease, and the message may be answered again.
  return underLease({ owner: input.owner, messageId: input.message.id, turnId: input.turnId }, deps, (running) => answerTurn(input, running, thread));
}

/** Where the turn stands once its thread is known. */
interface ThreadState {
  threadId: string;
  createdThisTurn: boolean;
  /** User and assistant messages the thread held before this turn. */
  messagesBefore: number;
  summary?: SummaryMessage;
  /** The thread id came from the client. */
  clientThreadId: boolean;
  /** The user's message's seq, when opening the turn stored it already. */
  userSeq?: number;
  /** Whether this turn may answer the message, or another turn has or is answering it. */
  claim: TurnClaim;
  /** A regenerate: the user's message as stored, answered again; the reply it writes replaces `input.replaces`. */
  message?: UserMessage;
  /** The message the user's message follows (null: it starts the thread). */
  userParentId?: string | null;
  /** A waiting reply this message ended first: the client's copy still shows it waiting. */
  settledReply?: string;
}

/**
 * 1. The thread. The turn opens in one step: the thread, the claim on the
 * message and the message itself; a first message's thread is named after
 * the message, so the same message sent twice can never start two threads.
 */
async function openThread(input: TurnInput, deps: TurnDeps): Promise<ThreadState> {
  const { turns } = deps.history;
  const step = deps.step ?? runNow;
  const given = input.threadId || undefined;
  const clientThreadId = given !== undefined;
  const { replaces } = input;
  if (replaces !== undefined && !given) {
    throw new AppError("bad_request:replaces", "A new version needs the thread it belongs to: send its threadId with replaces.");
  }
  const threadId = given ?? threadIdForFirstMessage(input.owner, input.message.id);
  const turn = { owner: input.owner, messageId: input.message.id, turnId: input.turnId, replaces };
  const opened = await step("open-turn", () => turns.openTurn({ ...turn, threadId, message: input.message, leaseMs: deps.leaseMs ?? null, origin: input.origin }));
  const { created: createdThisTurn, messages: messagesBefore, summary, userSeq, claim, message, userParentId, settledReply } = opened;
  return { threadId: opened.threadId, createdThisTurn, messagesBefore, summary, clientThreadId, userSeq, claim, message, userParentId, settledReply };
}

/** What every step of a turn reads: its input and dependencies, its thread, and what each agent reads of it. */
interface Turn {
  input: TurnInput;
  deps: TurnDeps;
  thread: ThreadState;
  step: StepRunner;
  newId: () => string;
  /** Publishes chunks outside the model call, in a step of their own: a durable runtime replays the code between steps, and they must go out once. */
  announce: (id: string, ...chunks: UIMessageChunk[]) => Promise<void>;
  /** The history policy in force for an agent: the operator's, the URL's, or the agent's own. */
  policyFor: (agent: Agent) => ResolvedHistoryPolicy;
  /** How much of the thread the widest of those policies reads (undefined: all of it). */
  window: number | undefined;
}

/** What the model reads of the thread. Compacting the thread before the turn replaces it. */
interface Reading {
  source: HistorySource;
  summary?: SummaryMessage;
  /** A summary the model reads in this turn that is stored once the reply is (a regenerate's: see compactIfTooBig). */
  unstored?: SummaryDraft;
  /** The thread's messages before the new one, from the first the model reads on. */
  earlier: (ThreadMessage & { seq: number })[];
  /** The entry agent's input. */
  messages: ModelMessage[];
  /** What the files attached to the thread's messages become for the model; unset: none are. */
  fileInput?: FileInput;
  /** The person's memories the models are given first, as data. */
  memories: RecalledMemory[];
}

/** The turn from the user's message on: store it, read the history, run the network, store the reply. */
async function answerTurn(input: TurnInput, deps: TurnDeps, thread: ThreadState): Promise<TurnOutcome> {
  const step = deps.step ?? runNow;
  const policyFor = (agent: Agent) => agentHistoryPolicy(deps.network, agent, input.historyPolicy);
  const turn: Turn = {
    input,
    deps,
    thread,
    step,
    newId: deps.generateId ?? randomUUID,
    announce: (id, ...chunks) =>
      step(id, async () => {
        for (const chunk of chunks) await deps.publish(chunk);
      }),
    policyFor,
    window: widestWindow(deps.network.agents.map(policyFor)),
  };
  const userSeq = await storeUserMessage(turn);
  const reading = await readHistory(turn, userSeq, await recallMemories(turn));
  const compactionFailure = await compactIfTooBig(turn, reading, userSeq);
  const inputSize = await announceInput(turn, reading, userSeq);
  const replyId = await step("assistant-message-id", async () => turn.newId());
  await turn.announce("announce-start", startChunk(replyId, deps.network));
  await recordMemoriesUsed(turn, reading, replyId);
  // From here on the turn is the pipeline every turn ends in.
  return answerFrom(
    {
      owner: input.owner,
      threadId: thread.threadId,
      turnId: input.turnId,
      historySource: reading.source,
      message: { id: input.message.id, content: input.message.content, seq: userSeq },
      replyId,
      parts: [],
      network: deps.network,
      timeZone: input.timeZone,
      messagesFor: messagesFor(turn, reading),
      historyTrim: (agent) => ({ ...policyFor(agent), from: inputSize.inThread, to: applyHistoryPolicy(conversationOf(turn, reading), policyFor(agent)).length }),
      failure: compactionFailure,
      // A regenerate's reply is a new version of the one it replaces; an edit's new message already made its branch.
      replaces: thread.message ? input.replaces : undefined,
      naming: naming(turn),
      afterStore: async () => {
        const summary = await storeSummaryAfterReply(turn, reading);
        return summary ? [summary] : [];
      },
      compactAfter: (ending) => compactAfter(turn, reading, inputSize, ending),
      settledReply: thread.settledReply,
    },
    { ...deps, step, newId: turn.newId },
  );
}

/** 2. The user's message, at once: it survives a failed run and makes "regenerate" possible. Its seq, when the adapter numbers messages. */
async function storeUserMessage({ input, deps, thread, step }: Turn): Promise<number | undefined> {
  // Opening the turn stored it; a turn that took over from one that died finds it stored, and asks where.
  if (thread.userSeq !== undefined) return thread.userSeq;
  // The claim already decided who answers a message sent twice, so a duplicate here is this turn's own message.
  const { seq } = await step("append-user-message", () =>
    deps.history.appendUserMessage({ owner: input.owner, threadId: thread.threadId, turnId: input.turnId, message: input.message }),
  );
  return seq;
}

/** 3. The history: the client's copy when it holds the whole window, otherwise the window of it the database holds. */
async function readHistory(turn: Turn, userSeq: number | undefined, memories: RecalledMemory[]): Promise<Reading> {
  const { input, deps, thread, window } = turn;
  const { threadId, createdThisTurn, clientThreadId, summary } = thread;
  // A compacted thread is read from after what its latest summary stands for.
  const fromSeq = summary ? readFrom(summary) : undefined;
  const copy = input.clientHistory;
  const userParentId = thread.userParentId;
  // A copy that still shows a reply this message ended first is read from the database instead.
  const useClientHistory = copy !== undefined && thread.settledReply === undefined && clientHistoryCovers({ history: copy, userSeq, userParentId, window, fromSeq, seqAfter });
  const source = historySource({ clientSentHistory: useClientHistory, createdThisTurn, clientThreadId });
  deps.onReady?.({ threadId, historySource: source });
  await turn.announce("announce-thread", threadChunk(threadId, source));

  let earlier = useClientHistory ? copy.filter((m) => m.seq >= (fromSeq ?? 1)) : [];
  if (shouldLoadHistory({ clientThreadId, clientSentHistory: useClientHistory, createdThisTurn, hasGet: true })) {
    // Up to the user's message: a regenerate's thread still holds the reply it replaces, and what followed.
    const untilSeq = userSeq;
    earlier = await turn.step("load-history", () => deps.history.get({ owner: input.owner, threadId, lastUserMessages: window, fromSeq, untilSeq }));
  }
  const reading: Reading = { source, summary, earlier, messages: [], fileInput: await fileInputOf(turn, earlier, summary), memories };
  reading.messages = messagesFor(turn, reading)(entryAgent(turn));
  return reading;
}

/**
 * 3b. A history too big for the model is compacted first, as steps of this
 * turn. A failure is returned, not thrown: it ends the turn once the client
 * has been told what the turn read.
 */
async function compactIfTooBig(turn: Turn, reading: Reading, userSeq: number | undefined): Promise<Error | undefined> {
  const { input, deps, thread, step, newId } = turn;
  const { history, network } = deps;
  const overBudget = network.maxInputChars !== undefined && modelInputChars(reading.messages) > network.maxInputChars;
  if (userSeq === undefined || !canCompact(network) || !overBudget) return undefined;
  await turn.announce("announce-compacting", dataChunk("notice", { text: "Summarizing earlier messages…" }));
  const scope = { owner: input.owner, threadId: thread.threadId };
  const readSummary = (summary: SummaryMessage) => {
    const fromSeq = readFrom(summary);
    reading.summary = summary;
    reading.earlier = reading.earlier.filter((m) => m.seq >= fromSeq);
    reading.messages = messagesFor(turn, reading)(entryAgent(turn));
  };
  try {
    if (thread.message !== undefined) {
      // A regenerate: the thread's path still ends with the reply it replaces
      // (it branches when the new reply is stored), so a summary stored now
      // would follow that reply off the path and the next turn would summarize
      // again. The model reads it now; it is stored after the new reply.
      const draft = await summarizeThread({ ...scope, beforeSeq: userSeq }, { history, network, step, newId });
      if (draft) {
        reading.unstored = draft;
        readSummary(unstoredSummary(draft));
      }
      return undefined;
    }
    await compactThread({ ...scope, beforeSeq: userSeq }, { history, network, step, newId });
    const latest = await step("read-summary", async () => (await history.summaries.latest(scope)) ?? null);
    if (latest && latest.seq !== reading.summary?.seq) readSummary(latest);
    return undefined;
  } catch (error) {
    return new Error(`Earlier messages could not be summarized to fit the model's input: ${errorText(error)}`, { cause: error });
  }
}

/** The size of what the model is sent: the thread's messages it stands for, and its characters. */
interface InputSize {
  /** The whole thread's size. */
  inThread: number;
  inputChars: number;
}

/** 4. What the model is given, told to the client: the latest summary, the window sent, the user's message signed where it sits. */
async function announceInput(turn: Turn, reading: Reading, userSeq: number | undefined): Promise<InputSize> {
  const { input, deps, thread, announce } = turn;
  const { threadId, messagesBefore } = thread;
  const { summary } = reading;
  // The latest summary, signed, for a client whose copy lacks it (it was
  // written after that client's last turn): its next copy then fits together.
  // One stored after the reply is announced with the reply's end.
  if (summary && !reading.unstored && deps.signer && !input.clientHistory?.some((m) => m.id === summary.id)) {
    await announce("announce-summary", compactedChunk(deps.signer, threadId, summary));
  }
  // What the entry agent is given, for the debug panel and the budget.
  const entry = turn.policyFor(entryAgent(turn));
  const inThread = messagesBefore + 1;
  const inputChars = modelInputChars(reading.messages);
  await announce(
    "announce-history",
    dataChunk("history", {
      policy: entry.policy,
      length: entry.length,
      source: entry.source,
      threadMessages: inThread,
      sentMessages: reading.messages.length,
      // About four characters a token: an estimate for the debug panel, not a bill.
      sentTokens: Math.ceil(inputChars / 4),
      window: turn.window ?? null,
    }),
  );
  // The user's message signed where it sits, for the client to send back with its copy.
  if (deps.signer && userSeq !== undefined) {
    const { userParentId: parentId } = thread;
    const signature = deps.signer(threadId, { ...userMessage(input.message.id, input.message.content, input.message.files), seq: userSeq, parentId });
    await announce("announce-user-signature", signaturesChunk([{ id: input.message.id, signature, seq: userSeq, parentId }]));
  }
  return { inThread, inputChars };
}

/**
 * How the reply names the thread once complete: a reply to the thread's first
 * message names it; an edit of that message names it again; a regenerate
 * keeps the name its message gave the thread.
 */
function naming({ input, thread }: Turn): ReplyStart["naming"] {
  if (input.replaces === undefined) return "first";
  const edit = thread.message === undefined;
  return edit && thread.userParentId === null ? "rename" : "none";
}

/** 6. A summary this turn's model read and left to store after the reply (a regenerate's), stored after it: for the client, its data-compacted. */
async function storeSummaryAfterReply({ input, deps, thread, step, newId }: Turn, reading: Reading): Promise<UIMessageChunk | undefined> {
  if (!reading.unstored) return undefined;
  const scope = { owner: input.owner, threadId: thread.threadId };
  const stored = await storeSummary(scope, reading.unstored, { history: deps.history, step, newId }).catch((error) => {
    console.error(`[thread ${thread.threadId}] the summary could not be stored; the next turn summarizes again:`, errorText(error));
    return null;
  });
  if (!stored || !deps.signer) return undefined;
  const latest = await step("read-summary-after-reply", async () => (await deps.history.summaries.latest(scope)) ?? null);
  return latest && latest.seq === stored.seq ? compactedChunk(deps.signer, thread.threadId, latest) : undefined;
}

/** 7. Whether to compact the thread before its next turn: its size after this one, as the model would next read it. */
function compactAfter({ deps, thread }: Turn, reading: Reading, size: InputSize, ending: Ending): boolean {
  const { history, network } = deps;
  // A reply that waits goes on under its own id once decided: nothing may be stored after it meanwhile.
  if (ending.status === "waiting") return false;
  const stored = ending.status !== "failed" && ending.replySeq !== undefined ? ending.reply : undefined;
  const threadMessages = thread.messagesBefore + 1 + (stored ? 1 : 0);
  const chars = size.inputChars + (stored ? messageChars(stored) : 0);
  return needsCompaction(historyCount(threadMessages, reading.summary?.parts[0]), network.compaction, { chars, limits: sizeLimits(network.maxInputChars) });
}

/** Each agent's view of the thread, read from `reading` when called (compaction may replace it), the person's memories first. */
const messagesFor = ({ input, policyFor }: Turn, reading: Reading) => (agent: Agent) =>
  withMemories(buildModelMessages(reading.earlier, input.message, policyFor(agent), reading.summary, reading.fileInput), reading.memories);

/**
 * 2b. The person's memories most relevant to the message, read once (a
 * durable run keeps them): none for a temporary chat, which its first
 * message makes one before anything is read. Memory that cannot be read
 * leaves the model without it, never the turn without an answer.
 */
async function recallMemories({ input, deps, thread, step }: Turn): Promise<RecalledMemory[]> {
  const memory = deps.network.memory;
  if (!memory) return [];
  const scope = { owner: input.owner, threadId: thread.threadId };
  if (input.temporary && thread.messagesBefore === 0) await step("memory:temporary", () => memory.markTemporary(scope));
  return step("memory:recall", async () => {
    try {
      return await memory.recall({ ...scope, text: input.message.content, maxChars: recallChars(deps.network.maxInputChars) });
    } catch (error) {
      console.error(`[thread ${thread.threadId}] memories could not be read; the reply goes without them:`, errorText(error));
      return [];
    }
  });
}

/** 4b. Which memories the reply was given: recorded with it, and told to the client for its "Memory used" line. */
async function recordMemoriesUsed({ input, deps, thread, step, announce }: Turn, reading: Reading, replyId: string): Promise<void> {
  const memory = deps.network.memory;
  if (!memory || reading.memories.length === 0) return;
  const ids = reading.memories.map((m) => m.id);
  await step("memory:used", () =>
    memory.used({ owner: input.owner, threadId: thread.threadId, replyId }, ids).catch((error) => {
      console.error(`[thread ${thread.threadId}] which memories the reply was given could not be stored:`, errorText(error));
    }),
  );
  await announce("announce-memory", dataChunk("memory", { memories: reading.memories }));
}

/** What the files of the messages the models read (the new one's too) become for them. */
const fileInputOf = ({ input, deps, policyFor }: Turn, earlier: ThreadMessage[], summary: SummaryMessage | undefined) =>
  fileInputFor(deps.network, input.owner, conversationWith(earlier, input.message, summary), deps.network.agents.map(policyFor));

/** The thread as the model could read it: the summary, the earlier messages, the new one. */
const conversationOf = ({ input }: Turn, reading: Reading) => conversationWith(reading.earlier, input.message, reading.summary);

const entryAgent = ({ deps }: Turn): Agent => deps.network.agents[0];

/** A stored summary, signed, as the client adds it to its copy. */
function compactedChunk(signer: NonNullable<TurnDeps["signer"]>, threadId: string, summary: SummaryMessage): UIMessageChunk {
  const { id, seq, parentId, createdAt, parts } = summary;
  const { text, throughSeq, summarizedMessages, imported } = parts[0];
  const signature = signer(threadId, summary);
  return dataChunk("compacted", { id, seq, parentId, signature, createdAt, text, throughSeq, summarizedMessages, ...(imported ? { imported } : {}) });
}

/** A summary the model reads before it is stored: it has no place in the thread yet. */
function unstoredSummary({ summary }: SummaryDraft): SummaryMessage {
  return { id: "", seq: 0, role: "system", createdAt: "", status: "complete", parts: [{ type: "system-event", event: "compaction", ...summary }] };
}

/** The first seq the model reads of a compacted thread: the one after what its latest summary stands for. */
const readFrom = (summary: SummaryMessage) => summary.parts[0].throughSeq + 1;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
