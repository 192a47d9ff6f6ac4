import { nextTurnHistory, wantsHistoryDebug, type PageSearchParams } from "@/lib/agent/turn/next-turn-history";
import { NewChatView } from "@/components/chat/NewChatView";
import { app } from "@/lib/app";

export default async function NewChatPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const query = await searchParams;
  if (!wantsHistoryDebug(query)) return <NewChatView />;
  // The debug panel asks each MCP server now: what it shows is where they stand, not where they stood at the last turn.
  const historyDebug = nextTurnHistory({ searchParams: query, threadMessages: 0, network: app().network() });
  return <NewChatView historyDebug={historyDebug} mcpServers={await app().mcp().statusNow()} />;
}
