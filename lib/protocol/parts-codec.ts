// The one place that converts a message's parts (packages/history/src/parts.ts)
// to and from the other shapes a message takes in the app: the model's
// messages and the UI's parts. Conversions only, pure and isomorphic: the
// server replays with it, the browser builds its copy of the thread with it.
// A part's stored columns are the history package's (packages/history/src/codec.ts);
// the words the model reads around a summary are the caller's
// (packages/history/src/summary-for-model.ts).
import type { Feedback } from "./feedback";
import type { AssistantContent, ModelMessage, ToolContent, UserContent } from "ai";
import type { ChatMessage } from "./chat";
import type { FilePart, JsonValue, Part, ResultOutcome, SystemEventPart, ThreadMessage, ToolCallPart, ToolResultPart } from "@threadline/history/parts";
import { FILE_KIND_NAMES, fileSizeText } from "./file-kinds";
import { OWNER_AUTHOR } from "./document-kinds";
import type { DocumentHistory } from "./documents";
import { canonicalParts } from "@threadline/history/codec";
import type { DecidedSoFar, StoredMessage, TimelineEntry } from "./threads";

/**
 * The timeline view: every part of every message, in order, each with its
 * message's id, role and time; after a message, what happened to the
 * thread's documents with it (their versions that belong with it).
 */
export function timelineOf(
  messages: StoredMessage[],
  feedback: Readonly<Record<string, Feedback>> = {},
  documents: readonly DocumentHistory[] = [],
  memoriesUsed: Readonly<Record<string, string[]>> = {},
): TimelineEntry[] {
  return messages.flatMap((message) => [
    ...message.parts.map((part, index) => ({
      id: `${message.id}:${index}`,
      messageId: message.id,
      role: message.role,
      createdAt: message.createdAt,
      // The model that wrote the reply the part belongs to, and what its owner thought of it.
      ...(message.model ? { model: message.model } : {}),
      ...(feedback[message.id] ? { feedback: feedback[message.id] } : {}),
      ...(memoriesUsed[message.id] ? { memoriesUsed: memoriesUsed[message.id] } : {}),
      // A call's own id, under the name every part of a call tree goes by (a sub-agent's parts name it as their parent).
      ...(part.type === "tool-call" || part.type === "tool-result" ? { callId: part.toolCallId } : {}),
      ...part,
    })),
    ...documentEvents(message, documents),
  ]);
}

/** The versions of the documents that belong with `message`, as timeline events, oldest first. */
function documentEvents(message: StoredMessage, documents: readonly DocumentHistory[]): TimelineEntry[] {
  const events = documents.flatMap((document) =>
    document.versions.filter((v) => v.messageId === message.id).map((version) => ({ document, version })),
  );
  events.sort((a, b) => a.version.createdAt.localeCompare(b.version.createdAt));
  return events.map(({ document, version }) => {
    const action = version.version === 1 ? "created" : "revised";
    const who = version.author === OWNER_AUTHOR ? "You" : version.author;
    return {
      id: `document:${document.id}:${version.version}`,
      messageId: message.id,
      role: "system",
      createdAt: version.createdAt,
      type: "document-event",
      documentId: document.id,
      title: document.title,
      version: version.version,
      author: version.author,
      action,
      text: `${who} ${action === "created" ? "wrote" : "revised"} ${document.title} (v${version.version})`,
    };
  });
}

// ---------------------------------------------------------------------------
// The model's messages. Reasoning and hand-overs stay out (providers do not
// take back earlier reasoning without their own signatures, and a hand-over is
// the router's business); a tool call goes only together with its result; a
// compaction summary is a system message that says what it stands for, in the
// words `summaryText` gives (the model's prompt text is not the codec's). An
// imported summary (`imported`) is anyone's words: it goes as a user message,
// quoted data with no system authority.

/** What a model is given for one file the user attached: its text, its pixels, or a line that names it. */
export type FileInput = (part: FilePart) => Exclude<UserContent, string>;

/** The line that stands for a file wherever its contents are not given: what it is, never what it holds. */
export const fileLine = (part: FilePart, why?: string) =>
  `[Attached file: ${part.name} (${FILE_KIND_NAMES[part.mediaType] ?? part.mediaType}, ${fileSizeText(part.size)})${why ? `: ${why}` : ""}]`;

