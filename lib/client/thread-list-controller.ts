// The sidebar's list of threads, framework-free: its pages, the news that
// reads it again, rename and delete, the read marks, its days. One snapshot
// behind subscribe/getSnapshot, as the thread's controller is to its page
// (lib/client/thread-controller.ts); React draws it through
// useSyncExternalStore (components/sidebar/ThreadsContext.tsx).
import type { ThreadListItem, ThreadPage, ThreadRead, ThreadSummary } from "@/lib/protocol/threads";
import { groupThreadsByDate, type ThreadGroup } from "@/lib/client/group-threads";
import { appendPage, mergeFirstPage, withRead, withSummary } from "@/lib/client/thread-list";
import type { ThreadListPort } from "@/lib/client/thread-list-port";

export type LoadState = "loading" | "ready" | "error";

/** What the list asks of the server (lib/client/api.ts). */
export interface ThreadListApi {
  listThreads: (options?: { cursor?: string }) => Promise<ThreadPage>;
  renameThread: (id: string, title: string) => Promise<ThreadSummary>;
  deleteThread: (id: string) => Promise<void>;
  markThreadRead: (id: string) => Promise<ThreadRead>;
}

export interface ThreadListControllerOptions {
  api: ThreadListApi;
  /**
   * Follows the news of the visitor's threads: `onNews` gets the changed
   * thread's id, or null when news may have been missed. Returns the
   * function that stops it.
   */
  followNews: (onNews: (threadId: string | null) => void) => () => void;
  /** News comes in bursts (a turn's end, the title, the read): one read of the list for each burst. */
  newsDebounceMs?: number;
  /** "Now", for the days the list is grouped by. */
  now?: () => Date;
}

export interface ThreadListSnapshot {
  threads: ThreadListItem[];
  /** The threads by day of their last activity ("Today", "Yesterday", ...). */
  groups: ThreadGroup<ThreadListItem>[];
  hasMore: boolean;
  loadState: LoadState;
  loadingMore: boolean;
}

const NEWS_DEBOUNCE_MS = 200;

export class ThreadListController implements ThreadListPort {
  private readonly listeners = new Set<() => void>();
  private readonly newsListeners = new Map<string, Set<() => void>>();
  private list: ThreadPage = { threads: [], nextCursor: null };
  private loadState: LoadState = "loading";
  private loadingMore = false;
  private snapshot: ThreadListSnapshot;
  /** Refreshes can overlap (a thread named, then its reply's end): only the latest may write. */
  private refreshTicket = 0;
  private newsTimer: ReturnType<typeof setTimeout> | undefined;
  /** The thread the page shows, whether the tab is in front, and what was marked read of it. */
  private activeId: string | null = null;
  private visible = false;
  private opened: string | null = null;
  private markedReply: string | null = null;

