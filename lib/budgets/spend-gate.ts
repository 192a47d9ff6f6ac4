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
  /** Each owner's settlements on their way, chained in the order they were made. */
  private readonly settling = new Map<string, Promise<void>>();

  constructor(
    private readonly pool: () => pg.Pool,
    private readonly budgets: Budgets,
    private readonly prices: () => Readonly<Record<string, Price>>,
    private readonly timeZone: string,
  ) {}

  async reserve(call: CallToReserve): Promise<Reservation> {
    // The owner's settlements made here land first: the budget is read as they leave it.
    await this.settling.get(call.owner);
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

  /**
   * Settles in the background, after the owner's earlier settlements here:
   * the turn goes on (its next step, storing its reply) while it lands. A
   * settlement that fails leaves the reservation standing, which is never
   * less than was spent, and is logged.
   */
  settle(call: CallToReserve, spent: Tokens, exact: boolean): Promise<void> {
    const price = priceOf(this.prices(), call.model);
    const args = [call.id, spent.inputTokens, spent.outputTokens, spent.cachedTokens, spent.reasoningTokens, price ? costOf(spent, price) : null, exact, this.budgets.now()];
    const before = this.settling.get(call.owner) ?? Promise.resolve();
    const landed = before
      .then(() => this.pool().query("SELECT threadline_settle_call($1, $2, $3, $4, $5, $6, $7, $8)", args))
      .then(
        () => {},
        (error: unknown) => console.error(`[spend] call ${call.id} stays counted at its reservation: its settlement failed:`, error instanceof Error ? error.message : error),
      );
    this.settling.set(call.owner, landed);
    void landed.then(() => {
      if (this.settling.get(call.owner) === landed) this.settling.delete(call.owner);
    });
    return Promise.resolve();
  }

  async settled(owner: string): Promise<void> {
    await this.settling.get(owner);
  }
}
