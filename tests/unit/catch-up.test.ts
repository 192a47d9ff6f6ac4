import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "@/lib/protocol/threads";
import { catchUpWith } from "@/lib/client/live/catch-up";
import { toChatMessage } from "@/lib/client/messages";

// What a chat page does when another tab or device changed its thread: draw
// the server's page only when it differs, and follow a reply being written.
const stored = (id: string, role: HistoryMessage["role"], seq: number): HistoryMessage => ({
  id,
  role,
  seq,
  createdAt: "2026-11-24T10:00:00.000Z",
  status: "complete",
  parts: [{ type: "text", text: id }],
  signature: `sig-${id}`,
});
const thread = [stored("u1", "user", 1), stored("a1", "assistant", 2)];
const shown = thread.map(toChatMessage);

describe("catching up with another tab's change", () => {
  it("does nothing when the page holds what the server holds (its own reply just ended)", () => {
    expect(catchUpWith(shown, thread)).toEqual({ redraw: false, follow: false });
  });

  it("draws the thread and follows the reply when another tab sent a message", () => {
    expect(catchUpWith(shown, [...thread, stored("u2", "user", 3)])).toEqual({ redraw: true, follow: true });
  });

  it("draws the reply another tab finished, and follows nothing", () => {
    const before = [...thread, stored("u2", "user", 3)].map(toChatMessage);
    expect(catchUpWith(before, [...thread, stored("u2", "user", 3), stored("a2", "assistant", 4)])).toEqual({ redraw: true, follow: false });
  });

  it("draws another version chosen elsewhere", () => {
    expect(catchUpWith(shown, [thread[0], stored("a1-b", "assistant", 3)])).toEqual({ redraw: true, follow: false });
  });

  it("compares only the server's latest page with the page's last messages (earlier pages loaded here are no change)", () => {
    const older = [stored("u0", "user", 0), ...thread].map(toChatMessage);
    expect(catchUpWith(older, thread)).toEqual({ redraw: false, follow: false });
  });
});

describe("a message whose turn ended on this page without a reply", () => {
  const unanswered = [...thread, stored("u2", "user", 3)];
  it("is left as the page shows it (its error or interruption stays), not followed", () => {
    const shownWithError = [...shown, toChatMessage(stored("u2", "user", 3)), { id: "placeholder", role: "assistant" as const, parts: [] }];
    expect(catchUpWith(shownWithError, unanswered, "u2")).toEqual({ redraw: false, follow: false });
  });
  it("is followed once another tab sends a newer message", () => {
    expect(catchUpWith(shown, [...unanswered, stored("a2", "assistant", 4), stored("u3", "user", 5)], "u2")).toEqual({ redraw: true, follow: true });
  });
});

describe("a summary the server wrote after the page's own turn", () => {
  it("is no change to catch up with: it joins the page with the next reply", () => {
    const summary: HistoryMessage = { ...stored("s1", "system", 3), parts: [{ type: "text", text: "summary" }] };
    expect(catchUpWith(shown, [...thread, summary])).toEqual({ redraw: false, follow: false });
  });
});
