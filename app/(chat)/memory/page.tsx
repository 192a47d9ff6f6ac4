import type { Metadata } from "next";
import { app } from "@/lib/app";
import { MemoryPanel } from "@/components/memory/MemoryPanel";

export const metadata: Metadata = { title: "Memory" };
export const dynamic = "force-dynamic";

/** The visitor's memories: to search, add, reword, delete, export and import, and memory on or off (docs/memory.md). */
export default async function MemoryPage() {
  await app().ownerFromCookies(); // nobody signed in (AUTH_MODE=accounts): the sign-in page
  return <MemoryPanel />;
}
