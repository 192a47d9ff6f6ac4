import { describe, expect, it, vi } from "vitest";
import type { ThreadListItem, ThreadPage } from "@/lib/protocol/threads";
import { ThreadListController, type ThreadListApi } from "@/lib/client/thread-list-controller";
import { appendPage, mergeFirstPage, withRead, withSummary } from "@/lib/client/thread-list";

// The sidebar's list without React: how its pages combine, and the
// controller against a fake server (its pages by cursor), news pushed as the
// news stream would.

const item = (id: string, extra: Partial<ThreadListItem> = {}): ThreadListItem => ({
  id,
  title: id,
  createdAt: "2026-11-20T10:00:00.000Z",
  updatedAt: "2026-11-28T10:00:00.000Z",
  messageCount: 2,
  source: "web",
  sourceId: null,
  sourceMetadata: null,
  model: null,
  hasActiveGeneration: false,
  reminders: [],
  reminderCount: 0,
  lastReadAt: null,
  lastReplyAt: "2026-11-28T10:00:00.000Z",
  unseen: false,
  ...extra,
});

function list(pages: Record<string, ThreadPage>) {
  const server = { pages, reads: [] as string[] };
  const api: ThreadListApi = {
    listThreads: vi.fn(async ({ cursor } = {}) => {
      const page = server.pages[cursor ?? "first"];
      if (!page) throw new Error("Could not load chats.");
      return page;
    }),
    renameThread: vi.fn(async (id: string, title: string) => ({ ...item(id), title })),
    deleteThread: vi.fn(async () => {}),
    markThreadRead: vi.fn(async (id: string) => {
      server.reads.push(id);
      return { lastReadAt: "2026-11-28T11:00:00.000Z" };
    }),
  };
  let onNews: (threadId: string | null) => void = () => {};
  const stopNews = vi.fn();
  const threads = new ThreadListController({
    api,
    followNews: (listener) => {
      onNews = listener;
      return stopNews;
    },
    newsDebounceMs: 0,
    now: () => new Date("2026-11-28T12:00:00.000Z"),
  });
  const stop = threads.start();
  const until = (test: (s: ReturnType<typeof threads.getSnapshot>) => boolean) =>
    vi.waitFor(() => {
      const snapshot = threads.getSnapshot();
      if (!test(snapshot)) throw new Error("not yet");
      return snapshot;
    });
  return { threads, api, server, news: (id: string | null) => onNews(id), stop, stopNews, until };
}

const ids = (threads: ThreadListItem[]) => threads.map((t) => t.id);

describe("the sidebar's list across refreshes", () => {
  it("a refreshed first page puts a thread from a later page that got a message at the top, and keeps the rest in place", () => {
    const loaded = appendPage({ threads: [item("a"), item("b")], nextCursor: "c1" }, { threads: [item("c"), item("d")], nextCursor: "c2" });
    const merged = mergeFirstPage(loaded, { threads: [item("d"), item("a")], nextCursor: "x" });
    expect(ids(merged.threads)).toEqual(["d", "a", "b", "c"]);
    expect(merged.nextCursor).toBe("c2");
  });

  it("a read clears the thread's New reply unless a newer reply came since; a rename keeps what only the list knows", () => {
    const list = { threads: [item("a", { lastReplyAt: "2026-11-20T10:00:05.000Z", unseen: true }), item("b", { hasActiveGeneration: true, unseen: true })], nextCursor: null };
    expect(withRead(list, "a", "2026-11-20T10:00:06.000Z").threads[0]).toMatchObject({ unseen: false, lastReadAt: "2026-11-20T10:00:06.000Z" });
    expect(withRead(list, "a", "2026-11-20T10:00:04.000Z").threads[0]).toMatchObject({ unseen: true });
    expect(withRead(list, "a", "2026-11-20T10:00:06.000Z").threads[1]).toBe(list.threads[1]);
    const renamed = withSummary(list, { id: "b", title: "New name", createdAt: "x", updatedAt: "y", messageCount: 2, source: "web", sourceId: null, sourceMetadata: null, model: null });
    expect(renamed.threads[1]).toMatchObject({ title: "New name", hasActiveGeneration: true, unseen: true });
  });
});

