// Checked by `tsc --noEmit` (never run): agentKitHistory() is what AgentKit's
// createNetwork takes as its history, for any state type, with the owner given
// or read from the run's state.
import { createAgent, createNetwork, type HistoryConfig } from "@inngest/agent-kit";
import type pg from "pg";
import { agentKitHistory } from "../../packages/agentkit-history/src/index";

declare const pool: pg.Pool;
type ChatState = { userId: string };

export const perUser: HistoryConfig<ChatState> = agentKitHistory<ChatState>(pool, { owner: ({ state }) => state.data.userId });
export const oneOwner: HistoryConfig<Record<string, unknown>> = agentKitHistory(pool, { owner: "user-1" });

export const network = createNetwork<ChatState>({
  name: "Support",
  agents: [createAgent<ChatState>({ name: "Helper", system: "Help." })],
  history: agentKitHistory(pool, { owner: ({ state }) => state.data.userId }),
});

// @ts-expect-error an owner is required
agentKitHistory(pool, {});
