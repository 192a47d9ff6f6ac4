import { describe, expect, it } from "vitest";
import { appendPage, mergeFirstPage, withRead, withSummary } from "@/lib/client/thread-list";
import type { ThreadListItem } from "@/lib/protocol/threads";

const item = (id: string, extra: Partial<ThreadListItem> = {}): ThreadListItem => ({
  id,
  title: id,
  createdAt: "2026-11-20T10:00:00.000Z",
  updatedAt: "2026-11-20T10:00:00.000Z",
  messageCount: 2,
  source: "web",
  sourceId: null,
  sourceMetadata: null,
  model: null,
  hasActiveGeneration: false,
  reminders: [],
  reminderCount: 0,
  lastReadAt: null,
  lastReplyAt: "2026-11-20T10:00:00.000Z",
  unseen: true,
  ...extra,
});
const ids = (threads: ThreadListItem[]) => threads.map((t) => t.id);

describe("the sidebar's list across refreshes", () => {
  it("a refreshed first page puts a thread from a later page that got a message at the top, and keeps the rest in place", () => {
    const loaded = appendPage({ threads: [item("a"), item("b")], nextCursor: "c1" }, { threads: [item("c"), item("d")], nextCursor: "c2" });
    const merged = mergeFirstPage(loaded, { threads: [item("d"), item("a")], nextCursor: "x" });
    expect(ids(merged.threads)).toEqual(["d", "a", "b", "c"]);
    expect(merged.nextCursor).toBe("c2");
  });

  it("a read clears the thread's New reply unless a newer reply came since; a rename keeps what only the list knows", () => {
    const list = { threads: [item("a", { lastReplyAt: "2026-11-20T10:00:05.000Z" }), item("b", { hasActiveGeneration: true })], nextCursor: null };
    expect(withRead(list, "a", "2026-11-20T10:00:06.000Z").threads[0]).toMatchObject({ unseen: false, lastReadAt: "2026-11-20T10:00:06.000Z" });
    expect(withRead(list, "a", "2026-11-20T10:00:04.000Z").threads[0]).toMatchObject({ unseen: true });
    expect(withRead(list, "a", "2026-11-20T10:00:06.000Z").threads[1]).toBe(list.threads[1]);
    const renamed = withSummary(list, { id: "b", title: "New name", createdAt: "x", updatedAt: "y", messageCount: 2, source: "web", sourceId: null, sourceMetadata: null, model: null });
    expect(renamed.threads[1]).toMatchObject({ title: "New name", hasActiveGeneration: true, unseen: true });
  });
});
