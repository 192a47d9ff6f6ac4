import "server-only";
import type { CompactionConfig } from "@/lib/agent/compaction-settings";
import type { ToolApprovalMode } from "@/lib/protocol/approvals";
import type { CoreSettings } from "@/lib/env";
import { historyLogEnabled } from "../turn/history-log";
import { environmentCompaction, environmentHistoryPolicy } from "../turn/history-settings";
import { createNetwork, type DynamicTools, type Network } from "./network";
import type { Toolset } from "./tools/types";
import { calculate } from "./tools/calculate";
import { currentTime } from "./tools/current-time";
import { searchThreads, type SearchThreads } from "./tools/search-threads";

const DEFAULT_SYSTEM_PROMPT =
  "You are Threadline, a helpful assistant. You remember this conversation's earlier messages. " +
  "Answer clearly and concisely; use Markdown when it helps.";

export const TRIAGE = "Triage";
export const RESEARCHER = "Researcher";

/** "a, b, or c". */
const anyOf = (items: string[]) => (items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")}, or ${items.at(-1)}`);

/** The tools every app has: the time, arithmetic and units, the user's other conversations. */
function builtIn(search: SearchThreads): Toolset[] {
  return [
    { tools: [currentTime()], handOverFor: "the current date or time", use: "current_time for dates and times", offers: "the time anywhere" },
    {
      tools: [calculate()],
      handOverFor: "a calculation or unit conversion",
      use: "calculate for any arithmetic or unit conversion",
      offers: "exact arithmetic and unit conversion",
    },
    {
      tools: [searchThreads(search)],
      handOverFor: "what the user said in another conversation",
      use: "search_threads to recall what the user said in other conversations",
      offers: "search over the user's other conversations",
    },
  ];
}

/**
 * The app's network. Triage takes every turn and answers what needs no tools
 * itself (one model call, as cheap as a plain chat); a question that needs a
 * tool it hands to Researcher, who has them: the built-in ones (the time,
 * arithmetic and units, the user's other conversations, found by `search`)
 * and each toolset the wings bring, whose words make the two prompts.
 */
/** What the network reads of the approvals' settings (lib/approvals/settings.ts parses them). */
interface ApprovalRules {
  MAX_TOOL_ROUNDS: number;
  TOOL_APPROVAL: ToolApprovalMode;
}

export function defaultNetwork(
  settings: CoreSettings & ApprovalRules & CompactionConfig,
  models: Pick<Network, "model" | "modelId" | "models" | "utilityModel" | "utilityModelId">,
  search: SearchThreads,
  toolsets: Toolset[] = [],
  /** Tools listed before each turn (the operator's MCP servers'), given to Researcher. */
  listedTools?: Omit<DynamicTools, "agent">,
): Network {
  const persona = settings.SYSTEM_PROMPT || DEFAULT_SYSTEM_PROMPT;
  const sets = [...builtIn(search), ...toolsets];
  return createNetwork({
    ...models,
    maxInputChars: settings.MAX_MODEL_INPUT_CHARS,
    maxOutputTokens: settings.MAX_OUTPUT_TOKENS,
    modelIdleTimeoutMs: settings.MODEL_IDLE_TIMEOUT_SECONDS * 1000,
    turnTimeoutMs: settings.TURN_TIMEOUT_SECONDS * 1000,
    maxToolRounds: settings.MAX_TOOL_ROUNDS,
    titleTimeoutMs: settings.TITLE_TIMEOUT_SECONDS * 1000,
    maxIter: 4,
    historyPolicy: environmentHistoryPolicy(settings),
    compaction: environmentCompaction(settings),
    logHistory: historyLogEnabled(settings.NODE_ENV),
    toolApproval: settings.TOOL_APPROVAL,
    dynamicTools: listedTools ? { agent: RESEARCHER, ...listedTools } : undefined,
    agents: [
      {
        name: TRIAGE,
        description: "Answers directly, or hands over when a question needs tools.",
        system:
          `${persona}\n\nYou are the first to read each message. If answering needs ${anyOf(sets.map((set) => set.handOverFor))}, call hand_over to ` +
          `${RESEARCHER}, who has tools for those, and write nothing else. When you should write the answer yourself from ` +
          `facts ${RESEARCHER} can find (the user asks you to, or the answer weaves several together), call call_agent with ` +
          `${RESEARCHER} and the whole task instead, then answer from its result. Otherwise answer the user yourself.`,
        handoffs: [RESEARCHER],
        // Asked to find something out for an answer Triage writes itself, Researcher works as a sub-agent and returns.
        subAgents: [RESEARCHER],
        // The call, then the answer from its result.
        maxSteps: 2,
      },
      {
        name: RESEARCHER,
        description: `Uses tools: ${sets.map((set) => set.offers).join(", ")}.`,
        system:
          `${persona}\n\nUse your tools rather than guessing: ${sets.map((set) => set.use).join(", ")}. ` +
          `Call several tools at once when the question needs several. Then answer from their results.`,
        tools: sets.flatMap((set) => set.tools),
        maxSteps: 4,
      },
    ],
  });
}
