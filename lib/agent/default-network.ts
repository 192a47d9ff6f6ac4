import "server-only";
import { defaultLanguageModel } from "@/lib/model/provider";
import { createNetwork, type Network } from "./network";

const DEFAULT_SYSTEM_PROMPT =
  "You are Threadline, a helpful assistant. You remember this conversation's earlier messages. " +
  "Answer clearly and concisely; use Markdown when it helps.";

/** The app's network: one assistant agent. Later issues add agents, tools and routing. */
export function defaultNetwork(): Network {
  return createNetwork({
    model: defaultLanguageModel(),
    agents: [{ name: "assistant", system: process.env.SYSTEM_PROMPT?.trim() || DEFAULT_SYSTEM_PROMPT }],
  });
}