  constructor(private readonly options: ThreadListControllerOptions) {
    this.snapshot = this.build();
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly getSnapshot = (): ThreadListSnapshot => this.snapshot;

  /** The list is read and its news followed; the function returned stops following it. */
  readonly start = (): (() => void) => {
    void this.refresh();
    const stopNews = this.options.followNews((threadId) => this.news(threadId));
    return () => {
      stopNews();
      clearTimeout(this.newsTimer);
      this.newsTimer = undefined;
    };
  };

  /** Reads the first page again (after a turn, or when a new thread got its id), keeping the pages loaded after it. */
  readonly refresh = async (): Promise<void> => {
    const ticket = ++this.refreshTicket;
    try {
      const firstPage = await this.options.api.listThreads();
      if (ticket !== this.refreshTicket) return;
      this.list = mergeFirstPage(this.list, firstPage);
      this.loadState = "ready";
    } catch {
      if (ticket !== this.refreshTicket) return;
      if (this.loadState !== "ready") this.loadState = "error";
    }
    this.changed();
  };

  /** The next page; rejects with why it could not be read. */
  readonly loadMore = async (): Promise<void> => {
    const cursor = this.list.nextCursor;
    if (!cursor || this.loadingMore) return;
    this.loadingMore = true;
    this.changed();
    try {
      const page = await this.options.api.listThreads({ cursor });
      this.list = appendPage(this.list, page);
    } finally {
      this.loadingMore = false;
      this.changed();
    }
  };

  readonly rename = async (id: string, title: string): Promise<void> => {
    const updated = await this.options.api.renameThread(id, title);
    this.list = withSummary(this.list, updated);
    this.changed();
  };

  readonly remove = async (id: string): Promise<void> => {
    await this.options.api.deleteThread(id);
    this.list = { ...this.list, threads: this.list.threads.filter((thread) => thread.id !== id) };
    this.changed();
  };

  /**
   * Calls `listener` on news of the thread, as it arrives (before the list is
   * read again), and after the news stream came back from a break (news may
   * have been missed). Returns the function that stops it.
   */
  readonly onThreadNews = (threadId: string, listener: () => void): (() => void) => {
    let set = this.newsListeners.get(threadId);
    if (!set) this.newsListeners.set(threadId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.newsListeners.get(threadId) === set) this.newsListeners.delete(threadId);
    };
  };

  /** The thread the page shows (/c/:id), if any, and whether the tab is in front: what the owner has seen is marked read. */
  readonly show = (activeId: string | null, visible: boolean): void => {
    this.activeId = activeId;
    this.visible = visible;
    this.markRead();
  };

  /** News of a thread (null: news may have been missed): whoever follows it hears it at once; the list is read again once the burst is over. */
  private news(threadId: string | null): void {
    const told = threadId === null ? [...this.newsListeners.values()] : [this.newsListeners.get(threadId) ?? []];
    for (const set of told) for (const listener of set) listener();
    if (this.newsTimer !== undefined) return;
    this.newsTimer = setTimeout(() => {
      this.newsTimer = undefined;
      void this.refresh();
    }, this.options.newsDebounceMs ?? NEWS_DEBOUNCE_MS);
  }

  /**
   * The owner has seen what the page shows: the thread is marked read when it
   * is opened, and again when the list says a reply in it is unseen (it ended
   * while the page showed it), as soon as the tab is in front. Only by POST,
   * never by a page's GET: a prefetch must not mark anything seen.
   */
  private markRead(): void {
    const id = this.activeId;
    if (!this.visible) return;
    if (id !== null && id !== this.opened) void this.markReadOnServer(id);
    this.opened = id;
    // Once per reply: a failed mark does not turn into a loop.
    const active = this.list.threads.find((thread) => thread.id === id);
    const unseenReply = active?.unseen ? `${active.id} ${active.lastReplyAt}` : null;
    if (id === null || unseenReply === null || unseenReply === this.markedReply) return;
    this.markedReply = unseenReply;
    void this.markReadOnServer(id);
  }

  private async markReadOnServer(id: string): Promise<void> {
    try {
      const { lastReadAt } = await this.options.api.markThreadRead(id);
      this.list = withRead(this.list, id, lastReadAt);
      this.changed();
    } catch {
      // A thread not (or no longer) there: nothing to mark. Any other failure: the next open tries again.
    }
  }

  private changed(): void {
    this.snapshot = this.build();
    for (const listener of this.listeners) listener();
    this.markRead();
  }

  private build(): ThreadListSnapshot {
    const previous = this.snapshot as ThreadListSnapshot | undefined;
    const threads = this.list.threads;
    return {
      threads,
      // Grouped with "now" as the list changes; a stale day boundary fixes itself on the next refresh.
      groups: previous?.threads === threads ? previous.groups : groupThreadsByDate(threads, this.options.now?.() ?? new Date()),
      hasMore: this.list.nextCursor !== null,
      loadState: this.loadState,
      loadingMore: this.loadingMore,
    };
  }
}
