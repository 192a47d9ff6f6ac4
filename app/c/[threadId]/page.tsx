import { cache } from "react";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getOwnerFromCookies } from "@/lib/auth/session";
import { AppError } from "@/lib/errors";
import { signedHistory, threads } from "@/lib/threads/service";
import { ChatView } from "@/components/chat/ChatView";

// Always read the database: a reload must show what the server stored.
export const dynamic = "force-dynamic";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ThreadPageProps {
  params: Promise<{ threadId: string }>;
}

/** The thread and its history, or null when the visitor may not see it. Cached per request (metadata + page). */
const loadThread = cache(async (threadId: string) => {
  if (!UUID.test(threadId)) return null;
  const owner = await getOwnerFromCookies();
  if (!owner) return null;
  try {
    const [thread, history, pendingTurn] = await Promise.all([
      threads().get(owner, threadId),
      signedHistory(owner, threadId),
      threads().pendingTurn(owner, threadId),
    ]);
    return { thread, history, pendingTurn };
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: ThreadPageProps): Promise<Metadata> {
  const loaded = await loadThread((await params).threadId);
  return { title: loaded?.thread.title ?? "Thread not found" };
}

export default async function ThreadPage({ params }: ThreadPageProps) {
  const { threadId } = await params;
  const loaded = await loadThread(threadId);
  if (!loaded) notFound();
  return <ChatView key={threadId} threadId={threadId} initialHistory={loaded.history} pendingTurn={loaded.pendingTurn} />;
}
