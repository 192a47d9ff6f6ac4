import { FEEDBACK_REASONS, type Feedback } from "@/lib/protocol/feedback";
import { FILE_KIND_NAMES, fileSizeText } from "@/lib/protocol/files";
import { UNTITLED_THREAD } from "@threadline/history/title";
import type { Part, ToolCallPart, ToolResultPart } from "@threadline/history/parts";
import { chosenPath, type ExportedMessage, type ThreadExport } from "@/lib/protocol/thread-export";

/** How much of a tool's input or output the transcript shows: enough to recognise the call, not a dump. */
const TOOL_PREVIEW_CHARS = 200;

/** Inline code that holds any text: fenced by one more backtick than the longest run inside it. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** HTML's own escapes for what would open a tag or an entity: shown as typed, never run by a viewer that renders HTML. */
const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** Inline text of one line: HTML escaped outside code spans, which show their text as it is anyway. */
function escapeInline(line: string): string {
  let out = "";
  let at = 0;
  // A run of backticks opens a code span when the same run closes it later on the line.
  for (const match of line.matchAll(/`+/g)) {
    const start = match.index;
    if (start < at) continue;
    const close = line.indexOf(match[0], start + match[0].length);
    if (close < 0 || /`/.test(line[close + match[0].length] ?? "")) continue;
    out += escapeHtml(line.slice(at, start)) + line.slice(start, close + match[0].length);
    at = close + match[0].length;
  }
  return out + escapeHtml(line.slice(at));
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * What someone wrote, as markdown that shows it and nothing more: raw HTML
 * shows as text, a line that would make a heading (a '#', or a line of '='
 * or '-' under text) stays a line of text, so no message can pass
 * for another speaker's heading or break the transcript's layout. Markdown
 * the writer meant (emphasis, lists, links, code) is kept; code blocks are
 * left as written, and one left open is closed at the end of the message.
 */
export function escapeMessageText(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    if (fence !== null) {
      out.push(line);
      const closing = FENCE.exec(line)?.[1];
      if (closing && closing[0] === fence[0] && closing.length >= fence.length && line.trim() === closing) fence = null;
      continue;
    }
    const opening = FENCE.exec(line)?.[1];
    if (opening) {
      fence = opening;
      out.push(line);
      continue;
    }
    let safe = escapeInline(line);
    // A heading, or a setext underline (which would make the line above it a heading).
    safe = safe.replace(/^( {0,3})(#|=+\s*$|-+\s*$)/, (_, indent: string, mark: string) => `${indent}\\${mark}`);
    out.push(safe);
  }
  if (fence !== null) out.push(fence);
  return out.join("\n");
}

/** Text for one line: its white space (line breaks included) as single spaces, escaped. */
const oneLine = (text: string) => escapeInline(text.replace(/\s+/g, " ").trim());

/** One line of at most TOOL_PREVIEW_CHARS characters, never cut inside a character. */
function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  const chars = Array.from(flat);
  return chars.length <= TOOL_PREVIEW_CHARS ? flat : `${chars.slice(0, TOOL_PREVIEW_CHARS).join("")}…`;
}

const preview = (value: unknown) => shorten(JSON.stringify(value) ?? "null");

function toolLine(call: ToolCallPart | undefined, result: ToolResultPart | undefined, details: boolean): string {
  const name = call?.toolName ?? result?.toolName ?? "tool";
  if (!details) return `- Used ${code(name)}`;
  const input = call ? ` ${code(preview(call.input))}` : "";
  const outcome = !result ? "" : result.error !== undefined ? ` → error: ${code(shorten(result.error))}` : ` → ${code(preview(result.output))}`;
  return `- Tool ${code(name)}${input}${outcome}`;
}

/** Who spoke: the user, or the assistant and the agents whose parts the reply holds, in order. */
function speaker(message: ExportedMessage): string {
  if (message.role === "user") return "User";
  if (message.role === "system") return "Summary";
  const agents = [...new Set(message.parts.flatMap((part) => ("agentName" in part && part.agentName ? [part.agentName] : [])))];
  const who = agents.length === 0 ? "Assistant" : `Assistant (${agents.join(" → ")})`;
  return message.model ? `${who} · ${escapeInline(message.model)}` : who;
}

/** A message's parts as blocks of markdown: text as written, tools and hand-overs one line each, reasoning left out. */
function blocks(parts: Part[], details: boolean): string[] {
  const results = new Map(parts.flatMap((part) => (part.type === "tool-result" ? [[part.toolCallId, part] as const] : [])));
  const called = new Set(parts.flatMap((part) => (part.type === "tool-call" ? [part.toolCallId] : [])));
  const out: string[] = [];
  let tools: string[] = [];
  const flushTools = () => {
    if (tools.length > 0) out.push(tools.join("\n"));
    tools = [];
  };
  for (const part of parts) {
    switch (part.type) {
      case "text":
        flushTools();
        if (part.text.trim()) out.push(escapeMessageText(part.text.trim()));
        break;
      case "tool-call":
        tools.push(toolLine(part, results.get(part.toolCallId), details));
        break;
      case "tool-result":
        if (!called.has(part.toolCallId)) tools.push(toolLine(undefined, part, details));
        break;
      case "handoff":
        // The reason stays on the hand-over's own line, whatever it holds.
        tools.push(`- Handed over to **${part.to}**${part.reason ? `: ${oneLine(part.reason)}` : ""}`);
        break;
      case "system-event":
        flushTools();
        // Every line of the summary inside the quote, escaped as a message is.
        out.push(
          `> **Summary of the ${part.summarizedMessages} earlier messages${part.imported ? " (from an imported file)" : ""}:**\n>\n` +
            escapeMessageText(part.text.trim()).split("\n").map((line) => `> ${line}`.trimEnd()).join("\n"),
        );
        break;
      case "file":
        // Named, not inlined: the JSON export carries the bytes.
        tools.push(`- Attached: ${code(part.name)} (${FILE_KIND_NAMES[part.mediaType]}, ${fileSizeText(part.size)})`);
        break;
      case "reasoning":
        break;
    }
  }
  flushTools();
  return out;
}

/** The owner's word on a reply, on one line, their comment escaped as any text of theirs is. */
function feedbackLine(feedback: Feedback): string {
  const reason = feedback.reason ? `: ${FEEDBACK_REASONS[feedback.reason]}` : "";
  const comment = feedback.comment ? ` — ${oneLine(feedback.comment)}` : "";
  return `_Feedback: ${feedback.rating === "up" ? "good response" : "bad response"}${reason}_${comment}`;
}

const STATUS_NOTE: Record<ExportedMessage["status"], string | null> = {
  complete: null,
  stopped: "_(stopped by the user)_",
  incomplete: "_(incomplete: the reply broke off here)_",
  waiting: "_(waiting for the user's approval)_",
};

/** How a transcript is written for someone other than its owner (a share link's Markdown). */
export interface TranscriptView {
  /** The line under the title. */
  byline?: string;
  /** false: a tool call is its name only. */
  toolDetails?: boolean;
  /** How many files a message held that are not shown. */
  withheldFiles?(message: ExportedMessage): number;
}

/**
 * The thread as a person reads it: its title, then each message of the path
 * the thread shows (not the versions beside it), who spoke and what they said,
 * tool calls one line each with their result.
 */
export function threadMarkdown(file: ThreadExport, view: TranscriptView = {}): string {
  const { byline = `_Exported from Threadline on ${file.exportedAt}_`, toolDetails = true, withheldFiles } = view;
  const lines = [`# ${escapeInline(file.thread.title ?? UNTITLED_THREAD)}`, "", byline];
  for (const message of chosenPath(file.messages)) {
    const note = STATUS_NOTE[message.status];
    const withheld = withheldFiles?.(message) ?? 0;
    const shown = [...blocks(message.parts, toolDetails), ...(withheld > 0 ? [`- ${withheld} attached file${withheld === 1 ? "" : "s"} not shared`] : [])];
    lines.push("", `## ${speaker(message)}`, "", ...shown.flatMap((block, i) => (i === 0 ? [block] : ["", block])));
    if (note) lines.push("", note);
    if (message.feedback) lines.push("", feedbackLine(message.feedback));
  }
  lines.push(...documentBlocks(file));
  return `${lines.join("\n")}\n`;
}

/** The documents as the path shows them: each one's latest version there, whole, in a fence longer than any inside it. */
function documentBlocks(file: ThreadExport): string[] {
  const onPath = new Set(chosenPath(file.messages).map((message) => message.id));
  const shown = (file.documents ?? []).flatMap((document) => {
    const latest = document.versions.filter((version) => onPath.has(version.messageId)).at(-1);
    return latest ? [{ document, latest }] : [];
  });
  if (shown.length === 0) return [];
  const out = ["", "## Documents"];
  for (const { document, latest } of shown) {
    const longest = Math.max(2, ...(latest.content.match(/`+/g) ?? []).map((run) => run.length));
    const fence = "`".repeat(longest + 1);
    const language = document.kind === "code" ? (document.language ?? "") : "markdown";
    out.push("", `### ${escapeInline(document.title)} (v${latest.version}, by ${escapeInline(latest.author)})`, "", `${fence}${language}`, latest.content, fence);
  }
  return out;
}
