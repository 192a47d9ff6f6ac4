import "server-only";
import { inngest } from "@/inngest/client";
import { defaultNetwork } from "@/lib/agent/default-network";
import { historyAdapter } from "@/lib/threads/service";
import { InlineRuntime } from "./inline";
import { InngestRuntime } from "./inngest";
import type { TurnRuntime } from "./types";

const isSet = (value: string | undefined) => Boolean(value && !["0", "false"].includes(value.trim().toLowerCase()));

/**
 * Inngest runs turns when a dev server is configured (INNGEST_DEV=1 or its URL)
 * or when the keys of a self-hosted or cloud Inngest are set; otherwise the
 * turn runs inline, in this process.
 */
export function inngestConfigured(env: Record<string, string | undefined> = process.env): boolean {
  return isSet(env.INNGEST_DEV) || Boolean(env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY);
}

const globalForRuntime = globalThis as unknown as { threadlineRuntime?: TurnRuntime };

export function getRuntime(): TurnRuntime {
  return (globalForRuntime.threadlineRuntime ??= inngestConfigured()
    ? new InngestRuntime(inngest)
    : new InlineRuntime({ history: historyAdapter, network: defaultNetwork }));
}
