import "server-only";
import { inngest } from "@/lib/inngest/client";
import { defaultNetwork } from "@/lib/agent/default-network";
import { AppError } from "@/lib/errors";
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
    : new InlineRuntime({ history: historyAdapter, network: defaultNetwork }));
}