const namedOnly: FileInput = (part) => [{ type: "text", text: fileLine(part) }];

/** `fileInput`: what each attached file becomes (the turn reads their bytes); unset, each is named by a line. */
export function toModelMessages(
  messages: ThreadMessage[],
  summaryText: (part: SystemEventPart) => string,
  fileInput: FileInput = namedOnly,
): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text = message.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
      const files = message.parts.filter((p): p is FilePart => p.type === "file");
      out.push({ role: "user", content: files.length === 0 ? text : [{ type: "text", text }, ...files.flatMap(fileInput)] });
    } else if (message.role === "system") {
      for (const part of message.parts) {
        if (part.type === "system-event") out.push({ role: part.imported ? "user" : "system", content: summaryText(part) });
      }
    } else {
      out.push(...assistantToModel(message.parts));
    }
  }
  return out;
}

function assistantToModel(all: Part[]): ModelMessage[] {
  // What a sub-agent did inside its call is its own: the caller read the call and its result.
  let parts = all.filter((p) => !("parentCallId" in p) || p.parentCallId === undefined);
  const answered = new Set(parts.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : [])));
  const called = new Set(parts.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : [])));
  const out: ModelMessage[] = [];
  // A run of tool calls and results becomes one assistant message with the
  // calls and one tool message with the results, whatever their interleaving.
  let calls: AssistantContent & unknown[] = [];
  let results: ToolContent = [];
  let text: AssistantContent & unknown[] = [];
  // In canonical order a result follows its call at once, even where the
  // model wrote text between a call and the moment its result came back.
  parts = canonicalParts(parts);
  const flushText = () => {
    if (text.length > 0) out.push({ role: "assistant", content: text });
    text = [];
  };
  const flushTools = () => {
    if (calls.length > 0) out.push({ role: "assistant", content: calls }, { role: "tool", content: results });
    calls = [];
    results = [];
  };
  for (const part of parts) {
    if (part.type === "text" && part.text.length > 0) {
      flushTools();
      text.push({ type: "text", text: part.text });
    } else if (part.type === "tool-call" && answered.has(part.toolCallId)) {
      flushText();
      calls.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    } else if (part.type === "tool-result" && called.has(part.toolCallId)) {
      flushText();
      results.push({
        type: "tool-result",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: part.error !== undefined ? { type: "error-text", value: part.error } : { type: "json", value: part.output as JsonValue & {} },
      });
    }
  }
  flushTools();
  flushText();
  return out;
}

// ---------------------------------------------------------------------------
// UI parts (AI SDK UIMessage). The speaking agent is a data-agent part before
// the first part of each agent; a call and its result are one dynamic-tool part.

type UIPart = ChatMessage["parts"][number];

/** Our metadata on UI parts that carry provider metadata. */
export const UI_METADATA_KEY = "threadline";

type Inside = { parentCallId?: string; rootCallId?: string };

/** The sub-agent call a part runs inside, as our provider metadata on its UI part carries it. */
function insideMeta(part: Part): Inside {
  if (!("parentCallId" in part) || part.parentCallId === undefined) return {};
  return { parentCallId: part.parentCallId, ...(part.rootCallId !== undefined ? { rootCallId: part.rootCallId } : {}) };
}

function insideOfMeta(meta: unknown): Inside {
  const { parentCallId, rootCallId } = (meta ?? {}) as Record<string, unknown>;
  return {
    ...(typeof parentCallId === "string" ? { parentCallId } : {}),
    ...(typeof rootCallId === "string" ? { rootCallId } : {}),
  };
}

/** The sub-agent call a UI part runs inside, as our provider metadata on it says; none for the reply's own parts. */
export function uiParentCallId(part: UIPart): string | undefined {
  const meta =
    part.type === "dynamic-tool" ? part.callProviderMetadata : part.type === "text" || part.type === "reasoning" ? part.providerMetadata : undefined;
  return insideOfMeta(meta?.[UI_METADATA_KEY]).parentCallId;
}

