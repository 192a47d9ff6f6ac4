// Passkeys in the browser: Better Auth's client with its passkey plugin (the
// WebAuthn ceremony, through @simplewebauthn/browser, and the calls to
// /api/auth/passkey/*). Loaded only when a page needs it.
import { createAuthClient } from "better-auth/client";
import { passkeyClient } from "@better-auth/passkey/client";

const client = createAuthClient({ basePath: "/api/auth", plugins: [passkeyClient()] });

export interface PasskeyRow {
  id: string;
  name?: string | null;
  createdAt: string | Date;
  deviceType: string;
}

/** Throws an Error whose message can be shown as is. */
function check<T>(result: { data: T | null; error: { message?: string; status?: number } | null }): T {
  if (result.error) throw new Error(result.error.message || `The server answered ${result.error.status ?? "an error"}.`);
  return result.data as T;
}

export async function signInWithPasskey(): Promise<void> {
  check(await client.signIn.passkey());
}

export async function addPasskey(name: string | undefined): Promise<void> {
  check(await client.passkey.addPasskey({ name }));
}

export async function listPasskeys(): Promise<PasskeyRow[]> {
  return check(await client.passkey.listUserPasskeys()) as PasskeyRow[];
}

export async function removePasskey(id: string): Promise<void> {
  check(await client.passkey.deletePasskey({ id }));
}
