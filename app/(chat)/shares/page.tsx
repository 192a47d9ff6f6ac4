import type { Metadata } from "next";
import { app } from "@/lib/app";
import { SharesPanel } from "@/components/shares/SharesPanel";

export const metadata: Metadata = { title: "Shared links" };
export const dynamic = "force-dynamic";

/** The visitor's share links: each with its thread, views and expiry, to copy or revoke (docs/shares.md). */
export default async function SharedLinksPage() {
  await app().ownerFromCookies(); // nobody signed in (AUTH_MODE=accounts): the sign-in page
  return <SharesPanel />;
}
