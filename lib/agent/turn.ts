import "server-only";
import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { AppError } from "@/lib/errors";
import { modelInputChars } from "@/lib/history/codec";
import type { HistoryConfig, Reply, ThreadMessage, UserMessage } from "@/lib/history/types";
import { userMessage } from "@/lib/protocol/parts";
import { buildModelMessages, conversationWith, historySource, resolveThread, shouldLoadHistory, type HistorySource } from "./lifecycle";
import type { Agent, Network } from "./network";
import { dataChunk } from "@/lib/protocol/chat";
import { resolveHistoryPolicy, type HistoryPolicy } from "@/lib/protocol/history-policy";
import { runNetwork } from "./run-network";
import { runNow, type StepRunner } from "./steps";
import { CHAIN_START, type HistorySigner } from "@/lib/auth/history-signature";
import { signaturesChunk, stoppedChunk, threadChunk, type Publish } from "./stream-chunks";

export type { StepOptions, StepRunner } from "./steps";

export interface TurnInput {
  owner: string;
  /** This turn's id: stable across a durable run's retries, new for every request. */
  turnId: string;
  /** The thread the client named, if any. */
  threadId?: string;
  message: UserMessage;
  /** The client's copy of the earlier messages; undefined when it sent none. */
  clientHistory?: ThreadMessage[];
  /** The history policy the page's URL asked for; the operator's setting wins over it. */
  historyPolicy?: Partial<HistoryPolicy>;
}

export interface TurnDeps {
  history: HistoryConfig;
  network: Network;
  publish: Publish;
  signal?: AbortSignal;
  step?: StepRunner;
  /** Called once the thread is known and the user's message is stored, before any model call. */
  onReady?: (ready: { threadId: string; historySource: HistorySource }) => void;
  generateId?: () => string;
  /** Signs the messages this turn stores, so the client may send them back as trusted history. */
  signer?: HistorySigner;
}

export interface TurnOutcome {
  threadId: string;
  historySource: HistorySource;
  status: "complete" | "stopped" | "failed";
  /** What the turn produced and stored (possibly nothing). */
  reply?: Reply;
  error?: Error;
}

