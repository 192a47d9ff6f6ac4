import "server-only";
import { inngest } from "@/lib/inngest/client";
import { defaultNetwork } from "@/lib/agent/default-network";
import { AppError } from "@/lib/errors";
import { wholeNumberSetting } from "@/lib/settings";
import { historyAdapter } from "@/lib/threads/service";
import { InlineRuntime } from "./inline";
import { InngestRuntime } from "./inngest";
import { inngestConfigured, inngestDevRefusal } from "./inngest-env.mjs";
import type { TurnRuntime } from "./types";

export { inngestConfigured };

const globalForRuntime = globalThis as unknown as { threadlineRuntime?: TurnRuntime };

export function getRuntime(): TurnRuntime {
  // The start script refuses this already; a server started another way must refuse too.
  const refusal = inngestDevRefusal();
  if (refusal) {
    console.error(`[runtime] ${refusal}`);
    throw new AppError("unavailable:inngest_config", "The server is misconfigured; its log says how to fix it.");
  }
  return (globalForRuntime.threadlineRuntime ??= inngestConfigured()
    ? new InngestRuntime(inngest)
    : new InlineRuntime({
        history: historyAdapter,
        network: defaultNetwork,
        leaseMs: secondsSetting("TURN_LEASE_SECONDS"),
        saveRetryMs: secondsSetting("SAVE_RETRY_SECONDS"),
      }));
}

/**
 * TURN_LEASE_SECONDS: how soon after a crash an unanswered message may be
 * answered again. SAVE_RETRY_SECONDS: how long a finished reply keeps trying
 * to be stored while the database is away. Unset: the runtime's defaults.
 */
function secondsSetting(name: string): number | undefined {
  const seconds = wholeNumberSetting(process.env, name, { min: 1, maxDigits: 6 });
  return seconds === undefined ? undefined : seconds * 1000;
}
