import type { Metadata } from "next";
import { headers } from "next/headers";
import { cache } from "react";
import { app } from "@/lib/app";
import { SHARE_STATE_HEADER, type ShareState } from "@/lib/shares/share-state";
import type { OpenedShare } from "@/lib/shares/shares";
import { SharedThreadView } from "@/components/shares/SharedThreadView";
import { ShareUnavailable } from "@/components/shares/ShareUnavailable";
import { UNTITLED_THREAD } from "@threadline/history/title";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ shareId: string }> };

// The proxy looked the link up (and counted the view, and set the status a
// link that does not open answers with: proxy.ts), and says what it found.
const opened = cache(async (shareId: string): Promise<OpenedShare | Exclude<ShareState, "live">> => {
  const state = (await headers()).get(SHARE_STATE_HEADER) as ShareState | null;
  if (state !== "live") return state === "gone" ? "gone" : "unknown";
  return app()
    .shares()
    .opened(shareId)
    .catch(() => "gone" as const); // revoked since the proxy looked
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const found = await opened((await params).shareId);
  const title = typeof found === "string" ? "Shared conversation" : (found.snapshot.title ?? UNTITLED_THREAD);
  return { title, robots: { index: false, follow: false }, referrer: "no-referrer" };
}

/** A share link's public page: the snapshot, read-only, to anyone with the link, without a cookie. */
export default async function SharedConversationPage({ params }: Props) {
  const { shareId } = await params;
  const found = await opened(shareId);
  if (typeof found === "string") return <ShareUnavailable gone={found === "gone"} />;
  return <SharedThreadView shareId={shareId} snapshot={found.snapshot} options={found.options} />;
}
