import type { Part } from "@threadline/history/parts";
import { Markdown } from "@/components/chat/Markdown";
import { ReasoningBlock } from "@/components/chat/ReasoningBlock";
import { sharedFilePath, type SharedMessage, type SharedSnapshot, type ShareOptions } from "@/lib/protocol/shares";
import { UNTITLED_THREAD } from "@threadline/history/title";

interface SharedThreadViewProps {
  shareId: string;
  snapshot: SharedSnapshot;
  options: ShareOptions;
}

/** A shared conversation, read-only: its messages as the link's options allow, its documents, and what a viewer can do with it. */
export function SharedThreadView({ shareId, snapshot, options }: SharedThreadViewProps) {
  const title = snapshot.title ?? UNTITLED_THREAD;
  return (
    <main className="mx-auto flex min-h-dvh max-w-3xl flex-col gap-6 px-4 py-8">
      <header className="flex flex-col gap-2">
        <p className="text-xs text-neutral-500 dark:text-neutral-400">A shared conversation, as it was when the link was made</p>
        <h1 className="text-2xl font-semibold wrap-anywhere">{title}</h1>
        <div className="flex flex-wrap gap-2 print:hidden">
          <form method="get" action={`/continue/${shareId}`}>
            <button type="submit" className="rounded-lg bg-neutral-900 px-4 py-2 text-sm font-medium text-white hover:bg-neutral-700 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300">
              Continue this conversation
            </button>
          </form>
          <a href={`/s/${shareId}/markdown`} className="rounded-lg border border-neutral-300 px-4 py-2 text-sm hover:bg-neutral-100 dark:border-neutral-600 dark:hover:bg-neutral-800">
            Download as Markdown
          </a>
        </div>
      </header>
      <ol className="flex flex-col gap-6" aria-label="Messages">
        {snapshot.messages.map((message) => (
          <li key={message.id} className="flex flex-col gap-2">
            <h2 className="text-sm font-semibold text-neutral-600 dark:text-neutral-300">{message.role === "user" ? "User" : "Assistant"}</h2>
            <SharedParts shareId={shareId} message={message} options={options} />
          </li>
        ))}
      </ol>
      {snapshot.documents.length > 0 && (
        <aside aria-label="Documents" className="flex flex-col gap-4 border-t border-neutral-200 pt-4 dark:border-neutral-700">
          <h2 className="text-lg font-semibold">Documents</h2>
          {snapshot.documents.map((document) => {
            const latest = document.versions.at(-1)!;
            return (
              <section key={document.id} aria-label={document.title} className="rounded-xl border border-neutral-200 p-3 dark:border-neutral-700">
                <h3 className="font-medium">{document.title}</h3>
                {document.kind === "code" ? (
                  <pre className="overflow-auto text-xs"><code>{latest.content}</code></pre>
                ) : (
                  <Markdown text={latest.content} />
                )}
              </section>
            );
          })}
        </aside>
      )}
    </main>
  );
}

function SharedParts({ shareId, message, options }: { shareId: string; message: SharedMessage; options: ShareOptions }) {
  const results = new Map(message.parts.flatMap((part) => (part.type === "tool-result" ? [[part.toolCallId, part] as const] : [])));
  return (
    <>
      {message.parts.map((part: Part, index) => {
        switch (part.type) {
          case "text":
            return part.text.trim() ? <Markdown key={index} text={part.text} /> : null;
          case "reasoning":
            return <ReasoningBlock key={index} text={part.text} durationMs={part.durationMs} thinking={false} />;
          case "tool-call": {
            const result = results.get(part.toolCallId);
            return (
              <div key={index} className="rounded-xl border border-neutral-200 px-3 py-2 text-sm dark:border-neutral-700">
                <p>Used {part.toolName}</p>
                {options.toolDetails && (
                  <pre className="mt-1 overflow-auto text-xs whitespace-pre-wrap">{JSON.stringify(part.input, null, 2)}{result ? `\n→ ${JSON.stringify(result.output ?? result.error, null, 2)}` : ""}</pre>
                )}
              </div>
            );
          }
          case "handoff":
            return <p key={index} className="text-xs text-neutral-500">Handed over to {part.to}</p>;
          case "file":
            return part.mediaType.startsWith("image/") ? (
              // eslint-disable-next-line @next/next/no-img-element
              <img key={index} src={sharedFilePath(shareId, part.fileId)} alt={part.name} className="max-h-80 max-w-full rounded-lg" />
            ) : (
              <a key={index} href={sharedFilePath(shareId, part.fileId)} className="text-sm underline">{part.name}</a>
            );
          default:
            return null;
        }
      })}
      {message.withheldFiles ? <p className="text-xs text-neutral-500">{message.withheldFiles} attached file{message.withheldFiles === 1 ? "" : "s"} not shared</p> : null}
    </>
  );
}
