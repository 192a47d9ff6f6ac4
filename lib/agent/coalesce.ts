import type { UIMessageChunk } from "ai";
import type { Publish } from "./stream-chunks";

/** The longest a delta waits for company before it goes out. */
export const COALESCE_WINDOW_MS = 15;

type Delta = Extract<UIMessageChunk, { type: "text-delta" | "reasoning-delta" }>;

const isDelta = (chunk: UIMessageChunk): chunk is Delta => chunk.type === "text-delta" || chunk.type === "reasoning-delta";

/**
 * A publish that sends fewer, larger deltas. Every hop a chunk takes (the
 * channel, the realtime publish, SSE encoding, the browser's parser) costs per
 * chunk, and models send a token at a time. The first delta of a burst goes
 * out at once, so the first token is never late; deltas of the same part that
 * follow within the window are merged and sent when the window closes; any
 * other chunk sends what is held first, so the order never changes. Nothing
 * waits longer than `windowMs`, and the text is the same, joined.
 *
 * Publishing a held delta can fail after the caller has moved on: the error
 * is thrown from the next call (or from `flush`), where the caller's step
 * still notices it.
 */
export function coalescing(publish: Publish, windowMs = COALESCE_WINDOW_MS): Publish & { flush(): Promise<void> } {
  let held: { chunk: Delta; origin?: { step: string } } | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** When the last delta went out: a delta after a quiet spell goes out at once. */
  let lastSent = -Infinity;
  let failure: unknown;
  let sending: Promise<void> = Promise.resolve();

  const send = (chunk: UIMessageChunk, origin?: { step: string }) => {
    sending = sending.then(() => publish(chunk, origin)).catch((error) => void (failure ??= error));
    return sending;
  };
  const release = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!held) return sending;
    const { chunk, origin } = held;
    held = undefined;
    lastSent = Date.now();
    return send(chunk, origin);
  };
  const rethrow = () => {
    if (failure === undefined) return;
    const error = failure;
    failure = undefined;
    throw error;
  };

  const sameStream = (chunk: Delta, origin?: { step: string }) =>
    held !== undefined && held.chunk.type === chunk.type && held.chunk.id === chunk.id && held.origin?.step === origin?.step;
  const hold = (chunk: Delta, origin?: { step: string }) => {
    held = { chunk, origin };
    timer = setTimeout(() => void release(), windowMs - (Date.now() - lastSent));
  };

  const sendDelta = async (chunk: Delta, origin?: { step: string }) => {
    await release();
    if (Date.now() - lastSent >= windowMs) {
      lastSent = Date.now();
      await send(chunk, origin);
      rethrow();
      return;
    }
    hold(chunk, origin);
  };
  const sendOther = async (chunk: UIMessageChunk, origin?: { step: string }) => {
    await release();
    await send(chunk, origin);
    rethrow();
  };

  // Not async: a delta that joins the one held back (most of them, under load) costs no promise.
  const coalesced = (chunk: UIMessageChunk, origin?: { step: string }): void | Promise<void> => {
    if (failure !== undefined) return Promise.resolve().then(rethrow);
    if (!isDelta(chunk)) return sendOther(chunk, origin);
    if (held !== undefined && sameStream(chunk, origin)) {
      held = { chunk: { ...held.chunk, delta: held.chunk.delta + chunk.delta }, origin };
      return;
    }
    if (!held && Date.now() - lastSent < windowMs) return hold(chunk, origin);
    return sendDelta(chunk, origin);
  };
  return Object.assign(coalesced, {
    async flush() {
      await release();
      rethrow();
    },
  });
}
