import "server-only";
import type { Network } from "../network/network";

// The bounds every turn runs within, the first one of a message and each
// that goes on after the user's decisions alike: the whole turn's time
// (TURN_TIMEOUT_SECONDS), the model's input (MAX_MODEL_INPUT_CHARS) and how
// often one message may ask for approval (MAX_TOOL_ROUNDS). Both kinds of
// turn meet them in one place, the pipeline they end in (./turn-pipeline.ts).

/**
 * Runs the network within the turn's time: past it, the signal it was given
 * aborts (what was written is kept, as after Stop) and `outOfTime` says so.
 */
export async function withinTurnTime<T>(
  network: Pick<Network, "turnTimeoutMs">,
  stop: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<{ outcome: T; outOfTime: boolean }> {
  const timeoutMs = network.turnTimeoutMs;
  const deadline = new AbortController();
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => deadline.abort(), timeoutMs);
  timer?.unref();
  const signal = stop ? AbortSignal.any([stop, deadline.signal]) : deadline.signal;
  try {
    const outcome = await run(signal);
    // The user's Stop wins over a deadline that passed in the same moment.
    return { outcome, outOfTime: deadline.signal.aborted && !stop?.aborted };
  } finally {
    clearTimeout(timer);
  }
}

/** Why a turn that ran out of time ended, for the user. */
export function outOfTimeError(network: Pick<Network, "turnTimeoutMs">): Error {
  return new Error(`The reply took longer than ${Math.round((network.turnTimeoutMs ?? 0) / 1000)} s and was ended; what it wrote is kept.`);
}

/** The clear error of a model input over the budget even after compaction: the new message, or what the thread holds. */
export function inputTooLong(inputChars: number, maxInputChars: number, messageChars: number): Error {
  const sizes = `${inputChars.toLocaleString("en")} characters; the limit is ${maxInputChars.toLocaleString("en")}`;
  if (messageChars > maxInputChars) return new Error(`This message is too long to send to the model (${sizes}). Send a shorter one.`);
  return new Error(`This thread is too long to send to the model (${sizes}). Start a new thread to go on.`);
}

/**
 * What a call that would ask first reads instead, once the message's reply
 * has gone on `round` times of the network's most: undefined while it may
 * still ask.
 */
export function askedTooOften(network: Pick<Network, "maxToolRounds">, round: number): string | undefined {
  const most = network.maxToolRounds;
  if (most === undefined || round < most) return undefined;
  return `Not run: this reply has asked for the user's approval ${most} times, the most one message may. Tell the user what is left to do; they can send a new message to go on.`;
}
