import "server-only";
import { z } from "zod";
import { jsonDepth, MAX_JSON_DEPTH } from "@threadline/history/json-depth";
import type { JsonValue, ToolCallPart, ToolResultPart } from "@threadline/history/parts";
import { STOPPED_TOOL_ERROR } from "@/lib/protocol/tool-errors";
import { ToolUnavailableError, type AgentTool, type ToolContext } from "./types";

/**
 * Runs one tool call. Whatever goes wrong (no such tool, an input that does
 * not fit, a throw, Stop) becomes an error result the model can read; only
 * the output of a tool that finished is an output. The one exception: an
 * approved call whose service cannot be reached throws (retryUnavailable).
 */
export async function runTool(
  tools: AgentTool[],
  call: ToolCallPart,
  context: ToolContext,
  invalid?: string,
): Promise<ToolResultPart> {
  const result = (outcome: { output: JsonValue } | { error: string }): ToolResultPart => ({
    type: "tool-result",
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ...outcome,
    ...(call.agentName ? { agentName: call.agentName } : {}),
  });
  if (invalid) return result({ error: invalid });
  const tool = tools.find((t) => t.name === call.toolName);
  if (!tool) return result({ error: `There is no tool named "${call.toolName}".` });
  const input = tool.input.safeParse(call.input);
  if (!input.success) return result({ error: `The input does not fit ${tool.name}: ${z.prettifyError(input.error)}` });
  // The call's own signal, following the turn's only while the call runs: a library that leaves its listener
  // on the signal it is given (the MCP SDK does) would otherwise keep the turn's request alive with it.
  const own = new AbortController();
  const follow = () => own.abort(context.signal?.reason);
  if (context.signal?.aborted) follow();
  else context.signal?.addEventListener("abort", follow, { once: true });
  try {
    const callContext = { ...context, signal: own.signal, toolCallId: call.toolCallId, ...(call.agentName ? { agentName: call.agentName } : {}) };
    const output = await abortable(tool.execute(input.data, callContext), context.signal);
    // Only JSON travels on: to the model, the database and the client; and none nested deeper than a part may hold.
    const json = JSON.parse(JSON.stringify(output ?? null)) as JsonValue;
    if (jsonDepth(json) > MAX_JSON_DEPTH) return result({ error: `The tool's output nests objects and arrays more than ${MAX_JSON_DEPTH} deep, so it was not kept.` });
    return result({ output: json });
  } catch (error) {
    if (context.signal?.aborted) return result({ error: STOPPED_TOOL_ERROR });
    if (context.retryUnavailable && error instanceof ToolUnavailableError) throw error;
    return result({ error: error instanceof Error ? error.message : String(error) });
  } finally {
    context.signal?.removeEventListener("abort", follow);
  }
}

/** Ends the wait when the signal aborts, for tools that do not listen to it themselves. */
function abortable<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
