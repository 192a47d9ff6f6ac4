import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { app } from "@/lib/app";
import { PasskeysPanel } from "@/components/account/PasskeysPanel";

export const metadata: Metadata = { title: "Passkeys" };
export const dynamic = "force-dynamic";

/** A signed-in person's passkeys (AUTH_MODE=accounts). */
export default async function PasskeysPage() {
  if (app().accounts().mode !== "accounts") notFound();
  await app().ownerFromCookies(); // nobody signed in: the sign-in page
  return <PasskeysPanel />;
}