/** Our provider metadata, when there is any to carry. */
const withMeta = <K extends "providerMetadata" | "callProviderMetadata">(key: K, meta: Record<string, JsonValue>) =>
  (Object.keys(meta).length > 0 ? { [key]: { [UI_METADATA_KEY]: meta } } : {}) as unknown as { [P in K]?: Record<string, Record<string, JsonValue>> };

/** `decided`: on a reply that waits, the calls decided so far (HistoryMessage.decided), which show decided while the rest wait. */
export function toUIParts(parts: Part[], decided?: DecidedSoFar): UIPart[] {
  const out: UIPart[] = [];
  const tools = new Map<string, UIPart & { type: "dynamic-tool" }>();
  let agent: string | undefined;
  for (const part of parts) {
    if ("agentName" in part && part.agentName !== undefined && part.agentName !== agent) {
      agent = part.agentName;
      out.push({ type: "data-agent", data: { name: agent } });
    }
    switch (part.type) {
      case "text":
        out.push({ type: "text", text: part.text, state: "done", ...withMeta("providerMetadata", insideMeta(part)) });
        break;
      case "reasoning":
        out.push({
          type: "reasoning",
          text: part.text,
          state: "done",
          ...withMeta("providerMetadata", { ...(part.durationMs !== undefined ? { durationMs: part.durationMs } : {}), ...insideMeta(part) }),
        });
        break;
      case "tool-call": {
        // A call that asks for the user's approval shows waiting for it until its result says how it was decided.
        const inside = withMeta("callProviderMetadata", insideMeta(part));
        const call = { type: "dynamic-tool" as const, toolName: part.toolName, toolCallId: part.toolCallId, input: part.input, ...inside };
        const decision = part.approval ? decided?.[part.approval.id] : undefined;
        const why = decision?.reason !== undefined ? { reason: decision.reason } : {};
        const tool: UIPart & { type: "dynamic-tool" } = !part.approval
          ? { ...call, state: "input-available" }
          : decision
            ? { ...call, state: "approval-responded", approval: { id: part.approval.id, approved: decision.approved, ...why } }
            : { ...call, state: "approval-requested", approval: { id: part.approval.id } };
        tools.set(part.toolCallId, tool);
        out.push(tool);
        break;
      }
      case "tool-result": {
        const tool = tools.get(part.toolCallId);
        if (!tool) break; // a result without its call cannot be shown
        const index = out.indexOf(tool);
        const inside = insideOfMeta(tool.callProviderMetadata?.[UI_METADATA_KEY]);
        const called = { type: "dynamic-tool" as const, toolName: tool.toolName, toolCallId: tool.toolCallId, input: tool.input, ...withMeta("callProviderMetadata", inside) };
        const { approval } = part;
        const reason = approval?.reason !== undefined ? { reason: approval.reason } : {};
        if (approval && approval.outcome !== "approved") {
          // Denied, expired, stopped, moved on or forked: the AI SDK's "output-denied", with what the model read kept beside it.
          out[index] = {
            ...called,
            state: "output-denied",
            approval: { id: approval.id, approved: false, ...reason },
            callProviderMetadata: { [UI_METADATA_KEY]: { outcome: approval.outcome, error: part.error ?? "", ...inside } },
          };
          break;
        }
        const approved = approval ? { approval: { id: approval.id, approved: true as const, ...reason } } : {};
        out[index] =
          part.error !== undefined
            ? { ...called, state: "output-error", errorText: part.error, ...approved }
            : { ...called, state: "output-available", output: part.output, ...approved };
        break;
      }
      case "handoff":
        out.push({ type: "data-handoff", data: { to: part.to, ...(part.reason ? { reason: part.reason } : {}) } });
        break;
      case "system-event": {
        const { text, throughSeq, summarizedMessages, imported } = part;
        out.push({ type: "data-summary", data: { text, throughSeq, summarizedMessages, ...(imported ? { imported } : {}) } });
        break;
      }
      case "notice":
        out.push({ type: "data-budget", data: { text: part.text, ...(part.resetsAt ? { resetsAt: part.resetsAt } : {}) } });
        break;
      case "file":
        out.push({
          type: "file",
          mediaType: part.mediaType,
          filename: part.name,
          url: fileUrl(part.fileId),
          providerMetadata: { [UI_METADATA_KEY]: { fileId: part.fileId, size: part.size } },
        });
        break;
    }
  }
  return out;
}

