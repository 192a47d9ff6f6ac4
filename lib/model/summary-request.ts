// What compaction asks a model for: a summary of a thread's earlier messages
// that the model will read instead of them. The request is a system prompt and
// one user message holding the transcript (and the summary so far, when the
// thread was compacted before), so every provider takes it as it is. The
// request is marked as one by its headers (request-kind.mjs); the offline
// model answers it with a deterministic summary.
import type { FilePart, ThreadMessage } from "@threadline/history/parts";
import { FILE_KIND_NAMES, fileSizeText } from "@/lib/protocol/files";

export const SUMMARY_INSTRUCTIONS =
  "You condense the earlier part of a conversation between a user and an AI assistant into a summary that " +
  "replaces it: the assistant will read your summary instead of those messages. Keep what a later answer could " +
  "depend on: the user's goals, facts and preferences they stated, decisions, names, numbers, results of tools, " +
  "and questions still open. Write it as short bullet points in the conversation's language, with no preamble.";

/** A tool's input or output beyond this many characters is cut in the transcript: the gist is enough for a summary. */
const TOOL_PAYLOAD_CHARS = 300;
/**
 * A message's text beyond this many characters is cut too: one huge message
 * (a long generation, a pasted document) must not make a summary request
 * bigger than the model takes.
 */
const TEXT_CHARS = 20_000;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** One message as transcript blocks: a line block per part a summary could use ("" when none). */
function messageTranscript(message: ThreadMessage): string {
  const lines: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && part.text.trim()) {
      const text = clip(part.text, TEXT_CHARS);
      lines.push(message.role === "user" ? `User: ${text}` : `Assistant: ${text}`);
    } else if (part.type === "file") {
      lines.push(`User attached: ${attachedLine(part)}`);
    } else if (part.type === "tool-result") {
      const outcome = part.error !== undefined ? `error: ${part.error}` : JSON.stringify(part.output);
      lines.push(`Tool ${part.toolName}: ${clip(outcome, TOOL_PAYLOAD_CHARS)}`);
    }
  }
  return lines.join("\n\n");
}

/** The messages as a plain transcript, one line block per part that a summary could use. */
export function transcriptOf(messages: ThreadMessage[]): string {
  return messages.map(messageTranscript).filter(Boolean).join("\n\n");
}

/**
 * The most transcript one summary request carries (about 15,000 tokens),
 * however much there is to summarize: compaction makes one summary call
 * whatever the thread's size (an imported 8 MB thread included).
 */
export const SUMMARY_TRANSCRIPT_CHARS = 60_000;
/** Of a transcript too long for one request, the share given to the most recent messages, whole. */
const RECENT_SHARE = 2 / 3;
/** An earlier message sampled into a too-long transcript is cut to this many characters. */
const SAMPLE_CHARS = 400;

/**
 * The messages' transcript within `maxChars`. One that fits is the whole
 * transcript. A longer one keeps the most recent messages whole (two thirds
 * of the room: what the conversation is about now), and from the earlier ones
 * an evenly spread sample, each cut short, with a line that says how many
 * were left out: the summary still sees how the conversation began and went,
 * at a fixed cost.
 */
export function boundedTranscript(messages: ThreadMessage[], maxChars = SUMMARY_TRANSCRIPT_CHARS): string {
  const blocks = messages.map(messageTranscript).filter(Boolean);
  const total = blocks.reduce((sum, block) => sum + block.length + 2, 0);
  if (total <= maxChars) return blocks.join("\n\n");

  const recentRoom = Math.floor(maxChars * RECENT_SHARE);
  let from = blocks.length;
  let used = 0;
  while (from > 0 && used + blocks[from - 1].length + 2 <= recentRoom) used += blocks[--from].length + 2;
  // The last message alone is bigger than the room: its beginning.
  const recent = from === blocks.length ? [clip(blocks[--from], recentRoom)] : blocks.slice(from);
  const earlier = blocks.slice(0, from);
  const heading = (shown: number) =>
    `[${earlier.length} earlier messages; ${shown === earlier.length ? "each" : `${shown} of them, evenly spread,`} shown cut short:]`;
  const sampleRoom = maxChars - recent.reduce((sum, block) => sum + block.length + 2, 0) - heading(0).length - 80;
  const shown = Math.max(0, Math.min(earlier.length, Math.floor(sampleRoom / (SAMPLE_CHARS + 3))));
  const sample = Array.from({ length: shown }, (_, i) => clip(earlier[Math.floor((i * earlier.length) / shown)], SAMPLE_CHARS));
  const parts = earlier.length === 0 ? [] : [heading(shown), ...sample, `[The ${recent.length} most recent messages:]`];
  return [...parts, ...recent].join("\n\n");
}

const PREVIOUS_HEADING = "Summary of the messages before these:";
const TRANSCRIPT_HEADING = "Messages to summarize:";

/** The user message of a summary request: the summary so far, if any, then the transcript, within `maxChars` of transcript. */
export function summaryRequestText(previous: string | undefined, messages: ThreadMessage[], maxChars = SUMMARY_TRANSCRIPT_CHARS): string {
  const transcript = `${TRANSCRIPT_HEADING}\n\n${boundedTranscript(messages, maxChars)}`;
  return previous ? `${PREVIOUS_HEADING}\n\n${previous}\n\n${transcript}` : transcript;
}

/** The most points the offline summary keeps: the newest ones. */
const OFFLINE_MAX_POINTS = 40;

/**
 * The offline model's summary: one point per user message (shortened), after
 * the points of the summary so far. Deterministic, so tests and a keyless
 * install see the same summary for the same thread.
 */
export function offlineSummary(requestText: string): string {
  const [before, transcript = ""] = requestText.split(TRANSCRIPT_HEADING);
  const earlier = before.includes(PREVIOUS_HEADING)
    ? before.split(PREVIOUS_HEADING)[1].split("\n").filter((line) => line.startsWith("- "))
    : [];
  const said = transcript
    .split("\n\n")
    .filter((block) => block.startsWith("User: "))
    .map((block) => `- The user said: "${clip(block.slice("User: ".length).replace(/\s+/g, " ").trim(), 100)}"`);
  return [...earlier, ...said].slice(-OFFLINE_MAX_POINTS).join("\n");
}

/** What a summary says of one attached file. */
const attachedLine = (part: FilePart) => `${part.name} (${FILE_KIND_NAMES[part.mediaType]}, ${fileSizeText(part.size)})`;

/** The heading of a summary's list of the files its messages carried. */
export const SUMMARY_FILES_HEADING = "Files attached in the summarized messages:";

/**
 * The lines a summary keeps for the files of its messages, the earlier
 * summary's included: written here, not left to the model, so no file drops
 * out of the thread's memory however often it is compacted.
 */
export function summaryFileLines(previous: string | undefined, messages: ThreadMessage[]): string[] {
  const earlier = previous?.split(SUMMARY_FILES_HEADING)[1]?.split("\n").filter((line) => line.startsWith("- ")) ?? [];
  const added = messages.flatMap((message) => message.parts.flatMap((part) => (part.type === "file" ? [`- ${attachedLine(part)}`] : [])));
  return [...new Set([...earlier, ...added])];
}

/** The model's summary with the file lines under their heading (any list the model copied from the earlier summary dropped first). */
export function withFileLines(text: string, lines: string[]): string {
  const own = text.split(SUMMARY_FILES_HEADING)[0].trim();
  return lines.length === 0 ? own : `${own}\n\n${SUMMARY_FILES_HEADING}\n${lines.join("\n")}`;
}
