import type { ExportedDocument } from "@/lib/protocol/thread-export";
import { OWNER_AUTHOR } from "@/lib/protocol/document-kinds";
import { CopyButton } from "@/components/chat/CopyButton";
import { Markdown } from "@/components/chat/Markdown";
import { documentAnchor } from "./SharedMessage";

/**
 * The documents of a shared conversation, read-only: each as it stood at the
 * branch's end (its last version the link holds). Beside the messages on a
 * wide screen, below them on a narrow one and on paper.
 */
export function SharedDocuments({ documents }: { documents: ExportedDocument[] }) {
  return (
    <aside
      aria-labelledby="shared-documents"
      className="mt-10 flex min-w-0 flex-col gap-4 border-t border-neutral-200 pt-6 lg:sticky lg:top-6 lg:mt-0 lg:max-h-[calc(100dvh-3rem)] lg:self-start lg:overflow-y-auto lg:border-t-0 lg:border-l lg:pt-0 lg:pl-6 dark:border-neutral-700 print:static print:mt-10 print:max-h-none print:overflow-visible print:border-0 print:p-0"
    >
      <h2 id="shared-documents" className="text-lg font-semibold">
        Documents
      </h2>
      {documents.map((document) => {
        const latest = document.versions.at(-1)!;
        const headingId = `${documentAnchor(document.id)}-title`;
        return (
          <section
            key={document.id}
            id={documentAnchor(document.id)}
            aria-labelledby={headingId}
            className="scroll-mt-6 rounded-xl border border-neutral-200 dark:border-neutral-700 print:break-inside-avoid-page print:rounded-none print:border-0"
          >
            <div className="flex items-center gap-2 border-b border-neutral-200 px-3 py-2 dark:border-neutral-700 print:px-0">
              <h3 id={headingId} className="min-w-0 flex-1 text-sm font-semibold wrap-anywhere">
                {document.title}
              </h3>
              <span className="shrink-0 text-xs text-neutral-600 dark:text-neutral-300">
                v{latest.version} · by {latest.author === OWNER_AUTHOR ? "its owner" : latest.author}
              </span>
              <CopyButton text={latest.content} className="shrink-0 print:hidden" />
            </div>
            <div className="p-3 text-sm print:px-0">
              {document.kind === "code" ? (
                <pre className="overflow-x-auto font-mono text-xs leading-relaxed whitespace-pre-wrap wrap-anywhere">
                  <code>{latest.content}</code>
                </pre>
              ) : (
                <Markdown text={latest.content} />
              )}
            </div>
          </section>
        );
      })}
    </aside>
  );
}
