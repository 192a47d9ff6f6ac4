import type { z } from "zod";
import type { JsonValue } from "@threadline/history/parts";

/** What a tool may know about the turn that calls it. */
export interface ToolContext {
  /** The identity the turn runs for: a tool reads only what this owner may read. */
  owner: string;
  threadId: string;
  signal?: AbortSignal;
}

/**
 * A tool an agent may call. Its input is checked against `input` before
 * `execute` runs; an invalid input or a throw becomes an error result the
 * model reads, never a failed turn.
 */
export interface AgentTool<Input = unknown> {
  name: string;
  description: string;
  input: z.ZodType<Input>;
  execute(input: Input, context: ToolContext): Promise<JsonValue>;
}

export function defineTool<Input>(tool: AgentTool<Input>): AgentTool {
  return tool as AgentTool;
}
