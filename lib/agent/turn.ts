import "server-only";
import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { AppError } from "@/lib/errors";
import type { AgentResult, ConversationMessage, HistoryConfig, UserMessage } from "@/lib/history/types";
import { buildModelMessages, historySource, resolveThread, shouldLoadHistory, type HistorySource } from "./lifecycle";
import { runAgent, type Network } from "./network";
import { CHAIN_START, type HistorySigner } from "@/lib/auth/history-signature";
import { signaturesChunk, stoppedChunk, textSink, threadChunk, type Publish } from "./stream-chunks";

/** What a runtime must know about a step besides its id. */
export interface StepOptions {
  /** The user's Stop may abort this step's work (a model call): the runtime keeps its handle while it runs. */
  stoppable?: boolean;
}

/**
 * Wraps a side effect so a durable runtime can memoize it under a stable id
 * (Inngest's step.run). The inline runtime just runs it.
 */
export type StepRunner = <T>(id: string, work: () => Promise<T>, options?: StepOptions) => Promise<T>;
export const runNow: StepRunner = (_id, work) => work();

export interface TurnInput {
  owner: string;
  /** This turn's id: stable across a durable run's retries, new for every request. */
  turnId: string;
  /** The thread the client named, if any. */
  threadId?: string;
  message: UserMessage;
  /** The client's copy of the earlier messages; undefined when it sent none. */
  clientHistory?: ConversationMessage[];
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
  results: AgentResult[];
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
  let earlier: ConversationMessage[] = input.clientHistory ?? [];
  if (shouldLoadHistory({ clientThreadId, clientSentHistory, createdThisTurn, hasGet: Boolean(history.get) })) {
    earlier = await step("load-history", () => history.get!({ ...scope, threadId }));
  }
  const messages = buildModelMessages(earlier, input.message);

  // The user's message signed onto the thread's chain, now that the history before it is known.
  let lastSignature = CHAIN_START;
  if (deps.signer) {
    const prior = earlier.filter((m) => m.id !== input.message.id);
    lastSignature = deps.signer.chain(threadId, prior).at(-1) ?? CHAIN_START;
    lastSignature = deps.signer.next(threadId, lastSignature, input.message);
    await announce("announce-user-signature", signaturesChunk([{ id: input.message.id, signature: lastSignature }]));
  }

  // 4. The network.
  const results: AgentResult[] = [];
  const messageId = await step("assistant-message-id", async () => newId());
  await announce("announce-start", { type: "start", messageId });
  let status: TurnOutcome["status"] = "complete";
  let failure: Error | undefined;
  const inputChars = messages.reduce((sum, m) => sum + (typeof m.content === "string" ? m.content.length : 0), 0);
  try {
    if (network.maxInputChars !== undefined && inputChars > network.maxInputChars) {
      throw new Error(
        `This thread is too long to send to the model (${inputChars.toLocaleString("en")} characters; the limit is ` +
          `${network.maxInputChars.toLocaleString("en")}). Start a new thread to go on.`,
      );
    }
    for (let iteration = 0; iteration < network.maxIter; iteration++) {
      const agent = network.router({ iteration, results, agents: network.agents });
      if (!agent) break;
      const earlierResults = results.map((r) => ({ role: "assistant" as const, content: r.content }));
      // One step per model call: its memoized value is the whole reply, and the
      // tokens stream out while it runs, so a finished call is never repeated.
      const result = await step(
        `agent-${iteration}-${agent.name}`,
        async () => {
          await publish({ type: "start-step" });
          const reply = await runAgent({
            agent,
            model: network.model,
            messages: [...messages, ...earlierResults],
            resultId: iteration === 0 ? messageId : newId(),
            sink: textSink(publish),
            signal: deps.signal,
            maxRetries: network.maxRetries,
          });
          await publish({ type: "finish-step" });
          return reply;
        },
        { stoppable: true },
      );
      results.push(result);
      if (result.status === "stopped") {
        status = "stopped";
        break;
      }
    }
  } catch (error) {
    status = "failed";
    failure = error instanceof Error ? error : new Error(String(error));
  }

  // 5. The results: only this run's, in one transaction. A stopped reply keeps what was written.
  const toStore = results.filter((r) => r.content.length > 0);
  if (status !== "failed" && history.appendResults && toStore.length > 0) {
    try {
      await step("append-results", () => history.appendResults!({ ...scope, threadId, results: toStore }));
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
    if (deps.signer && history.appendResults && toStore.length > 0) {
      const signatures = toStore.map((result) => {
        lastSignature = deps.signer!.next(threadId, lastSignature, result);
        return { id: result.id, signature: lastSignature };
      });
      signed.push(signaturesChunk(signatures));
    }
    await announce("announce-end", ...signed, ...(status === "stopped" ? [stoppedChunk] : []), finish);
  }
  return { threadId, historySource: source, status, results, error: failure };
}
