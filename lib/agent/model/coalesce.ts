import type { UIMessageChunk } from "ai";
import type { Publish } from "../turn/stream-chunks";

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
  /** The delta held back, and its text so far (the deltas joined into it). */
  let held: { chunk: Delta; text: string; origin?: { step: string } } | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** When the last delta went out: a delta after a quiet spell goes out at once. */
  let lastSent = -Infinity;
  let failure: unknown;
  /** A publish still under way (a runtime whose publish returns a promise): what follows goes out after it. */
  let pending: Promise<void> | undefined;

  const failed = (error: unknown) => void (failure ??= error);
  const track = (sent: Promise<void>): Promise<void> => {
    const tracked: Promise<void> = sent.then(() => {
      if (pending === tracked) pending = undefined;
    });
    return (pending = tracked);
  };
  // A publish that takes the chunk at once costs no promise; one that returns a promise holds the next ones back until it settles.
  const deliver = (chunk: UIMessageChunk, origin?: { step: string }): void | Promise<void> => {
    if (pending) return track(pending.then(() => publish(chunk, origin)).catch(failed));
    try {
      const sent = publish(chunk, origin);
      if (sent) return track(sent.catch(failed));
    } catch (error) {
      failed(error);
    }
  };
  const release = (): void | Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (!held) return pending;
    const { chunk, text, origin } = held;
    held = undefined;
    lastSent = Date.now();
    return deliver(text === chunk.delta ? chunk : { ...chunk, delta: text }, origin);
  };
  const rethrow = (): void | Promise<void> => {
    if (failure === undefined) return;
    const error = failure;
    failure = undefined;
    return Promise.reject(error);
  };
  /** The send's outcome for the caller: nothing, or a promise that rejects with what failed. */
  const settle = (sent: void | Promise<void>): void | Promise<void> => (sent ? sent.then(rethrow) : rethrow());

  const sameStream = (chunk: Delta, origin?: { step: string }) =>
    held !== undefined && held.chunk.type === chunk.type && held.chunk.id === chunk.id && held.origin?.step === origin?.step;
  const hold = (chunk: Delta, origin?: { step: string }) => {
    held = { chunk, text: chunk.delta, origin };
    timer = setTimeout(() => void release(), windowMs - (Date.now() - lastSent));
  };

  const sendDelta = (chunk: Delta, origin?: { step: string }): void | Promise<void> => {
    if (Date.now() - lastSent < windowMs) return hold(chunk, origin);
    lastSent = Date.now();
    return settle(deliver(chunk, origin));
  };

  // Not async: a delta joined to the one held back (most of them, under load) or sent at once costs no promise.
  const coalesced = (chunk: UIMessageChunk, origin?: { step: string }): void | Promise<void> => {
    if (failure !== undefined) return rethrow();
    if (!isDelta(chunk)) {
      const released = release();
      return released ? released.then(() => settle(deliver(chunk, origin))) : settle(deliver(chunk, origin));
    }
    if (held !== undefined && sameStream(chunk, origin)) {
      held.text += chunk.delta;
      held.origin = origin;
      return;
    }
    if (!held) return sendDelta(chunk, origin);
    const released = release();
    return released ? released.then(() => sendDelta(chunk, origin)) : sendDelta(chunk, origin);
  };
  return Object.assign(coalesced, {
    async flush() {
      await release();
      await rethrow();
    },
  });
}
