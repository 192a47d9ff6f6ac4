import "server-only";
import { defaultLanguageModel } from "@/lib/model/provider";
import { createNetwork, type Network } from "./network";

const DEFAULT_SYSTEM_PROMPT =
  "You are Threadline, a helpful assistant. You remember this conversation's earlier messages. " +
  "Answer clearly and concisely; use Markdown when it helps.";

/** About 100,000 tokens: a turn never costs more than this, whatever the thread or the request holds. */
const DEFAULT_MAX_MODEL_INPUT_CHARS = 400_000;

function maxModelInputChars(raw = process.env.MAX_MODEL_INPUT_CHARS?.trim()): number {
  if (!raw) return DEFAULT_MAX_MODEL_INPUT_CHARS;
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`MAX_MODEL_INPUT_CHARS must be a whole number > 0, not "${raw}".`);
  return Number(raw);
}

/** The app's network: one assistant agent. Later issues add agents, tools and routing. */
export function defaultNetwork(): Network {
  return createNetwork({
    model: defaultLanguageModel(),
    maxInputChars: maxModelInputChars(),
    agents: [{ name: "assistant", system: process.env.SYSTEM_PROMPT?.trim() || DEFAULT_SYSTEM_PROMPT }],
  });
}
