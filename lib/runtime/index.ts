import "server-only";
import { inngest } from "@/lib/inngest/client";
import { defaultNetwork } from "@/lib/agent/default-network";
import { AppError } from "@/lib/errors";
import { env, type RawEnv } from "@/lib/env";
import { historyAdapter } from "@/lib/threads/service";
import { InlineRuntime } from "./inline";
import { InngestRuntime } from "./inngest";
import { inngestConfigured as inngestConfiguredBy, inngestDevRefusal } from "./inngest-env.mjs";
import type { TurnRuntime } from "./types";

/** Whether Inngest runs turns, by the rules the start script also applies (see inngest-env.mjs); `source`: a test's variables. */
export const inngestConfigured = (source?: RawEnv): boolean => inngestConfiguredBy(source ?? inngestSettings());

function inngestSettings() {
  const settings = env();
  return {
    NODE_ENV: settings.NODE_ENV,
    INNGEST_DEV: settings.INNGEST_DEV,
    INNGEST_DEV_IS_LOCAL: settings.INNGEST_DEV_IS_LOCAL,
    INNGEST_EVENT_KEY: settings.INNGEST_EVENT_KEY,
    INNGEST_SIGNING_KEY: settings.INNGEST_SIGNING_KEY,
  };
}

const globalForRuntime = globalThis as unknown as { threadlineRuntime?: TurnRuntime };

export function getRuntime(): TurnRuntime {
  // The start script refuses this already; a server started another way must refuse too.
  const refusal = inngestDevRefusal(inngestSettings());
  if (refusal) {
    console.error(`[runtime] ${refusal}`);
    throw new AppError("unavailable:inngest_config", "The server is misconfigured; its log says how to fix it.");
  }
  return (globalForRuntime.threadlineRuntime ??= inngestConfigured()
    ? new InngestRuntime(inngest)
    : new InlineRuntime({
        history: historyAdapter,
        network: defaultNetwork,
        leaseMs: env().TURN_LEASE_SECONDS * 1000,
        saveRetryMs: env().SAVE_RETRY_SECONDS * 1000,
      }));
}
