import { sharePath, type SharedSnapshot, type ShareOptions } from "@/lib/protocol/shares";
import { UNTITLED_THREAD } from "@threadline/history/title";
import { SharedMessage } from "./SharedMessage";
import { SharedDocuments } from "./SharedDocuments";

interface SharedThreadViewProps {
  shareId: string;
  snapshot: SharedSnapshot;
  options: ShareOptions;
}

// Rendered on the server for anyone, with no cookie: the same words in every
// time zone, so a cache in front of the app may serve the page to anybody.
const startedText = (at: string) => new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(at));

/**
 * A shared conversation, read-only: its messages as the link's options allow
 * (drawn as the thread draws them), its documents beside them, and what a
 * viewer can do with it: continue it as their own, or take it as Markdown.
 * Printed, it is the conversation alone, black on white (.print-plain).
 */
export function SharedThreadView({ shareId, snapshot, options }: SharedThreadViewProps) {
  const title = snapshot.title ?? UNTITLED_THREAD;
  const documents = snapshot.documents.map(({ id, title }) => ({ id, title }));
  const withDocuments = snapshot.documents.length > 0;
  return (
    <div className="print-plain min-h-dvh">
      <header className="border-b border-neutral-200 dark:border-neutral-800 print:border-0">
        <div className={`mx-auto flex flex-col gap-3 px-4 py-6 ${withDocuments ? "max-w-6xl" : "max-w-3xl"}`}>
          <p className="text-xs font-medium tracking-wide text-neutral-600 uppercase dark:text-neutral-300">Shared conversation</p>
          <h1 className="text-2xl font-semibold wrap-anywhere">{title}</h1>
          <p className="text-sm text-neutral-600 dark:text-neutral-300">
            A snapshot of the conversation as it was when the link was made: anything said in it since is not here. Started{" "}
            <time dateTime={snapshot.startedAt}>{startedText(snapshot.startedAt)}</time>.
          </p>
          <div className="flex flex-wrap items-center gap-2 print:hidden">
            {/* A form, not a script: the page works and stays cacheable without one; /continue signs the viewer in first where it must. */}
            <form method="get" action={`/continue/${shareId}`}>
              <button
                type="submit"
                className="rounded-lg bg-neutral-900 px-4 py-2 text-sm font-medium text-white outline-none hover:bg-neutral-700 focus-visible:ring-2 focus-visible:ring-neutral-500 focus-visible:ring-offset-2 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300 dark:focus-visible:ring-offset-neutral-900"
              >
                Continue this conversation
              </button>
            </form>
            <a
              href={`${sharePath(shareId)}/markdown`}
              download
              className="rounded-lg border border-neutral-300 px-4 py-2 text-sm font-medium outline-none hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-neutral-500 dark:border-neutral-600 dark:hover:bg-neutral-800"
            >
              Download as Markdown
            </a>
          </div>
        </div>
      </header>
      <div className={`mx-auto px-4 py-8 ${withDocuments ? "max-w-6xl lg:grid lg:grid-cols-[minmax(0,1fr)_24rem] lg:gap-10 print:block" : "max-w-3xl"}`}>
        <main className="min-w-0">
          <ol aria-label="Messages" className="flex flex-col gap-8">
            {snapshot.messages.map((message) => (
              <li key={message.id} className="min-w-0 print:break-inside-avoid-page">
                <SharedMessage shareId={shareId} message={message} options={options} documents={documents} />
              </li>
            ))}
          </ol>
        </main>
        {withDocuments && <SharedDocuments documents={snapshot.documents} />}
      </div>
    </div>
  );
}
