import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { Accounts, Identity } from "./accounts";

/** The request a server component renders for, as a Request with its headers (its body and method are never read). */
export async function pageRequest(): Promise<Request> {
  const incoming = await headers();
  const protocol = incoming.get("x-forwarded-proto") === "https" ? "https" : "http";
  return new Request(`${protocol}://${incoming.get("host") ?? "localhost"}/`, { headers: incoming });
}

/** Who a page renders for; with AUTH_MODE=accounts, nobody is sent to the sign-in page (a stale or forged cookie passes proxy.ts). */
export async function pageIdentity(accounts: Accounts): Promise<Identity | null> {
  const identity = await accounts.identify(await pageRequest());
  if (!identity && accounts.mode === "accounts") redirect("/sign-in");
  return identity;
}
