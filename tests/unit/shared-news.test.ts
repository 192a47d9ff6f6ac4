import { afterEach, describe, expect, it, vi } from "vitest";
import { followThreadNews } from "@/lib/client/live/shared-news";

// The thread news one tab keeps open for all of them (a Web Lock says which
// tab). A page that goes while its lock is on its way must open nothing: the
// browser grants a free lock a moment after it is asked for, and a stream
// opened then would outlive the page (an open connection of the six a browser
// allows a server) and relay on a channel already closed.

class FakeEventSource {
  static opened: FakeEventSource[] = [];
  static readonly CLOSED = 2;
  readyState = 0;
  onopen: (() => void) | null = null;
  onmessage: ((event: MessageEvent<string>) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
}

/** Web Locks as a browser grants them: later than asked, one holder at a time. */
function fakeLocks() {
  let held = false;
  return {
    request: async (_name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => unknown) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (options.signal?.aborted) throw new DOMException("The request was aborted.", "AbortError");
      if (held && options.ifAvailable) return callback(null);
      held = true;
      try {
        return await callback({});
      } finally {
        held = false;
      }
    },
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeEventSource.opened = [];
});

function stubBrowser() {
  vi.stubGlobal("EventSource", FakeEventSource);
  vi.stubGlobal("navigator", { locks: fakeLocks() });
}

describe("the tab that keeps the thread news open", () => {
  it("opens one stream while the page shows, and closes it when the page goes", async () => {
    stubBrowser();
    const stop = followThreadNews("/api/threads/events", () => {});
    await vi.waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));
    expect(FakeEventSource.opened[0].readyState).not.toBe(FakeEventSource.CLOSED);
    stop();
    expect(FakeEventSource.opened[0].readyState).toBe(FakeEventSource.CLOSED);
  });

  it("opens nothing when the page goes before its lock comes", async () => {
    stubBrowser();
    const stop = followThreadNews("/api/threads/events", () => {});
    stop(); // a page shown and gone at once (React's development mount, a quick navigation)
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(FakeEventSource.opened.filter((source) => source.readyState !== FakeEventSource.CLOSED)).toEqual([]);
  });
});
