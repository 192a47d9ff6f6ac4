import type { ModelMessage, ToolSet } from "ai";
import type { Tokens, UsagePurpose } from "@threadline/history/usage";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "@/lib/limits";

/** The most an answer's model call asks for when its network says nothing. */
export const DEFAULT_OUTPUT_CAP = DEFAULT_MAX_OUTPUT_TOKENS;

/** The least an answer is worth calling the model for: with room for fewer output tokens, the call is refused. */
export const LEAST_ANSWER_TOKENS = 256;

// Every model call is reserved on its owner's bill before it is made and
// settled after (the budgets wing answers, lib/budgets/spend-gate.ts): the
// reservation may refuse the call, or allow it fewer output tokens than it
// would ask for, so a budget holds whatever runs at once. The turn, titles
// and summaries call through this contract and know nothing of budgets.

/** Why a model was called: as usage records it, and a memory's. */
export type CallPurpose = UsagePurpose | "memory";

/** A model call about to be made. */
export interface CallToReserve {
  /** The call's own id, made where the call is made (a durable step's retry makes another call, reserved anew). */
  id: string;
  owner: string;
  threadId?: string;
  purpose: CallPurpose;
  agent?: string;
  /** `provider:model`, as its price is looked up. */
  model: string;
  /** The input's tokens as counted here (inputTokensOf). */
  inputTokens: number;
  /** The most output the call asks for. */
  outputCap: number;
  /** The least output worth calling for: with less left, the call is refused. */
  outputMin: number;
}

/** Why a call may not be made, in words for the person, and when that changes (ISO). */
export interface SpendRefusal {
  reason: "exceeded" | "unpriced";
  message: string;
  resetsAt?: string;
}

/** A reservation: the output the call may ask for, or why it may not be made. */
export type Reservation = { outputTokens: number } | { refusal: SpendRefusal };

export interface SpendGate {
  reserve(call: CallToReserve): Promise<Reservation>;
  /**
   * What the call spent: the provider's count (exact), or an estimate of a
   * call cut off before the provider said. May land after it returns: the
   * owner's next reservation here waits for it, and `settled` does.
   */
  settle(call: CallToReserve, spent: Tokens, exact: boolean): Promise<void>;
  /** Once every settlement made here for `owner` has landed (the turn's end waits for it, while its reply is stored). */
  settled?(owner: string): Promise<void>;
}

/** One token for every three bytes of UTF-8: above the providers' counts for English (about four) and near them for scripts of three-byte characters. */
export const tokensOfText = (text: string): number => Math.ceil(Buffer.byteLength(text, "utf8") / 3);

/** What an image or a file's bytes count for: about what the providers charge for a mid-sized image. */
const ATTACHMENT_TOKENS = 1_000;

// An agent's tools are built once (model-tools.ts), so each set is counted once.
const toolTokens = new WeakMap<ToolSet, number>();

/** The tokens of the tools' names, descriptions and input schemas, as the provider is sent them. */
function tokensOfTools(tools: ToolSet): number {
  let tokens = toolTokens.get(tools);
  if (tokens === undefined) {
    const described = Object.entries(tools).map(([name, tool]) => {
      const schema = tool.inputSchema as { jsonSchema?: unknown } | undefined;
      return { name, description: tool.description, schema: schema?.jsonSchema };
    });
    toolTokens.set(tools, (tokens = tokensOfText(JSON.stringify(described))));
  }
  return tokens;
}

/** The tokens of a call's input, counted the same way every time: its system prompt, its messages and its tools. */
export function inputTokensOf(system: string, messages: readonly ModelMessage[], tools?: ToolSet): number {
  let tokens = tokensOfText(system);
  for (const message of messages) {
    if (typeof message.content === "string") {
      tokens += tokensOfText(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type === "image" || part.type === "file") tokens += ATTACHMENT_TOKENS;
      else tokens += tokensOfText(JSON.stringify(part));
    }
  }
  return tokens + (tools === undefined ? 0 : tokensOfTools(tools));
}

/** A call's reservation when no gate counts calls: as much as it asks for. */
const unlimited = (call: CallToReserve): Reservation => ({ outputTokens: call.outputCap });

/**
 * Runs a model call within its reservation: refused, it is not made; made,
 * it is settled to what it reports. A call that throws stays counted at its
 * reservation (it may have spent all of it). A settlement that fails is
 * logged and the reservation stands: the person is never charged less than
 * was spent, and the reply is not lost for it.
 */
export async function reservedCall<T>(
  gate: SpendGate | undefined,
  call: CallToReserve,
  run: (maxOutputTokens: number) => Promise<T>,
  spentOf: (result: T, reserved: number) => { tokens: Tokens; exact: boolean },
): Promise<{ result: T } | { refusal: SpendRefusal }> {
  const reservation = gate ? await gate.reserve(call) : unlimited(call);
  if ("refusal" in reservation) return reservation;
  const result = await run(reservation.outputTokens);
  if (gate) {
    const { tokens, exact } = spentOf(result, reservation.outputTokens);
    await gate.settle(call, tokens, exact).catch((error: unknown) => {
      console.error(`[spend] call ${call.id} stays counted at its reservation: its settlement failed:`, error instanceof Error ? error.message : error);
    });
  }
  return { result };
}

/** What a call cut off before the provider said is counted as: its input, and the output that came back. */
export const estimatedSpend = (inputTokens: number, output: string): Tokens => ({
  inputTokens,
  outputTokens: tokensOfText(output),
  cachedTokens: 0,
  reasoningTokens: 0,
});
