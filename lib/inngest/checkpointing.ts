import type { CoreSettings } from "@/lib/env";

/** The SDK's `checkpointing` option, as `new Inngest()` takes it. */
export type Checkpointing = false | { maxRuntime: number; bufferedSteps: number; maxInterval: number };

/**
 * With checkpointing, Inngest's request to /api/inngest runs a turn's steps
 * one after another in that request and reports each finished step to Inngest
 * before the next starts, instead of one request per step that replays the
 * function. `bufferedSteps: 1` keeps that report per step: a process that
 * dies mid-turn is retried from its last finished step, and never runs a
 * finished model call or tool again. The SDK's default `maxRuntime` (10 s
 * over HTTP) suits a serverless host's request timeout; an always-on server
 * has none, so 0 (no limit) unless INNGEST_MAX_RUNTIME_SECONDS sets one.
 */
export function checkpointingFrom(settings: Pick<CoreSettings, "INNGEST_CHECKPOINTING" | "INNGEST_MAX_RUNTIME_SECONDS">): Checkpointing {
  if (!settings.INNGEST_CHECKPOINTING) return false;
  return { maxRuntime: settings.INNGEST_MAX_RUNTIME_SECONDS * 1000, bufferedSteps: 1, maxInterval: 0 };
}

/**
 * Whether a turn's next step may run in another request (and process) than
 * the one before: always without checkpointing, and with it once a request
 * has run for INNGEST_MAX_RUNTIME_SECONDS.
 */
export function stepsMayMove(settings: Pick<CoreSettings, "INNGEST_CHECKPOINTING" | "INNGEST_MAX_RUNTIME_SECONDS">): boolean {
  return !settings.INNGEST_CHECKPOINTING || settings.INNGEST_MAX_RUNTIME_SECONDS > 0;
}
