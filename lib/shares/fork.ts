import "server-only";
import type { Part } from "@threadline/history/parts";
import type { ExportedDocument, ExportedFile, ExportedMessage, ThreadExport } from "@/lib/protocol/thread-export";
import type { SharedSnapshot } from "@/lib/protocol/shares";

/**
 * A link's snapshot as a thread file the viewer's import reads: the branch's
 * messages chained anew (a message that kept no part, as one whose only
 * files were withheld, is left out), the files it shows with their bytes as
 * the owner holds them (a file the owner no longer holds is left out with
 * its part), its documents' versions that belong with those messages.
 */
export function forkOfSnapshot(
  snapshot: SharedSnapshot,
  shareId: string,
  bytes: ReadonlyMap<string, Buffer>,
): Pick<ThreadExport, "thread" | "messages" | "files" | "documents"> {
  const files: ExportedFile[] = snapshot.files.flatMap((file) => {
    const content = bytes.get(file.id);
    return content ? [{ ...file, data: content.toString("base64") }] : [];
  });
  const held = new Set(files.map((file) => file.id));
  const messages: ExportedMessage[] = [];
  let seq = 1;
  for (const message of snapshot.messages) {
    const parts = message.parts.filter((part: Part) => part.type !== "file" || held.has(part.fileId));
    if (parts.length === 0) continue;
    const { withheldFiles: _, ...rest } = message;
    messages.push({ ...rest, parts, parentId: messages.at(-1)?.id ?? null, chosen: true, seq });
    seq += parts.length;
  }
  const kept = new Set(messages.map((message) => message.id));
  const documents: ExportedDocument[] = snapshot.documents.flatMap((document) => {
    const versions = document.versions.filter((version) => kept.has(version.messageId)).map((version, index) => ({ ...version, version: index + 1 }));
    return versions.length > 0 ? [{ ...document, versions }] : [];
  });
  const now = new Date().toISOString();
  return {
    thread: { title: snapshot.title, createdAt: snapshot.startedAt, updatedAt: now, source: "share", sourceId: shareId, sourceMetadata: null },
    files,
    messages,
    documents,
  };
}
