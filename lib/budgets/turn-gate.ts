import "server-only";
import { AppError } from "@threadline/history/errors";
import type { TurnHistory } from "@threadline/history/contract";
import type { TurnInput } from "@/lib/protocol/turn-events";
import { withModel, type Network } from "@/lib/agent/network/network";
import { DEFAULT_OUTPUT_CAP, inputTokensOf, LEAST_ANSWER_TOKENS, tokensOfText } from "@/lib/agent/model/spend";
import { modelTools } from "@/lib/agent/model/model-tools";
import { priceOf, type Price } from "@/lib/model/model-prices";
import type { Budgets } from "./budgets";
import type { BudgetStatus } from "@/lib/protocol/budgets";
import { refusalText } from "./refusal-text";
import { storeRefusedTurn } from "./refused-turn";

/**
 * Before a turn starts: refuses it when the person's budget has no room for
 * even the least answer. The message and the notice are stored in the
 * thread, the refusal is counted, and the caller gets 429 budget:exceeded
 * with Retry-After to the period's end (a model with no price under a
 * dollar budget: budget:unpriced, with no time to wait for).
 */
export async function refuseOverBudget(
  input: Omit<TurnInput, "turnId">,
  /** The owner's standing, read ahead (Budgets.standing). */
  standing: Promise<BudgetStatus | null>,
  deps: { budgets: Budgets; network: Network; history: TurnHistory; prices: Readonly<Record<string, Price>>; timeZone: string },
): Promise<void> {
  const status = await standing;
  if (status === null) return;
  const network = withModel(deps.network, input.model);
  const model = network.modelId ?? "unknown";
  const least = Math.min(LEAST_ANSWER_TOKENS, network.maxOutputTokens ?? DEFAULT_OUTPUT_CAP);
  // The first call's input as far as it is known here: the first agent's instructions and tools, the message, the client's copy of the thread.
  const first = network.agents[0];
  const known = inputTokensOf(first.system, [{ role: "user", content: input.message.content }], modelTools(first)) + tokensOfText(JSON.stringify(input.clientHistory ?? []));
  const refused = deps.budgets.turnRefusal(status, known, priceOf(deps.prices, model), least);
  if (refused === null) return;
  const message = refusalText(refused.reason, refused.status, model, deps.timeZone);
  await storeRefusedTurn(input, { reason: refused.reason, message, resetsAt: refused.status.resetsAt }, { history: deps.history, network });
  await deps.budgets.countRefusal(input.owner, model);
  if (refused.reason === "unpriced") throw new AppError("budget:unpriced", message);
  const wait = Math.max(1, Math.ceil((Date.parse(refused.status.resetsAt) - deps.budgets.now().getTime()) / 1000));
  throw new AppError("budget:exceeded", message, { retryAfterSeconds: wait });
}
