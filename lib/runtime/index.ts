import "server-only";
import { defaultNetwork } from "@/lib/agent/default-network";
import { historyAdapter } from "@/lib/threads/service";
import { InlineRuntime } from "./inline";
import type { TurnRuntime } from "./types";

const globalForRuntime = globalThis as unknown as { threadlineRuntime?: TurnRuntime };

/** The runtime that runs turns. Inline (in this process) until Inngest is configured. */
export function getRuntime(): TurnRuntime {
  return (globalForRuntime.threadlineRuntime ??= new InlineRuntime({ history: historyAdapter, network: defaultNetwork }));
}
