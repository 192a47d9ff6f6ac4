import "server-only";
import type { Part } from "@threadline/history/parts";
import { DOCUMENT_TOOL_NAMES } from "@/lib/protocol/document-kinds";
import { chosenPath, type ExportedDocument } from "@/lib/protocol/thread-export";
import type { ShareOptions, SharedFile, SharedMessage, SharedSnapshot } from "@/lib/protocol/shares";
import type { VersionTree } from "@/lib/threads/export";

// A link's snapshot, made once from the thread as it is: the active branch
// only, each part as the options allow. What they hide is taken out here and
// never stored with the link, so no page, Markdown or fork of it can show it:
// - a tool call without its details keeps its name; its input becomes {} and
//   its result NOT_SHARED, and what a sub-agent wrote inside it goes;
// - a document tool's call is a tool detail while documents are hidden;
// - reasoning goes unless shown; files go unless included, each message
//   keeping only how many it held;
// - always: approval reasons' requests and ids (the owner's decisions), a
//   budget's notices (the owner's spending), compaction summaries (which may
//   retell anything hidden), and the owner's feedback.

/** What a hidden tool result says, to a viewer and to the model of a fork. */
export const NOT_SHARED = "(not shared)";

/** Each part of a message as the link keeps it, or nothing. */
function keptPart(part: Part, options: ShareOptions): Part | null {
  const detailed = (toolName: string) => options.toolDetails && (options.documents || !DOCUMENT_TOOL_NAMES.has(toolName));
  if ("parentCallId" in part && part.parentCallId !== undefined && !options.toolDetails) return null;
  switch (part.type) {
    case "text":
    case "handoff":
      return part;
    case "reasoning":
      return options.reasoning ? part : null;
    case "file":
      return options.attachments ? part : null;
    case "tool-call": {
      const { approval: _, ...call } = part;
      return detailed(part.toolName) ? call : { ...call, input: {} };
    }
    case "tool-result": {
      const { approval, ...result } = part;
      if (!detailed(part.toolName)) return { type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, output: NOT_SHARED, ...sameAgent(part) };
      // The decision stays (it says why a call did not run); the owner's reason is theirs.
      return approval ? { ...result, approval: { id: approval.id, outcome: approval.outcome } } : result;
    }
    case "system-event":
    case "notice":
      return null;
  }
}

const sameAgent = (part: { agentName?: string; rootCallId?: string }) => ({
  ...(part.agentName ? { agentName: part.agentName } : {}),
  ...(part.rootCallId ? { rootCallId: part.rootCallId } : {}),
});

/**
 * The snapshot of the thread's active branch under `options`. A message left
 * with no part (a reply that only thought, a message of files only) goes, and
 * the one after it follows the one before; seqs are counted anew from 1.
 */
export function snapshotOf(tree: VersionTree, options: ShareOptions): SharedSnapshot {
  const messages: SharedMessage[] = [];
  let seq = 1;
  for (const message of chosenPath(tree.messages)) {
    const parts = message.parts.flatMap((part) => keptPart(part, options) ?? []);
    const withheld = message.parts.filter((part) => part.type === "file").length - parts.filter((part) => part.type === "file").length;
    if (parts.length === 0 && withheld === 0) continue;
    const { feedback: _, ...rest } = message;
    messages.push({
      ...rest,
      parentId: messages.at(-1)?.id ?? null,
      chosen: true,
      seq,
      parts,
      ...(withheld > 0 ? { withheldFiles: withheld } : {}),
    });
    seq += Math.max(1, parts.length);
  }
  const kept = new Set(messages.map((message) => message.id));
  const named = new Set(messages.flatMap((message) => message.parts.flatMap((part) => (part.type === "file" ? [part.fileId] : []))));
  const files: SharedFile[] = (tree.files ?? []).filter((file) => named.has(file.id)).map(({ id, name, mediaType, size }) => ({ id, name, mediaType, size }));
  const documents: ExportedDocument[] = options.documents
    ? (tree.documents ?? []).flatMap((document) => {
        const versions = document.versions.filter((version) => kept.has(version.messageId));
        return versions.length > 0 ? [{ ...document, versions }] : [];
      })
    : [];
  return { title: tree.thread.title, startedAt: tree.thread.createdAt, messages, documents, files };
}
