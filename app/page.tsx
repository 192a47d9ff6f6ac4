import { nextTurnHistory, wantsHistoryDebug, type PageSearchParams } from "@/lib/agent/turn/next-turn-history";
import { NewChatView } from "@/components/chat/NewChatView";
import { app } from "@/lib/app";

export default async function NewChatPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const query = await searchParams;
  return <NewChatView historyDebug={wantsHistoryDebug(query) ? nextTurnHistory({ searchParams: query, threadMessages: 0, network: app().network() }) : undefined} />;
}