describe("the sidebar's list of threads", () => {
  it("reads its first page once started, grouped by the day of each thread's last activity", async () => {
    const { threads, until } = list({ first: { threads: [item("a"), item("b", { updatedAt: "2026-11-27T10:00:00.000Z" })], nextCursor: null } });
    expect(threads.getSnapshot().loadState).toBe("loading");
    const snapshot = await until((s) => s.loadState === "ready");
    expect(ids(snapshot.threads)).toEqual(["a", "b"]);
    expect(snapshot.groups.map((g) => [g.label, ids(g.threads)])).toEqual([
      ["Today", ["a"]],
      ["Yesterday", ["b"]],
    ]);
    expect(snapshot.hasMore).toBe(false);
  });

  it("says the list could not be read, until a refresh reads it", async () => {
    const { threads, server, until } = list({});
    await until((s) => s.loadState === "error");
    server.pages.first = { threads: [item("a")], nextCursor: null };
    await threads.refresh();
    expect(threads.getSnapshot()).toMatchObject({ loadState: "ready", threads: [{ id: "a" }] });
  });

  it("loads the next page after the ones it holds, and a refresh keeps them", async () => {
    const { threads, server, until } = list({
      first: { threads: [item("a"), item("b")], nextCursor: "c1" },
      c1: { threads: [item("b"), item("c")], nextCursor: null },
    });
    await until((s) => s.hasMore);
    const loading = threads.loadMore();
    expect(threads.getSnapshot().loadingMore).toBe(true);
    await loading;
    expect(threads.getSnapshot()).toMatchObject({ loadingMore: false, hasMore: false });
    expect(ids(threads.getSnapshot().threads)).toEqual(["a", "b", "c"]);
    server.pages.first = { threads: [item("c"), item("a")], nextCursor: "c2" };
    await threads.refresh();
    expect(ids(threads.getSnapshot().threads)).toEqual(["c", "a", "b"]);
  });

  it("a page that could not be loaded rejects, and the list stays as it was", async () => {
    const { threads, until } = list({ first: { threads: [item("a")], nextCursor: "gone" } });
    await until((s) => s.hasMore);
    await expect(threads.loadMore()).rejects.toThrow("Could not load chats.");
    expect(threads.getSnapshot()).toMatchObject({ loadingMore: false, hasMore: true, threads: [{ id: "a" }] });
  });

  it("renames a thread in place, and deletes one from the list", async () => {
    const { threads, until } = list({ first: { threads: [item("a"), item("b")], nextCursor: null } });
    await until((s) => s.threads.length === 2);
    await threads.rename("a", "Cats");
    await threads.remove("b");
    expect(threads.getSnapshot().threads.map((t) => [t.id, t.title])).toEqual([["a", "Cats"]]);
  });

  it("tells a thread's follower of its news at once, every follower on missed news, and reads the list again", async () => {
    const { threads, news, server, until } = list({ first: { threads: [item("a")], nextCursor: null } });
    await until((s) => s.threads.length === 1);
    const heard: string[] = [];
    const stopA = threads.onThreadNews("a", () => heard.push("a"));
    threads.onThreadNews("b", () => heard.push("b"));
    news("a");
    expect(heard).toEqual(["a"]);
    news(null);
    expect(heard).toEqual(["a", "a", "b"]);
    stopA();
    news("a");
    expect(heard).toEqual(["a", "a", "b"]);
    server.pages.first = { threads: [item("n"), item("a")], nextCursor: null };
    await until((s) => s.threads.length === 2);
  });

  it("stops following the news once stopped", async () => {
    const { stop, stopNews } = list({ first: { threads: [], nextCursor: null } });
    stop();
    expect(stopNews).toHaveBeenCalledOnce();
  });

  it("marks the thread shown read once the tab is in front, and its unseen reply once", async () => {
    const { threads, server, until } = list({ first: { threads: [item("a", { unseen: true })], nextCursor: null } });
    await until((s) => s.threads.length === 1);
    threads.show("a", false);
    expect(server.reads).toEqual([]);
    threads.show("a", true);
    await until((s) => s.threads[0].unseen === false);
    // Opened, and its unseen reply: as the page did, one mark each, never again for the same reply.
    expect(server.reads).toEqual(["a", "a"]);
    threads.show("a", true);
    await threads.refresh();
    expect(server.reads).toEqual(["a", "a"]);
  });

  it("marks nothing while no thread is shown", async () => {
    const { threads, server, until } = list({ first: { threads: [item("a", { unseen: true })], nextCursor: null } });
    await until((s) => s.threads.length === 1);
    threads.show(null, true);
    expect(server.reads).toEqual([]);
  });
});
