// The signal a model call runs under. It aborts when the turn's signal does
// (Stop, the turn's time bound) and when the model goes quiet mid-answer: the
// providers' own timeouts are minutes long. The call's own controller, not
// AbortSignal.any: the turn's signal holds a listener only while the call
// runs, so once it ends nothing the turn keeps reaches the call's signal (or
// the listeners the provider's fetch left on it).

export interface ModelWatchdog {
  /** What the model call is given to abort with. */
  signal: AbortSignal;
  /** The model was heard from (a chunk arrived): its silence starts again. */
  heard(): void;
  /** The silence, in ms, that ended the call; undefined if it did not end for silence. */
  silenceMs(): number | undefined;
  /** The call is over: the timer stops and the turn's signal lets go of this one. */
  dispose(): void;
}

export function watchModelCall(turnSignal: AbortSignal | undefined, idleTimeoutMs: number | undefined): ModelWatchdog {
  const controller = new AbortController();
  const onTurnAbort = () => controller.abort(turnSignal?.reason);
  if (turnSignal?.aborted) onTurnAbort();
  else turnSignal?.addEventListener("abort", onTurnAbort, { once: true });

  // One timer that re-arms itself, not a new one per token: a token only notes the time.
  let timer: NodeJS.Timeout | undefined;
  let lastHeard = Date.now();
  let silentFor: number | undefined;
  const watch = (idleMs: number, waitMs: number) => {
    timer = setTimeout(() => {
      const quietMs = Date.now() - lastHeard;
      if (quietMs < idleMs) return watch(idleMs, idleMs - quietMs);
      silentFor = idleMs;
      controller.abort();
    }, waitMs);
  };
  if (idleTimeoutMs !== undefined) watch(idleTimeoutMs, idleTimeoutMs);

  return {
    signal: controller.signal,
    heard: () => void (lastHeard = Date.now()),
    silenceMs: () => silentFor,
    dispose() {
      clearTimeout(timer);
      turnSignal?.removeEventListener("abort", onTurnAbort);
    },
  };
}
