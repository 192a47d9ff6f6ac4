import "server-only";
import { cookies } from "next/headers";
import { AppError } from "@threadline/history/errors";
import { IDENTITY_COOKIE, readCookie, verifyIdentity } from "./identity";
import type { SessionSecret } from "./secret";

/** The identity of a route handler's request. proxy.ts gives every visitor one, so a miss is a forged or stale cookie. */
export async function requireOwner(request: Request, secret: SessionSecret): Promise<string> {
  const owner = await verifyIdentity(readCookie(request.headers.get("cookie"), IDENTITY_COOKIE), await secret());
  if (!owner) throw new AppError("unauthorized:identity", "Your session cookie is missing or invalid. Reload the page.");
  return owner;
}

/** The identity of the visitor a server component renders for, or null. */
export async function getOwnerFromCookies(secret: SessionSecret): Promise<string | null> {
  const jar = await cookies();
  return verifyIdentity(jar.get(IDENTITY_COOKIE)?.value, await secret());
}
