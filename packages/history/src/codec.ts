// A message's parts as the messages table holds them, one row per part: the
// columns a part is stored in and read back from, and the canonical order
// signatures are taken over. Pure and isomorphic; the other shapes a part
// takes (the model's messages, the UI's parts) are the app's.
import type { FileMediaType, FilePart, NoticeKind, Part, Role, ToolCallPart, ToolResultPart } from "./parts";

// Stored form: one row per part, ordered by seq, grouped by message_id.

export type PartKind = "user" | "assistant" | "reasoning" | "tool_call" | "tool_result" | "handoff" | "system_event" | "file" | "notice";

/** A part as the messages table holds it. */
export interface PartColumns {
  kind: PartKind;
  agentName: string | null;
  content: string;
  /** content holds NUL characters escaped (Postgres text cannot store U+0000). */
  escaped: boolean;
  /** Small metadata only: numbers and our own names (jsonb cannot hold U+0000 either). */
  data: Record<string, string | number>;
}

/** A stored part as a read hands it back: the columns toColumns fills, by their names in the table. */
export interface StoredPart {
  kind: PartKind;
  agent_name: string | null;
  content: string;
  content_escaped: boolean;
  data: Record<string, unknown> | null;
}

const NUL = "\u0000";

function escapeNul(text: string): { content: string; escaped: boolean } {
  if (!text.includes(NUL)) return { content: text, escaped: false };
  return { content: text.replace(/\\/g, "\\\\").replace(/\u0000/g, "\\0"), escaped: true };
}

function unescapeNul(content: string, escaped: boolean): string {
  if (!escaped) return content;
  return content.replace(/\\(\\|0)/g, (_, ch: string) => (ch === "0" ? NUL : "\\"));
}

// JSON.stringify writes U+0000 as the six characters \u0000, so tool payloads need no escaping.
const json = (value: unknown) => JSON.stringify(value);

/** The calls a part runs inside (a sub-agent's), as its data holds them. */
function insideOf(part: Part): Record<string, string> {
  if (!("parentCallId" in part) || part.parentCallId === undefined) return {};
  return { parentCallId: part.parentCallId, ...(part.rootCallId !== undefined ? { rootCallId: part.rootCallId } : {}) };
}

function insideFrom(data: Record<string, unknown> | null): { parentCallId?: string; rootCallId?: string } {
  const { parentCallId, rootCallId } = data ?? {};
  return {
    ...(typeof parentCallId === "string" ? { parentCallId } : {}),
    ...(typeof rootCallId === "string" ? { rootCallId } : {}),
  };
}

export function toColumns(role: Role, part: Part): PartColumns {
  const agentName = ("agentName" in part ? part.agentName : undefined) ?? null;
  switch (part.type) {
    case "text":
      return { kind: role === "user" ? "user" : "assistant", agentName, ...escapeNul(part.text), data: insideOf(part) };
    case "reasoning":
      return {
        kind: "reasoning",
        agentName,
        ...escapeNul(part.text),
        data: { ...(part.durationMs === undefined ? {} : { durationMs: part.durationMs }), ...insideOf(part) },
      };
    case "tool-call":
      return {
        kind: "tool_call",
        agentName,
        content: json({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }),
        escaped: false,
        // The database reads the approval id here: storing the call records the approval it waits for.
        data: { ...(part.approval ? { approvalId: part.approval.id } : {}), ...insideOf(part) },
      };
    case "tool-result": {
      const outcome = part.error !== undefined ? { error: part.error } : { output: part.output };
      const { approval } = part;
      return {
        kind: "tool_result",
        agentName,
        content: json({ toolCallId: part.toolCallId, toolName: part.toolName, ...outcome, ...(approval ? { approval } : {}) }),
        escaped: false,
        data: { ...(approval ? { approvalId: approval.id } : {}), ...insideOf(part) },
      };
    }
    case "handoff":
      return { kind: "handoff", agentName, ...escapeNul(part.reason ?? ""), data: { to: part.to } };
    case "system-event":
      return {
        kind: "system_event",
        agentName,
        ...escapeNul(part.text),
        data: {
          event: part.event,
          throughSeq: part.throughSeq,
          summarizedMessages: part.summarizedMessages,
          ...(part.imported ? { imported: 1 } : {}),
        },
      };
    case "file":
      // The name is the content (a file's name holds no NUL); the rest is what the bytes were found to be.
      return { kind: "file", agentName: null, content: part.name, escaped: false, data: { fileId: part.fileId, mediaType: part.mediaType, size: part.size } };
    case "notice":
      return { kind: "notice", agentName: null, ...escapeNul(part.text), data: { notice: part.notice, ...(part.resetsAt ? { resetsAt: part.resetsAt } : {}) } };
  }
}

