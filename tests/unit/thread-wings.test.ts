import { describe, expect, it, vi } from "vitest";
import type { Feedback } from "@/lib/protocol/feedback";
import type { ThreadDocument } from "@/lib/protocol/documents";
import { ThreadWings, type ThreadWingsApi } from "@/lib/client/thread-wings";

// The thread's documents and feedback without React, against a fake server.

const doc = (id: string, version = 1) => ({ id, title: id, latest: { version }, versionCount: version }) as unknown as ThreadDocument;
const up = (messageId: string): Feedback => ({ messageId, rating: "up" }) as unknown as Feedback;

function wings(server: { documents: Record<string, ThreadDocument[]>; feedback: Record<string, Record<string, Feedback>> }) {
  const api: ThreadWingsApi = {
    fetchDocuments: vi.fn(async (threadId: string) => server.documents[threadId] ?? []),
    threadFeedback: vi.fn(async (threadId: string) => server.feedback[threadId] ?? {}),
    putFeedback: vi.fn(async (_threadId: string, messageId: string, change) => (change.rating === null ? null : up(messageId))),
  };
  const store = new ThreadWings(api);
  const until = (test: (s: ReturnType<typeof store.getSnapshot>) => boolean) =>
    vi.waitFor(() => {
      if (!test(store.getSnapshot())) throw new Error("not yet");
    });
  return { store, api, until };
}

describe("a thread's documents and feedback", () => {
  it("reads nothing for a chat not saved yet", () => {
    const { store, api } = wings({ documents: {}, feedback: {} });
    store.show(null, "");
    expect(api.fetchDocuments).not.toHaveBeenCalled();
    expect(api.threadFeedback).not.toHaveBeenCalled();
  });

  it("reads the feedback once per thread, the documents once its path settles and whenever it changes", async () => {
    const { store, api, until } = wings({ documents: { t: [doc("d1")] }, feedback: { t: { r1: up("r1") } } });
    store.show("t", null);
    expect(api.fetchDocuments).not.toHaveBeenCalled();
    await until((s) => s.feedback.r1 !== undefined);
    store.show("t", "u1,r1");
    await until((s) => s.documents.length === 1);
    store.show("t", "u1,r1");
    store.show("t", "u1,r2");
    expect(api.fetchDocuments).toHaveBeenCalledTimes(2);
    expect(api.threadFeedback).toHaveBeenCalledTimes(1);
  });

  it("keeps the feedback the same object while only the documents change", async () => {
    const { store, until } = wings({ documents: { t: [doc("d1")] }, feedback: {} });
    store.show("t", "u1");
    await until((s) => s.documents.length === 1);
    const feedback = store.getSnapshot().feedback;
    store.openDocument("d1");
    store.replaceDocument(doc("d1", 2));
    expect(store.getSnapshot()).toMatchObject({ openDocumentId: "d1", documents: [{ latest: { version: 2 } }] });
    expect(store.getSnapshot().feedback).toBe(feedback);
    store.closeDocument();
    expect(store.getSnapshot().openDocumentId).toBeUndefined();
  });

  it("shows feedback once the server took it, and clears it", async () => {
    const { store } = wings({ documents: {}, feedback: {} });
    store.show("t", null);
    await store.setFeedback("r1", { rating: "up" });
    expect(store.getSnapshot().feedback.r1).toMatchObject({ rating: "up" });
    await store.setFeedback("r1", { rating: null });
    expect(store.getSnapshot().feedback.r1).toBeUndefined();
  });

  it("draws nothing read for a thread the page no longer shows", async () => {
    const { store, api } = wings({ documents: { t: [doc("d1")] }, feedback: { t: { r1: up("r1") } } });
    store.show("t", "u1");
    store.hide();
    await Promise.all([vi.mocked(api.fetchDocuments).mock.results[0].value, vi.mocked(api.threadFeedback).mock.results[0].value]);
    expect(store.getSnapshot()).toMatchObject({ documents: [], feedback: {} });
  });
});
