import "server-only";
import { stepCountIs, streamText, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import type { AgentResult } from "@/lib/history/types";
import { describeModelError } from "@/lib/model/provider-errors";
import type { TextChunkSink } from "./stream-chunks";

export interface Agent {
  name: string;
  system: string;
  /** Falls back to the network's model. */
  model?: LanguageModel;
  tools?: ToolSet;
  /** Model steps one agent may take when it calls tools. */
  maxSteps?: number;
}

export interface RouterState {
  iteration: number;
  /** Results produced so far in this run, in order. */
  results: AgentResult[];
  agents: Agent[];
}

/** Picks the next agent, or undefined to end the run. */
export type Router = (state: RouterState) => Agent | undefined;

export interface Network {
  agents: Agent[];
  router: Router;
  maxIter: number;
  /** The most characters of conversation one model call may be given (history and message); over it, no call is made. */
  maxInputChars?: number;
  model: LanguageModel;
  /** The AI SDK's own retries of a failed model call; a durable runtime retries the whole step instead. */
  maxRetries?: number;
}

/** Runs the first agent once: the network of one. */
export const firstAgentOnce: Router = ({ iteration, agents }) => (iteration === 0 ? agents[0] : undefined);

export function createNetwork(options: {
  agents: Agent[];
  model: LanguageModel;
  router?: Router;
  maxIter?: number;
  maxInputChars?: number;
}): Network {
  if (options.agents.length === 0) throw new Error("A network needs at least one agent.");
  return {
    agents: options.agents,
    model: options.model,
    router: options.router ?? firstAgentOnce,
    maxIter: options.maxIter ?? 5,
    maxInputChars: options.maxInputChars,
  };
}

export class ModelCallError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ModelCallError";
  }
}

/**
 * One agent's answer, streamed into `sink` as the model produces it. On abort
 * the text written so far is returned with status "stopped".
 */
export async function runAgent(args: {
  agent: Agent;
  model: LanguageModel;
  messages: ModelMessage[];
  resultId: string;
  sink: TextChunkSink;
  signal?: AbortSignal;
  maxRetries?: number;
}): Promise<AgentResult> {
  const { agent, sink, resultId } = args;
  let text = "";
  let started = false;
  let failure: unknown;
  const result = streamText({
    model: agent.model ?? args.model,
    system: agent.system,
    messages: args.messages,
    tools: agent.tools,
    stopWhen: stepCountIs(agent.maxSteps ?? 1),
    abortSignal: args.signal,
    maxRetries: args.maxRetries,
    // Errors arrive as stream parts below; the default handler would only log them.
    onError: () => {},
  });
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        if (!started) {
          started = true;
          await sink.textStart(resultId);
        }
        text += part.text;
        await sink.textDelta(resultId, part.text);
      } else if (part.type === "error") {
        failure = part.error;
      }
    }
  } catch (error) {
    // An abort surfaces as whatever the provider's interrupted fetch throws.
    failure = error;
  }
  if (started) await sink.textEnd(resultId);
  const stopped = args.signal?.aborted ?? false;
  if (failure !== undefined && !stopped) {
    throw new ModelCallError(describeModelError(failure), { cause: failure });
  }
  return { id: resultId, role: "assistant", agentName: agent.name, content: text, status: stopped ? "stopped" : "complete" };
}