export function fromColumns(row: StoredPart): Part {
  const agent = row.agent_name ? { agentName: row.agent_name } : {};
  const text = unescapeNul(row.content, row.content_escaped);
  switch (row.kind) {
    case "user":
      return { type: "text", text };
    case "assistant":
      return { type: "text", text, ...agent, ...insideFrom(row.data) };
    case "reasoning": {
      const durationMs = row.data?.durationMs;
      return { type: "reasoning", text, ...(typeof durationMs === "number" ? { durationMs } : {}), ...agent, ...insideFrom(row.data) };
    }
    case "tool_call": {
      const { toolCallId, toolName, input } = JSON.parse(row.content) as ToolCallPart;
      const approvalId = row.data?.approvalId;
      const approval = typeof approvalId === "string" ? { approval: { id: approvalId } } : {};
      return { type: "tool-call", toolCallId, toolName, input, ...approval, ...agent, ...insideFrom(row.data) };
    }
    case "tool_result": {
      const { toolCallId, toolName, output, error, approval } = JSON.parse(row.content) as ToolResultPart;
      const outcome = error !== undefined ? { error } : { output };
      return { type: "tool-result", toolCallId, toolName, ...outcome, ...(approval ? { approval } : {}), ...agent, ...insideFrom(row.data) };
    }
    case "handoff":
      return { type: "handoff", to: String(row.data?.to), ...(text ? { reason: text } : {}), ...agent };
    case "system_event":
      return {
        type: "system-event",
        event: "compaction",
        text,
        throughSeq: Number(row.data?.throughSeq),
        summarizedMessages: Number(row.data?.summarizedMessages),
        ...(row.data?.imported ? { imported: true } : {}),
      };
    case "file":
      return {
        type: "file",
        fileId: String(row.data?.fileId),
        name: text,
        mediaType: String(row.data?.mediaType) as FileMediaType,
        size: Number(row.data?.size),
      };
    case "notice":
      return { type: "notice", notice: String(row.data?.notice) as NoticeKind, text, ...(typeof row.data?.resetsAt === "string" ? { resetsAt: row.data.resetsAt } : {}) };
  }
}

/** A user's message's files as the database functions take them (threadline_append_user_message's p_files). */
export function filesColumn(message: { files?: FilePart[] }): string {
  return JSON.stringify((message.files ?? []).map(({ fileId, name, mediaType, size }) => ({ fileId, name, mediaType, size })));
}

/** The role of the message a stored part belongs to. */
export const roleOfKind = (kind: PartKind): Role => (kind === "user" || kind === "file" ? "user" : kind === "system_event" ? "system" : "assistant");

// ---------------------------------------------------------------------------
// Canonical order: each tool result right after its call, no empty text. The
// UI keeps a call and its result as one part, so this is the form a client's
// copy comes back in; signatures are taken over it so that both verify.

export function canonicalParts(parts: Part[]): Part[] {
  // Empty text shows nothing and is never stored.
  parts = parts.filter((part) => part.type !== "text" || part.text.length > 0);
  const results = new Map<string, ToolResultPart>();
  for (const part of parts) if (part.type === "tool-result") results.set(part.toolCallId, part);
  const calls = new Set(parts.flatMap((part) => (part.type === "tool-call" ? [part.toolCallId] : [])));
  const out: Part[] = [];
  for (const part of parts) {
    if (part.type === "tool-result") {
      if (!calls.has(part.toolCallId)) out.push(part); // an orphan stays where it was
      continue;
    }
    out.push(part);
    const result = part.type === "tool-call" ? results.get(part.toolCallId) : undefined;
    if (result) out.push(result);
  }
  return out;
}

