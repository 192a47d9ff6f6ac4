import type { Metadata } from "next";
import { ContinueShare } from "@/components/shares/ContinueShare";

export const metadata: Metadata = { title: "Continue this conversation" };
export const dynamic = "force-dynamic";

/**
 * Where a shared page's "Continue this conversation" leads: past the sign-in
 * (or with a guest's identity) like any page of the app, it makes the
 * viewer's own copy of the link's conversation and opens it.
 */
export default async function ContinueSharePage({ params }: { params: Promise<{ shareId: string }> }) {
  return <ContinueShare shareId={(await params).shareId} />;
}
