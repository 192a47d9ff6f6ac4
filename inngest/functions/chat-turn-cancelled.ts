import "server-only";
import type { InngestClient } from "@/lib/inngest/client";
import { DurableTurn, type DurableTurnDeps } from "@/lib/inngest/durable-turn";
import { CHAT_TURN_FUNCTION_ID } from "@/inngest/functions/chat-turn";
import type { ChatTurnEventData } from "@/lib/protocol/turn-events";

/** Inngest's system event for a run cancelled by any means: its dashboard, its REST API, a bulk cancellation. */
const FUNCTION_CANCELLED_EVENT = "inngest/function.cancelled";

/**
 * Ends the turn of a chat-turn run that was cancelled. Inngest stops such a
 * run between steps and runs no handler of its own (onFailure is for
 * failures only), so a turn the run had opened would hold its thread for
 * good: every next message, and every Retry, refused as "still being
 * answered". The cancelled run's event is checked as the run's was: an
 * event this app did not sign ends nothing.
 */
export function createChatTurnCancelledFunction(inngest: InngestClient, deps: DurableTurnDeps) {
  return inngest.createFunction(
    {
      id: `${CHAT_TURN_FUNCTION_ID}-cancelled`,
      // Inngest names a function by its app's id and its own, as the SDK does for onFailure's trigger.
      triggers: [{ event: FUNCTION_CANCELLED_EVENT, if: `event.data.function_id == '${inngest.id}-${CHAT_TURN_FUNCTION_ID}'` }],
      retries: 3,
    },
    async ({ event, step, attempt }) => {
      const turn = await DurableTurn.open(event.data.event.data as ChatTurnEventData, deps, { step, attempt });
      await turn?.endCancelledRun();
    },
  );
}
