import type { z } from "zod";
import type { JsonValue } from "@threadline/history/parts";
import type { ToolApprovalMode } from "@/lib/protocol/approvals";

/** What a tool may know about the turn that calls it. */
export interface ToolContext {
  /** The identity the turn runs for: a tool reads only what this owner may read. */
  owner: string;
  threadId: string;
  signal?: AbortSignal;
  /**
   * The same however often this call runs: an approved call's approval id.
   * A tool that changes something outside the database makes its change
   * keyed by it, so a run after a crash between the change and its record
   * changes nothing twice.
   */
  idempotencyKey?: string;
  /** The user's IANA time zone, as their page said; unset: unknown (UTC). */
  timeZone?: string;
  /** The reply being written, which the call is part of. */
  replyId?: string;
  /** This call's own id, and the agent that made it (runTool fills them in). */
  toolCallId?: string;
  agentName?: string;
  /** An approved call: a ToolUnavailableError fails the call's step (the runtime tries it again) rather than becoming its result. */
  retryUnavailable?: boolean;
}

/**
 * The service a tool calls cannot be reached now (an MCP server that is
 * down). In a turn the model reads it as any error; an approved call that
 * meets it is not answered with it, but tried again later.
 */
export class ToolUnavailableError extends Error {
  readonly unavailable = true;
  constructor(message: string) {
    super(message);
    this.name = "ToolUnavailableError";
  }
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
  /**
   * Whether a call waits for the user's approval before it runs: always, or
   * as its input says (a valid input only). A tool that changes something
   * asks; one that only reads does not (unset).
   */
  needsApproval?: boolean | ((input: Input) => boolean);
  execute(input: Input, context: ToolContext): Promise<JsonValue>;
}

export type { ToolApprovalMode } from "@/lib/protocol/approvals";

/** Whether this call of `tool` with `input` (valid for it) waits for the user's approval, under `mode`. */
export function asksApproval(tool: AgentTool, input: unknown, mode: ToolApprovalMode = "default"): boolean {
  if (mode !== "default") return mode === "all";
  const { needsApproval } = tool;
  return typeof needsApproval === "function" ? needsApproval(input) : needsApproval === true;
}

export function defineTool<Input>(tool: AgentTool<Input>): AgentTool {
  return tool as AgentTool;
}

/**
 * A wing's tools with the words that go with them: the agents' prompts are
 * made from every toolset given, so a new set of tools brings its own lines
 * and no prompt is edited by hand.
 */
export interface Toolset {
  tools: AgentTool[];
  /** What Triage hands over for, e.g. "a reminder to schedule or cancel". */
  handOverFor: string;
  /** The line that tells Researcher when to use them, e.g. "calculate for any arithmetic or unit conversion". */
  use: string;
  /** What Researcher offers with them, in its description, e.g. "reminders". */
  offers: string;
}
