// What the model reads in place of the messages a compaction summary stands
// for: the summary, introduced so the model knows earlier messages exist and
// are not shown. The parts codec (lib/protocol/parts-codec.ts) puts it in a
// system message; the words are the model's prompt, so they live here.
import type { SystemEventPart } from "@/lib/protocol/parts";

export function summaryForModel(part: SystemEventPart): string {
  return (
    `Summary of the ${part.summarizedMessages} earlier messages of this conversation, which are not shown ` +
    `(written when the conversation grew long; the messages after it are complete):\n\n${part.text}`
  );
}
