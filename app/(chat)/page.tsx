import { nextTurnHistory, wantsHistoryDebug, type PageSearchParams } from "@/lib/agent/turn/next-turn-history";
import { NewChatView } from "@/components/chat/NewChatView";
import { app } from "@/lib/app";

export default async function NewChatPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const query = await searchParams;
  // With AUTH_MODE=accounts nobody signed in goes to the sign-in page (proxy.ts only saw that a cookie was there).
  if (app().accounts().mode === "accounts") await app().ownerFromCookies();
  if (!wantsHistoryDebug(query)) return <NewChatView />;
  const historyDebug = nextTurnHistory({ searchParams: query, threadMessages: 0, network: app().network() });
  // Where the MCP servers stand as kept: any visitor may open the panel, and a view lists no server again.
  return <NewChatView historyDebug={historyDebug} mcpServers={await app().mcp().statusForView()} />;
}
