import "server-only";
import type { Env } from "@/lib/env";
import { historyLogEnabled } from "../turn/history-log";
import { environmentCompaction, environmentHistoryPolicy } from "../turn/history-settings";
import { createNetwork, type DynamicTools, type Network } from "./network";
import type { AgentTool } from "./tools/types";
import { calculate } from "./tools/calculate";
import { currentTime } from "./tools/current-time";
import { searchThreads, type SearchThreads } from "./tools/search-threads";

const DEFAULT_SYSTEM_PROMPT =
  "You are Threadline, a helpful assistant. You remember this conversation's earlier messages. " +
  "Answer clearly and concisely; use Markdown when it helps.";

export const TRIAGE = "Triage";
export const RESEARCHER = "Researcher";

/**
 * The app's network. Triage takes every turn and answers what needs no tools
 * itself (one model call, as cheap as a plain chat); a question about the
 * time, arithmetic or units, or the user's other conversations, it hands to
 * Researcher, who has the tools. `search` finds the user's other
 * conversations (lib/app.ts hands it the thread repository's search).
 */
export function defaultNetwork(
  settings: Env,
  models: Pick<Network, "model" | "modelId" | "models" | "utilityModel" | "utilityModelId">,
  search: SearchThreads,
  reminders: AgentTool[] = [],
  /** Tools listed before each turn (the operator's MCP servers'), given to Researcher. */
  listedTools?: Omit<DynamicTools, "agent">,
  /** The thread's documents: write, revise, read (lib/documents/document-tools.ts). */
  documents: AgentTool[] = [],
): Network {
  const persona = settings.SYSTEM_PROMPT || DEFAULT_SYSTEM_PROMPT;
  return createNetwork({
    ...models,
    maxInputChars: settings.MAX_MODEL_INPUT_CHARS,
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
          `${persona}\n\nYou are the first to read each message. If answering needs the current date or time, ` +
          `a calculation or unit conversion, what the user said in another conversation, a reminder to schedule or cancel, or a document ` +
          `to write, read or revise, call hand_over to ` +
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
        description: "Uses tools: the time anywhere, exact arithmetic and unit conversion, search over the user's other conversations, reminders, documents.",
        system:
          `${persona}\n\nUse your tools rather than guessing: current_time for dates and times, calculate for any ` +
          `arithmetic or unit conversion, search_threads to recall what the user said in other conversations, ` +
          `schedule_reminder and cancel_reminder for reminders (the user approves each first), create_document for a document the ` +
          `user asks for (a plan, a draft, code), read_document and update_document to revise one (read it first: the user may have edited it). ` +
          `Call several tools at once when the question needs several. Then answer from their results.`,
        tools: [
          currentTime(),
          calculate(),
          searchThreads(search),
          ...reminders,
          ...documents,
        ],
        maxSteps: 4,
      },
    ],
  });
}
