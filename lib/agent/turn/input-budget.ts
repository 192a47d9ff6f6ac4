// How big a model call's input is, as a network's input budget
// (`maxInputChars`) counts it: the characters of its messages' text and JSON.
// A turn over the budget compacts its thread first (lib/agent/turn/turn.ts), and
// compaction sizes the messages it keeps with the same count.
import type { ModelMessage } from "ai";

/** How much a model call is given, in characters of its messages' text and JSON. */
export function modelInputChars(messages: ModelMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    if (typeof message.content === "string") chars += message.content.length;
    else chars += JSON.stringify(message.content).length;
  }
  return chars;
}
