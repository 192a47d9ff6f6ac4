import "server-only";
import type pg from "pg";
import type { Tokens } from "@threadline/history/usage";
import { costOf, priceOf, type Price } from "@/lib/model/model-prices";
import type { CallToReserve, Reservation, SpendGate } from "@/lib/agent/model/spend";
import { statusOf, type Budgets, type StatusRow } from "./budgets";
import { refusalText } from "./refusal-text";

// The budgets' side of every model call (lib/agent/model/spend.ts): the
// reservation, priced by MODEL_PRICES and taken against the budget that binds
// the caller in one statement (threadline_reserve_call), and the settlement
// to what the call spent (threadline_settle_call).

export class BudgetSpendGate implements SpendGate {
  constructor(
    private readonly pool: () => pg.Pool,
    private readonly budgets: Budgets,
    private readonly prices: () => Readonly<Record<string, Price>>,
    private readonly timeZone: string,
  ) {}

  async reserve(call: CallToReserve): Promise<Reservation> {
    const price = priceOf(this.prices(), call.model);
    const inputCost = price ? costOf({ inputTokens: call.inputTokens, outputTokens: 0, cachedTokens: 0, reasoningTokens: 0 }, price) : null;
    const outputPrice = price ? price.output / 1_000_000 : null;
    const { rows } = await this.pool().query<StatusRow & { refused: "exceeded" | "unpriced" | null; output_tokens: string }>(
      "SELECT * FROM threadline_reserve_call($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
      [
        call.id,
        call.owner,
        ...this.budgets.statusArgs(),
        call.threadId ?? null,
        call.purpose,
        call.agent ?? null,
        call.model,
        call.inputTokens,
        call.outputCap,
        call.outputMin,
        inputCost,
        outputPrice,
      ],
    );
    const row = rows[0];
    if (row.refused === null) return { outputTokens: Number(row.output_tokens) };
    const status = statusOf(row);
    return {
      refusal: {
        reason: row.refused,
        message: refusalText(row.refused, status, call.model, this.timeZone),
        ...(status ? { resetsAt: status.resetsAt } : {}),
      },
    };
  }

  async settle(call: CallToReserve, spent: Tokens, exact: boolean): Promise<void> {
    const price = priceOf(this.prices(), call.model);
    await this.pool().query("SELECT threadline_settle_call($1, $2, $3, $4, $5, $6, $7, $8)", [
      call.id,
      spent.inputTokens,
      spent.outputTokens,
      spent.cachedTokens,
      spent.reasoningTokens,
      price ? costOf(spent, price) : null,
      exact,
      this.budgets.now(),
    ]);
  }
}
