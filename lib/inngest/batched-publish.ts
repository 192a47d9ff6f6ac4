/**
 * A publish that never makes its caller wait and sends as few messages as
 * the network allows: the first item goes out once the event loop has run
 * what is ready now (no timer: a first token is not held); items that arrive
 * while a send is in flight wait for it and then go out together, in order,
 * as the next send. Idle, every burst goes out alone and at once; under
 * load the batches grow with the latency of a send (today an HTTP request to
 * Inngest realtime per send), so a busy server makes fewer requests, not more.
 *
 * A failed send is thrown from the next `push` or from `flush`, so the step
 * that published still fails and is retried. `flush` resolves once everything
 * pushed has been sent: a step awaits it before it returns.
 */
export function batchedPublish<T>(send: (items: T[]) => Promise<void>) {
  let queue: T[] = [];
  let inFlight: Promise<void> | undefined;
  let failure: unknown;

  const rethrow = () => {
    if (failure === undefined) return;
    const error = failure;
    failure = undefined;
    throw error;
  };
  const drain = async () => {
    // What the turn pushes in the same turn of the event loop (a part's start and its first delta) goes in one send.
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await send(batch);
      } catch (error) {
        // The step fails and is retried; what it still had to send is moot.
        failure ??= error;
        queue = [];
      }
    }
    inFlight = undefined;
  };

  return {
    push(item: T): void {
      rethrow();
      queue.push(item);
      inFlight ??= drain();
    },
    async flush(): Promise<void> {
      while (inFlight) await inFlight;
      rethrow();
    },
  };
}
