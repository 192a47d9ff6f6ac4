// How big a model call's input is, as a network's input budget
// (`maxInputChars`) counts it: the characters of its messages' text and JSON.
// A turn over the budget compacts its thread first (lib/agent/turn/turn.ts), and
// compaction sizes the messages it keeps with the same count.
import type { ModelMessage } from "ai";

/** What an image counts for: about a thousand tokens, what the providers charge for a mid-sized one. */
export const IMAGE_INPUT_CHARS = 4_000;

/** How much a model call is given, in characters of its messages' text and JSON. */
export function modelInputChars(messages: ModelMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    if (typeof message.content === "string") chars += message.content.length;
    else chars += contentChars(message.content);
  }
  return chars;
}

function contentChars(content: Exclude<ModelMessage["content"], string>): number {
  // Bytes are not characters the model reads: an image counts as what it costs, the rest as its JSON.
  const isBytes = (part: (typeof content)[number]) => part.type === "image" || part.type === "file";
  const images = content.filter(isBytes).length;
  if (images === 0) return JSON.stringify(content).length;
  return JSON.stringify(content.filter((part) => !isBytes(part))).length + images * IMAGE_INPUT_CHARS;
}
