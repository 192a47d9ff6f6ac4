// What a tool call's card says about it: its status in a word or two (and a
// one-line detail), and its input and result as text. Pure functions only.
import type { DynamicToolUIPart } from "ai";
import { STOPPED_TOOL_ERROR } from "@/lib/protocol/tool-errors";
import { approvalOutcome } from "@/lib/client/approval-parts";

/** asking: the call waits for the user's decision on this page. */
export type Tone = "running" | "done" | "error" | "muted" | "asking";

export interface ToolStatus {
  label: string;
  /** A one-line result summary or the error. */
  detail?: string;
  tone: Tone;
  /** The call ran because the user approved it: said before how it went. */
  approved?: true;
}

/** Where the call's reply stands in the thread. */
export interface ToolContext {
  /** The reply is still being written: a call without its result is running, not stopped. */
  streaming: boolean;
  /** A later message follows the reply: a call still asking was skipped (the server answers it so once the user moves on). */
  followed?: boolean;
}

export function toolStatus(part: DynamicToolUIPart, { streaming, followed = false }: ToolContext): ToolStatus {
  const approved = part.approval?.approved === true ? ({ approved: true } as const) : {};
  switch (part.state) {
    case "input-streaming":
    case "input-available":
      return streaming ? { label: "Running…", tone: "running" } : { label: "Stopped", tone: "muted" };
    case "approval-requested":
      if (streaming) return { label: "Waiting for approval", tone: "running" };
      // A reply that waits is not stopped: it goes on once the user decides.
      return followed ? { label: "Skipped: you moved on", tone: "muted" } : { label: "Waiting for your approval", tone: "asking" };
    case "approval-responded":
      // Decided here, the result to come: once the reply's other calls are decided too, or as the reply goes on.
      if (part.approval?.approved !== true) return { label: "Denied", tone: "muted" };
      return streaming ? { label: "Running…", tone: "running", ...approved } : { label: "Approved", tone: "muted" };
    case "output-available":
      return { label: "Done", detail: summarize(part.output), tone: "done", ...approved };
    case "output-error":
      if (part.errorText === STOPPED_TOOL_ERROR) return { label: "Stopped", tone: "muted", ...approved };
      return { label: "Error", detail: part.errorText, tone: "error", ...approved };
    case "output-denied":
      return { label: notRunLabel(part), tone: "muted" };
  }
}

/** Why a call that asked did not run, in the user's words. */
function notRunLabel(part: DynamicToolUIPart): string {
  switch (approvalOutcome(part)) {
    case "expired":
      return "Expired";
    case "stopped":
      return "Stopped";
    case "moved_on":
      return "Skipped: you moved on";
    case "forked":
      return "Not decided in the original thread";
    default: {
      const reason = part.approval?.reason?.trim();
      return reason ? `Denied: ${reason}` : "Denied";
    }
  }
}

const MAX_SUMMARY = 160;

function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

/** `key: value, …` for an object (values as JSON), the text of a string, JSON for anything else. */
export function summarize(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return oneLine(value);
  if (typeof value === "object" && !Array.isArray(value)) {
    return oneLine(
      Object.entries(value)
        .map(([key, item]) => `${key}: ${compactJson(item)}`)
        .join(", "),
    );
  }
  return oneLine(compactJson(value));
}

/** A value in full: a string as it is, anything else as indented JSON. */
export function pretty(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A tool's name as the page shows it: an MCP server's tool (`<server>__<tool>`)
 * by its own name, with the server it comes from; the built-in tools, whose
 * names never hold a double underscore, as they are.
 */
export function toolDisplayName(toolName: string): { name: string; server?: string } {
  const at = toolName.indexOf("__");
  return at > 0 && at < toolName.length - 2 ? { name: toolName.slice(at + 2), server: toolName.slice(0, at) } : { name: toolName };
}
