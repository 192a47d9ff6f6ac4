import "server-only";
import { randomUUID } from "node:crypto";
import type { TurnHistory } from "@threadline/history/contract";
import type { TurnInput } from "@/lib/protocol/turn-events";
import { runTurn } from "@/lib/agent/turn/turn";
import { runNow } from "@/lib/agent/turn/steps";
import type { Network } from "@/lib/agent/network/network";
import type { SpendGate, SpendRefusal } from "@/lib/agent/model/spend";

/**
 * A turn the person's budget keeps from starting, stored as any turn is: the
 * user's message (nothing they typed is lost; they may regenerate once the
 * budget renews) and a reply that is the notice saying why. It is the turn
 * itself, run here with a gate that refuses its one call: the thread, the
 * claim and the message follow the same rules as every turn's, and no model
 * is called.
 */
export async function storeRefusedTurn(
  input: Omit<TurnInput, "turnId">,
  refusal: SpendRefusal,
  deps: { history: TurnHistory; network: Network },
): Promise<void> {
  const refusing: SpendGate = { reserve: async () => ({ refusal }), settle: async () => {} };
  const outcome = await runTurn(
    { ...input, turnId: randomUUID() },
    { history: deps.history, network: { ...deps.network, spend: refusing }, publish: () => {}, step: runNow },
  );
  if (outcome.error) console.error(`[budget] the refused turn of thread ${outcome.threadId} was not stored:`, outcome.error.message);
}
