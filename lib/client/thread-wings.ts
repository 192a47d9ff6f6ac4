// What the page keeps of its thread beside the messages, framework-free: the
// thread's documents as of its active path (and which one the side panel
// shows), and the feedback on its replies. The thread's controller drives it
// (lib/client/thread-controller.ts): it says which thread the page shows and
// when its path has settled; React reads the snapshot.
import type { Feedback, FeedbackRequest } from "@/lib/protocol/feedback";
import type { ThreadDocument } from "@/lib/protocol/documents";

export interface ThreadWingsApi {
  fetchDocuments: (threadId: string, signal?: AbortSignal) => Promise<ThreadDocument[]>;
  threadFeedback: (threadId: string) => Promise<Record<string, Feedback>>;
  putFeedback: (threadId: string, messageId: string, change: FeedbackRequest) => Promise<Feedback | null>;
}

export interface ThreadWingsSnapshot {
  documents: ThreadDocument[];
  /** The document the side panel shows. */
  openDocumentId: string | undefined;
  /**
   * The thread's feedback by reply version, as the server last answered. The
   * same object until feedback changes, so the memoised bubbles are not drawn
   * again while a reply streams.
   */
  feedback: Readonly<Record<string, Feedback>>;
}

export class ThreadWings {
  private readonly listeners = new Set<() => void>();
  private snapshot: ThreadWingsSnapshot = { documents: [], openDocumentId: undefined, feedback: {} };
  private threadId: string | null = null;
  private pathKey: string | null = null;
  private documentsRead: AbortController | undefined;
  /** Only the latest thread's read of its feedback may write it. */
  private feedbackTicket = 0;

  constructor(private readonly api: ThreadWingsApi) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getSnapshot = (): ThreadWingsSnapshot => this.snapshot;

  /**
   * The thread the page shows (null: none, or not saved yet) and its path
   * (the ids of its messages; null while a reply is on its way). Its feedback
   * is read once per thread, its documents when the thread settles and
   * whenever its path changes (a new reply, a regenerate, a version switched).
   */
  readonly show = (threadId: string | null, pathKey: string | null): void => {
    if (threadId !== this.threadId) {
      this.threadId = threadId;
      this.pathKey = null;
      this.readFeedback(threadId);
      if (threadId === null) this.update({ documents: [] });
    }
    if (pathKey === this.pathKey) return;
    this.pathKey = pathKey;
    this.documentsRead?.abort();
    this.documentsRead = undefined;
    if (threadId === null || pathKey === null) return;
    const read = (this.documentsRead = new AbortController());
    this.api.fetchDocuments(threadId, read.signal).then(
      (documents) => {
        if (!read.signal.aborted) this.update({ documents });
      },
      () => {},
    );
  };

  /** The page no longer shows the thread: nothing read for it is drawn. */
  readonly hide = (): void => {
    this.documentsRead?.abort();
    this.documentsRead = undefined;
    this.feedbackTicket++;
    this.threadId = null;
    this.pathKey = null;
  };

  readonly openDocument = (documentId: string): void => this.update({ openDocumentId: documentId });
  readonly closeDocument = (): void => this.update({ openDocumentId: undefined });

  /** The document as the owner's edit left it. */
  readonly replaceDocument = (document: ThreadDocument): void =>
    this.update({ documents: this.snapshot.documents.map((d) => (d.id === document.id ? document : d)) });

  /** Stores a change and, once the server took it, shows it; rejects with the reason it was refused. */
  readonly setFeedback = async (messageId: string, change: FeedbackRequest): Promise<void> => {
    const threadId = this.threadId;
    if (!threadId) return;
    const stands = await this.api.putFeedback(threadId, messageId, change);
    const { [messageId]: _, ...rest } = this.snapshot.feedback;
    this.update({ feedback: stands ? { ...rest, [messageId]: stands } : rest });
  };

  private readFeedback(threadId: string | null): void {
    const ticket = ++this.feedbackTicket;
    this.update({ feedback: {} });
    if (!threadId) return;
    // A thread whose feedback cannot be read shows none; a change still works.
    this.api.threadFeedback(threadId).then(
      (feedback) => {
        if (ticket === this.feedbackTicket) this.update({ feedback });
      },
      () => {},
    );
  }

  private update(change: Partial<ThreadWingsSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }
}
