import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "@/lib/protocol/threads";
import { catchUpWith } from "@/lib/client/live/catch-up";
import { toChatMessage } from "@/lib/client/messages";
import { storedMessage } from "../support/stored-message";

// What a chat page does when another tab or device changed its thread: draw
// the server's page only when it differs, and follow a reply being written.
const stored = (id: string, role: HistoryMessage["role"], seq: number) =>
  storedMessage(id, role, seq, { createdAt: "2026-11-24T10:00:00.000Z", signature: `sig-${id}` });
const thread = [stored("u1", "user", 1), stored("a1", "assistant", 2)];
const shown = thread.map(toChatMessage);

describe("catching up with another tab's change", () => {
  it("does nothing when the page holds what the server holds (its own reply just ended)", () => {
    expect(catchUpWith(shown, thread)).toEqual({ redraw: false, follow: false, continuation: false });
  });

  it("draws the thread and follows the reply when another tab sent a message", () => {
    expect(catchUpWith(shown, [...thread, stored("u2", "user", 3)])).toEqual({ redraw: true, follow: true, continuation: false });
  });

  it("draws the reply another tab finished, and follows nothing", () => {
    const before = [...thread, stored("u2", "user", 3)].map(toChatMessage);
    expect(catchUpWith(before, [...thread, stored("u2", "user", 3), stored("a2", "assistant", 4)])).toEqual({ redraw: true, follow: false, continuation: false });
  });

  it("draws another version chosen elsewhere", () => {
    expect(catchUpWith(shown, [thread[0], stored("a1-b", "assistant", 3)])).toEqual({ redraw: true, follow: false, continuation: false });
  });

  it("compares only the server's latest page with the page's last messages (earlier pages loaded here are no change)", () => {
    const older = [stored("u0", "user", 0), ...thread].map(toChatMessage);
    expect(catchUpWith(older, thread)).toEqual({ redraw: false, follow: false, continuation: false });
  });
});

describe("a message whose turn ended on this page without a reply", () => {
  const unanswered = [...thread, stored("u2", "user", 3)];
  it("is left as the page shows it (its error or interruption stays), not followed", () => {
    const shownWithError = [...shown, toChatMessage(stored("u2", "user", 3)), { id: "placeholder", role: "assistant" as const, parts: [] }];
    expect(catchUpWith(shownWithError, unanswered, "u2")).toEqual({ redraw: false, follow: false, continuation: false });
  });
  it("is followed once another tab sends a newer message", () => {
    expect(catchUpWith(shown, [...unanswered, stored("a2", "assistant", 4), stored("u3", "user", 5)], "u2")).toEqual({ redraw: true, follow: true, continuation: false });
  });
});

describe("a summary the server wrote after the page's own turn", () => {
  it("is no change to catch up with: it joins the page with the next reply", () => {
    const summary: HistoryMessage = { ...stored("s1", "system", 3), parts: [{ type: "text", text: "summary" }] };
    expect(catchUpWith(shown, [...thread, summary])).toEqual({ redraw: false, follow: false, continuation: false });
  });
});

describe("a reply that waits for the user's decision on a tool call", () => {
  const APPROVAL = "5d0c8f3e-2b1a-4c6d-9e7f-1a2b3c4d5e6f";
  const call = { type: "tool-call" as const, toolCallId: "c1", toolName: "calculate", input: { expression: "6 * 7" }, approval: { id: APPROVAL } };
  const waiting: HistoryMessage = { ...stored("a2", "assistant", 4), status: "waiting", parts: [call] };
  const goneOn = (outcome: "approved" | "denied"): HistoryMessage => ({
    ...waiting,
    status: "complete",
    parts: [
      call,
      outcome === "approved"
        ? { type: "tool-result", toolCallId: "c1", toolName: "calculate", output: { result: "42" }, approval: { id: APPROVAL, outcome } }
        : { type: "tool-result", toolCallId: "c1", toolName: "calculate", error: "The user denied this.", approval: { id: APPROVAL, outcome } },
      { type: "text", text: "There." },
    ],
  });
  const asked = [...thread, stored("u2", "user", 3)];

  it("is followed, should a decision made elsewhere have set it going, and not drawn again while it still waits", () => {
    const shownWaiting = [...asked, waiting].map(toChatMessage);
    expect(catchUpWith(shownWaiting, [...asked, waiting])).toEqual({ redraw: false, follow: false, continuation: true });
  });

  for (const outcome of ["approved", "denied"] as const) {
    it(`is drawn again once it went on elsewhere (${outcome}): the same id, its call decided`, () => {
      const shownWaiting = [...asked, waiting].map(toChatMessage);
      expect(catchUpWith(shownWaiting, [...asked, goneOn(outcome)])).toEqual({ redraw: true, follow: false, continuation: false });
    });
  }

  it("is drawn again once Stop in another tab ended its wait", () => {
    const stopped: HistoryMessage = {
      ...waiting,
      status: "stopped",
      parts: [call, { type: "tool-result", toolCallId: "c1", toolName: "calculate", error: "The user stopped the reply before this ran.", approval: { id: APPROVAL, outcome: "stopped" } }],
    };
    expect(catchUpWith([...asked, waiting].map(toChatMessage), [...asked, stopped])).toEqual({ redraw: true, follow: false, continuation: false });
  });

  it("is no change once this page followed it going on: what it streamed is what the server stored", () => {
    const streamedHere = [...asked, goneOn("approved")].map(toChatMessage);
    expect(catchUpWith(streamedHere, [...asked, goneOn("approved")])).toEqual({ redraw: false, follow: false, continuation: false });
  });

  it("is no change while this page has decided one of its calls and the server waits for the others", () => {
    const decidedHere = toChatMessage(waiting);
    decidedHere.parts = decidedHere.parts.map((p) => (p.type === "dynamic-tool" ? { ...p, state: "approval-responded", approval: { id: APPROVAL, approved: true } } : p)) as typeof decidedHere.parts;
    const serverSays: HistoryMessage = { ...waiting, decided: { [APPROVAL]: { approved: true } } };
    expect(catchUpWith([...asked.map(toChatMessage), decidedHere], [...asked, serverSays])).toEqual({ redraw: false, follow: false, continuation: true });
  });

  it("is drawn again with its call decided when it was decided elsewhere, before it goes on (a going on this page may miss)", () => {
    const shownWaiting = [...asked, waiting].map(toChatMessage);
    const deniedThere: HistoryMessage = { ...waiting, decided: { [APPROVAL]: { approved: false, reason: "no" } } };
    expect(catchUpWith(shownWaiting, [...asked, deniedThere])).toEqual({ redraw: true, follow: false, continuation: true });
  });
});
