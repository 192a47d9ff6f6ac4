import { describe, expect, it } from "vitest";
import { batchedPublish } from "@/lib/inngest/batched-publish";

/** A send whose requests the test answers one at a time. */
function manualSend() {
  const sent: number[][] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const send = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      sent.push(items);
      pending.push({ resolve, reject });
    });
  const settle = async (outcome: "ok" | Error) => {
    const next = pending.shift()!;
    if (outcome === "ok") next.resolve();
    else next.reject(outcome);
    // Let the batcher see the outcome and start its next send.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { sent, send, settle, waiting: () => pending.length };
}

/** What is ready now has run: the batcher's first send of a burst has gone out. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("batched realtime publishing", () => {
  it("sends the first item within the turn of the event loop and what arrives meanwhile as the next send, in order", async () => {
    const { sent, send, settle, waiting } = manualSend();
    const out = batchedPublish(send);
    out.push(1);
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual([[1]]);
    out.push(2);
    out.push(3);
    out.push(4);
    expect(sent).toEqual([[1]]); // one request in flight at a time
    await settle("ok");
    expect(sent).toEqual([[1], [2, 3, 4]]);
    const flushed = out.flush();
    await settle("ok");
    await flushed;
    expect(waiting()).toBe(0);
    // Idle again: the next item goes out alone, in the same turn of the event loop.
    out.push(5);
    await nextTurn();
    expect(sent.at(-1)).toEqual([5]);
    await settle("ok");
    await out.flush();
    expect(sent.flat()).toEqual([1, 2, 3, 4, 5]);
  });

  it("sends what is pushed in one turn of the event loop (a part's start and its first delta) as one send", async () => {
    const { sent, send, settle } = manualSend();
    const out = batchedPublish(send);
    out.push(1);
    out.push(2);
    await nextTurn();
    out.push(3);
    expect(sent).toEqual([[1, 2]]);
    await settle("ok");
    await settle("ok");
    await out.flush();
    expect(sent).toEqual([[1, 2], [3]]);
  });

  it("never makes the caller wait for the network", () => {
    const out = batchedPublish<number>(() => new Promise(() => {}));
    for (let i = 0; i < 1000; i++) expect(out.push(i)).toBeUndefined();
  });

  it("throws a failed send from the next push or from flush, and drops what that send's step still held", async () => {
    const { sent, send, settle } = manualSend();
    const out = batchedPublish(send);
    out.push(1);
    await nextTurn();
    out.push(2);
    await settle(new Error("realtime is down"));
    expect(sent).toEqual([[1]]);
    expect(() => out.push(3)).toThrow("realtime is down");
    // The failure is reported once; publishing goes on for the retried step.
    out.push(4);
    await nextTurn();
    expect(sent.at(-1)).toEqual([4]);
    await settle("ok");
    await out.flush();

    const again = batchedPublish(send);
    again.push(5);
    const flushed = again.flush();
    await nextTurn();
    await settle(new Error("timed out"));
    await expect(flushed).rejects.toThrow("timed out");
  });
});
