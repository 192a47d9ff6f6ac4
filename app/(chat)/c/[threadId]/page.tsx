import { cache } from "react";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AppError } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";
import { app } from "@/lib/app";
import { signedPage } from "@/lib/threads/signed-page";
import { messagesCursor } from "@/lib/protocol/cursors";
import { MESSAGES_PAGE } from "@/lib/protocol/threads";
import { nextTurnHistory, wantsHistoryDebug, type PageSearchParams } from "@/lib/agent/turn/next-turn-history";
import { ChatView } from "@/components/chat/ChatView";

// Always read the database: a reload must show what the server stored.
export const dynamic = "force-dynamic";

interface ThreadPageProps {
  params: Promise<{ threadId: string }>;
  searchParams: Promise<PageSearchParams>;
}

/** The thread and its history, or null when the visitor may not see it. Cached per request (metadata + page). */
const loadThread = cache(async (threadId: string) => {
  if (!isUuid(threadId)) return null;
  const owner = await app().ownerFromCookies();
  if (!owner) return null;
  try {
    const [thread, history, pendingTurn, versions] = await Promise.all([
      app().threads().get(owner, threadId),
      // The newest messages only: earlier ones load as the reader scrolls up.
      signedPage(app().threads(), app().sessionSecret, owner, threadId, { limit: MESSAGES_PAGE }),
      app().threads().pendingTurn(owner, threadId),
      app().threads().versions(owner, threadId),
    ]);
    return {
      thread,
      history: history.messages,
      olderCursor: history.olderBefore === null ? null : messagesCursor.encode(history.olderBefore),
      pendingTurn,
      versions,
    };
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: ThreadPageProps): Promise<Metadata> {
  const loaded = await loadThread((await params).threadId);
  return { title: loaded?.thread.title ?? "Thread not found" };
}

export default async function ThreadPage({ params, searchParams }: ThreadPageProps) {
  const { threadId } = await params;
  const loaded = await loadThread(threadId);
  if (!loaded) notFound();
  const query = await searchParams;
  const debug = wantsHistoryDebug(query);
  const historyDebug = debug ? nextTurnHistory({ searchParams: query, threadMessages: loaded.thread.messageCount, network: app().network() }) : undefined;
  // Where the MCP servers stand as kept: any visitor may open the panel, and a view lists no server again.
  const mcpServers = debug ? await app().mcp().statusForView() : undefined;
  return (
    <ChatView
      key={threadId}
      threadId={threadId}
      initialHistory={loaded.history}
      olderCursor={loaded.olderCursor}
      pendingTurn={loaded.pendingTurn}
      versions={loaded.versions}
      historyDebug={historyDebug}
      threadModel={loaded.thread.model}
      mcpServers={mcpServers}
      temporary={loaded.thread.temporary === true}
    />
  );
}