/** Where the owner's browser reads a file back (GET /api/files/:id). */
export const fileUrl = (fileId: string) => `/api/files/${fileId}`;

export function toUIMessage(message: StoredMessage & { decided?: DecidedSoFar }): ChatMessage {
  return {
    id: message.id,
    role: message.role,
    metadata: {
      createdAt: message.createdAt,
      ...(message.status === "stopped" ? { stopped: true } : {}),
      ...(message.status === "incomplete" ? { incomplete: true } : {}),
      ...(message.model ? { model: message.model } : {}),
      ...(message.reminder ? { reminder: true } : {}),
    },
    parts: toUIParts(message.parts, message.decided),
  };
}

/**
 * A UI message's parts back as parts, in canonical order. What was still being
 * written (a tool call whose input is incomplete) and empty text are left out,
 * as the server leaves them out when it stores a reply.
 */
export function fromUIParts(parts: UIPart[]): Part[] {
  const out: Part[] = [];
  let agent: string | undefined;
  const tagged = <T extends Part>(part: T): T => (agent === undefined ? part : { ...part, agentName: agent });
  for (const part of parts) {
    switch (part.type) {
      case "data-agent":
        agent = part.data.name;
        break;
      case "file": {
        const { fileId, size } = (part.providerMetadata?.[UI_METADATA_KEY] ?? {}) as { fileId?: unknown; size?: unknown };
        // A file the page attached shows until the server's copy replaces it; only a stored one (its id kept) is part of the thread.
        if (typeof fileId === "string" && typeof size === "number") {
          out.push({ type: "file", fileId, name: part.filename ?? "file", mediaType: part.mediaType as FilePart["mediaType"], size });
        }
        break;
      }
      case "text":
        if (part.text.length > 0) out.push(tagged({ type: "text", text: part.text, ...insideOfMeta(part.providerMetadata?.[UI_METADATA_KEY]) }));
        break;
      case "reasoning": {
        const durationMs = part.providerMetadata?.[UI_METADATA_KEY]?.durationMs;
        const inside = insideOfMeta(part.providerMetadata?.[UI_METADATA_KEY]);
        out.push(tagged({ type: "reasoning", text: part.text, ...(typeof durationMs === "number" ? { durationMs } : {}), ...inside }));
        break;
      }
      case "dynamic-tool": {
        if (part.state === "input-streaming") break;
        const approval = part.approval;
        const call = { toolCallId: part.toolCallId, toolName: part.toolName, ...insideOfMeta(part.callProviderMetadata?.[UI_METADATA_KEY]) };
        out.push(tagged({ type: "tool-call", ...call, input: part.input as JsonValue, ...(approval ? { approval: { id: approval.id } } : {}) }));
        const decided = (outcome: ResultOutcome) =>
          approval ? { approval: { id: approval.id, outcome, ...(approval.reason !== undefined ? { reason: approval.reason } : {}) } } : {};
        if (part.state === "output-available") {
          out.push(tagged({ type: "tool-result", ...call, output: part.output as JsonValue, ...decided("approved") }));
        } else if (part.state === "output-error") {
          out.push(tagged({ type: "tool-result", ...call, error: part.errorText, ...decided("approved") }));
        } else if (part.state === "output-denied") {
          const kept = part.callProviderMetadata?.[UI_METADATA_KEY] as { outcome?: ResultOutcome; error?: string } | undefined;
          out.push(tagged({ type: "tool-result", ...call, error: kept?.error ?? "", ...decided(kept?.outcome ?? "denied") }));
        }
        break;
      }
      case "data-handoff":
        out.push(tagged({ type: "handoff", to: part.data.to, ...(part.data.reason ? { reason: part.data.reason } : {}) }));
        break;
      case "data-summary":
        out.push({ type: "system-event", event: "compaction", ...part.data });
        break;
      case "data-budget":
        out.push({ type: "notice", notice: "budget", text: part.data.text, ...(part.data.resetsAt ? { resetsAt: part.data.resetsAt } : {}) });
        break;
    }
  }
  return out;
}