export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnOutcome> {
  const { history, network, publish } = deps;
  const step = deps.step ?? runNow;
  const newId = deps.generateId ?? randomUUID;
  const scope = { owner: input.owner };

  // 1. The thread.
  const resolution = resolveThread(input.threadId, history);
  let threadId: string;
  let createdThisTurn = false;
  switch (resolution.kind) {
    case "upsert":
    case "create": {
      const created = await step("create-thread", () =>
        history.createThread!({ ...scope, threadId: resolution.kind === "upsert" ? resolution.threadId : undefined }),
      );
      threadId = created.threadId;
      createdThisTurn = created.created;
      break;
    }
    case "use-given":
      threadId = resolution.threadId;
      break;
    case "generate":
    case "none":
      // Generated inside a step so that a replay of the run agrees on it.
      threadId = await step("generate-thread-id", async () => newId());
      createdThisTurn = true;
      break;
  }

  // 2. The user's message, at once: it survives a failed run and makes "regenerate" possible.
  if (history.appendUserMessage) {
    const { duplicate } = await step("append-user-message", () =>
      history.appendUserMessage!({ ...scope, threadId, turnId: input.turnId, message: input.message }),
    );
    if (duplicate) {
      throw new AppError("conflict:duplicate_message", "This message was already sent; its reply is in the thread.");
    }
  }

  const clientThreadId = resolution.kind === "upsert" || resolution.kind === "use-given";
  const clientSentHistory = input.clientHistory !== undefined;
  const source = historySource({ clientSentHistory, createdThisTurn, clientThreadId });
  deps.onReady?.({ threadId, historySource: source });
  // Chunks outside the model call are published in steps of their own: a
  // durable runtime replays the code between steps, and they must go out once.
  const announce = (id: string, ...chunks: UIMessageChunk[]) =>
    step(id, async () => {
      for (const chunk of chunks) await publish(chunk);
    });
  await announce("announce-thread", threadChunk(threadId, source));

  // 3. The history: the client's copy, or the database's.
  let earlier: ThreadMessage[] = input.clientHistory ?? [];
  if (shouldLoadHistory({ clientThreadId, clientSentHistory, createdThisTurn, hasGet: Boolean(history.get) })) {
    earlier = await step("load-history", () => history.get!({ ...scope, threadId }));
  }
  // 4. What each agent reads of it: the history policy in force (the operator's, the URL's, or the agent's own).
  const policyFor = (agent: Agent) =>
    resolveHistoryPolicy({ environment: network.historyPolicy, url: input.historyPolicy, agentDefault: agent.history });
  const messagesFor = (agent: Agent) => buildModelMessages(earlier, input.message, policyFor(agent));
  const entry = policyFor(network.agents[0]);
  const messages = messagesFor(network.agents[0]);
  const inputChars = modelInputChars(messages);
  await announce(
    "announce-history",
    dataChunk("history", {
      policy: entry.policy,
      length: entry.length,
      source: entry.source,
      threadMessages: conversationWith(earlier, input.message).length,
      sentMessages: messages.length,
      // About four characters a token: an estimate for the debug panel, not a bill.
      sentTokens: Math.ceil(inputChars / 4),
    }),
  );

  // The user's message signed onto the thread's chain, now that the history before it is known.
  let lastSignature = CHAIN_START;
  if (deps.signer) {
    const prior = earlier.filter((m) => m.id !== input.message.id);
    lastSignature = deps.signer.chain(threadId, prior).at(-1) ?? CHAIN_START;
    lastSignature = deps.signer.next(threadId, lastSignature, userMessage(input.message.id, input.message.content));
    await announce("announce-user-signature", signaturesChunk([{ id: input.message.id, signature: lastSignature }]));
  }

  // 5. The network.
  const replyId = await step("assistant-message-id", async () => newId());
  await announce("announce-start", { type: "start", messageId: replyId });
  let status: TurnOutcome["status"] = "complete";
  let failure: Error | undefined;
  let reply: Reply | undefined;
  try {
    if (network.maxInputChars !== undefined && inputChars > network.maxInputChars) {
      throw new Error(
        `This thread is too long to send to the model (${inputChars.toLocaleString("en")} characters; the limit is ` +
          `${network.maxInputChars.toLocaleString("en")}). Start a new thread to go on.`,
      );
    }
    const outcome = await runNetwork({
      network,
      messagesFor,
      context: { owner: input.owner, threadId, signal: deps.signal },
      publish,
      step,
      newId,
    });
    status = outcome.stopped ? "stopped" : "complete";
    reply = { id: replyId, role: "assistant", parts: outcome.parts, status };
  } catch (error) {
    status = "failed";
    failure = error instanceof Error ? error : new Error(String(error));
  }

  // 6. The reply: only this run's, in one statement. A stopped reply keeps what was written.
  const toStore = reply && reply.parts.length > 0 ? reply : undefined;
  if (toStore && history.appendResults) {
    try {
      await step("append-results", () => history.appendResults!({ ...scope, threadId, reply: toStore }));
    } catch (error) {
      status = "failed";
      failure = new Error("The reply could not be saved.", { cause: error });
    }
  }

  if (status === "failed") {
    await announce("announce-end", { type: "error", errorText: failure!.message });
  } else {
    const finish: UIMessageChunk = { type: "finish", finishReason: status === "stopped" ? "other" : "stop" };
    const signed: UIMessageChunk[] = [];
    if (deps.signer && history.appendResults && toStore) {
      lastSignature = deps.signer.next(threadId, lastSignature, toStore);
      signed.push(signaturesChunk([{ id: toStore.id, signature: lastSignature }]));
    }
    await announce("announce-end", ...signed, ...(status === "stopped" ? [stoppedChunk] : []), finish);
  }
  return { threadId, historySource: source, status, reply: status === "failed" ? undefined : toStore, error: failure };
}
