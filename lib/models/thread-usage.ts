import "server-only";
import type pg from "pg";
import { notFoundThread } from "@threadline/history/errors";
import type { UsagePurpose } from "@threadline/history/usage";
import { costOf, priceOf, type Price } from "@/lib/model/model-prices";
import type { ThreadUsage, UsageSum } from "@/lib/protocol/usage";

interface UsageRow {
  message_id: string | null;
  agent: string | null;
  purpose: UsagePurpose;
  model: string;
  calls: string;
  input_tokens: string;
  output_tokens: string;
  cached_tokens: string;
  reasoning_tokens: string;
}

const empty = (): UsageSum => ({ inputTokens: 0, outputTokens: 0, cachedTokens: 0, reasoningTokens: 0, totalTokens: 0, calls: 0, cost: 0 });

/** `sum` with `row` added: its tokens, and its cost while every call so far has a price. */
function add(sum: UsageSum, row: UsageSum): UsageSum {
  return {
    inputTokens: sum.inputTokens + row.inputTokens,
    outputTokens: sum.outputTokens + row.outputTokens,
    cachedTokens: sum.cachedTokens + row.cachedTokens,
    reasoningTokens: sum.reasoningTokens + row.reasoningTokens,
    totalTokens: sum.totalTokens + row.totalTokens,
    calls: sum.calls + row.calls,
    cost: sum.cost === null || row.cost === null ? null : sum.cost + row.cost,
  };
}

/**
 * What the thread's model calls spent, summed in the database by reply,
 * agent, purpose and model (one read, by model_usage's thread index) and
 * priced here: every version of every reply, its title and its summaries.
 */
export async function threadUsage(
  pool: Pick<pg.Pool, "query">,
  owner: string,
  threadId: string,
  prices: Readonly<Record<string, Price>>,
  agentOrder: readonly string[] = [],
): Promise<ThreadUsage> {
  const { rows } = await pool.query<UsageRow & { thread: boolean }>(
    `SELECT true AS thread, u.message_id, u.agent, u.purpose, u.model, count(u.id) AS calls,
            coalesce(sum(u.input_tokens), 0) AS input_tokens, coalesce(sum(u.output_tokens), 0) AS output_tokens,
            coalesce(sum(u.cached_tokens), 0) AS cached_tokens, coalesce(sum(u.reasoning_tokens), 0) AS reasoning_tokens
       FROM threads t LEFT JOIN model_usage u ON u.thread_id = t.id
      WHERE t.id = $1 AND t.owner = $2
      GROUP BY u.message_id, u.agent, u.purpose, u.model`,
    [threadId, owner],
  );
  if (rows.length === 0) throw notFoundThread();
  const usage: ThreadUsage = { total: empty(), byAgent: {}, byPurpose: {}, byModel: {}, byMessage: {} };
  for (const row of rows) {
    if (row.model === null) continue; // the thread, with no usage yet
    const tokens = {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      cachedTokens: Number(row.cached_tokens),
      reasoningTokens: Number(row.reasoning_tokens),
    };
    const price = priceOf(prices, row.model);
    const sum: UsageSum = { ...tokens, totalTokens: tokens.inputTokens + tokens.outputTokens, calls: Number(row.calls), cost: price ? costOf(tokens, price) : null };
    const agent = row.agent ?? row.purpose;
    usage.total = add(usage.total, sum);
    usage.byAgent[agent] = add(usage.byAgent[agent] ?? empty(), sum);
    usage.byPurpose[row.purpose] = add(usage.byPurpose[row.purpose] ?? empty(), sum);
    usage.byModel[row.model] = add(usage.byModel[row.model] ?? empty(), sum);
    if (row.message_id !== null) {
      const message = usage.byMessage[row.message_id] ?? { ...empty(), byAgent: {} };
      usage.byMessage[row.message_id] = { ...add(message, sum), byAgent: { ...message.byAgent, [agent]: add(message.byAgent[agent] ?? empty(), sum) } };
    }
  }
  usage.byAgent = inOrder(usage.byAgent, agentOrder);
  for (const message of Object.values(usage.byMessage)) message.byAgent = inOrder(message.byAgent, agentOrder);
  return usage;
}

/** The hidden calls after the agents', in the order a turn makes them. */
const PURPOSE_ORDER = ["sub-agent", "title", "summary"];

/**
 * The agents in the network's order (the order they speak in a turn), then
 * the hidden calls: the rows come grouped in no order of their own, and a
 * popover that shuffled its lines between two looks would read as a change.
 */
function inOrder<T>(byAgent: Record<string, T>, agentOrder: readonly string[]): Record<string, T> {
  const order = [...agentOrder, ...PURPOSE_ORDER];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const names = Object.keys(byAgent).sort((x, y) => rank(x) - rank(y) || x.localeCompare(y));
  return Object.fromEntries(names.map((name) => [name, byAgent[name]]));
}
