import "server-only";
import { historySettingFromUrl } from "@/lib/client/history-mode";
import { validationError } from "@/lib/http/body";
import { chatRequestFields, type NextTurnHistory } from "@/lib/protocol/chat";
import { agentHistoryPolicy, type Network } from "../network/network";

/** A page's query as Next hands it over. */
export type PageSearchParams = Record<string, string | string[] | undefined>;

const urlSettingSchema = chatRequestFields.pick({ historyPolicy: true, historyLength: true });

/**
 * The history setting the chat page's next message will be given, for its
 * debug panel before anything is sent: the URL's setting read as the page
 * sends it and checked as the chat route checks it, then resolved by the same
 * rule as a turn, for the agent that takes every turn first. A setting the
 * next turn would refuse is said instead. (The operator's settings were
 * checked when the app was built: a bad one stops the server at start.)
 */
export function nextTurnHistory(args: {
  searchParams: PageSearchParams;
  /** The thread's user and assistant messages now (0 for a new chat). */
  threadMessages: number;
  /** The network a turn runs (lib/app.ts's). */
  network: Network;
}): NextTurnHistory {
  const asked = urlSettingSchema.safeParse(historySettingFromUrl(queryString(args.searchParams)));
  if (!asked.success) return { error: `the next message will be refused (${validationError(asked.error).message})` };
  const { network } = args;
  const url = { policy: asked.data.historyPolicy, length: asked.data.historyLength };
  return { ...agentHistoryPolicy(network, network.agents[0], url), threadMessages: args.threadMessages };
}

/** The query string the browser has, back from Next's object (a repeated name keeps its order). */
function queryString(searchParams: PageSearchParams): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(searchParams)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, one);
  }
  return query.toString();
}

/** ?debug=true, as the chat page reads it. */
export const wantsHistoryDebug = (searchParams: PageSearchParams) => [searchParams.debug].flat()[0] === "true";
