import { expect } from "vitest";
import * as auth from "@/app/api/auth/[...all]/route";
import * as me from "@/app/api/me/route";
import { request } from "./api";

// Signing up and in through Better Auth's own endpoints (/api/auth/*), as the
// pages do, for the integration tests of AUTH_MODE=accounts.

/** The session cookie a response sets, as a Cookie header ("" when it sets none). */
export function sessionCookie(response: Response): string {
  const set = response.headers.getSetCookie().find((cookie) => cookie.startsWith("threadline.session_token="));
  return set ? set.split(";")[0] : "";
}

/** POST /api/auth/<path> with a JSON body, from this origin (as a browser's fetch), optionally with cookies. */
export function authPost(path: string, json: unknown, cookie?: string, headers: Record<string, string> = {}): Promise<Response> {
  return auth.POST(request(`/api/auth/${path}`, { method: "POST", json, cookie, headers: { origin: "http://localhost", ...headers } }), undefined);
}

export interface SignedUp {
  status: number;
  cookie: string;
  body: { user?: { id: string; email: string }; message?: string; code?: string; error?: { code: string; message: string } };
}

export async function signUp(email: string, options: { password?: string; name?: string; cookie?: string } = {}): Promise<SignedUp> {
  const response = await authPost("sign-up/email", { email, password: options.password ?? "correct horse battery", name: options.name ?? email.split("@")[0] }, options.cookie);
  return { status: response.status, cookie: sessionCookie(response), body: await response.json() };
}

export async function signIn(email: string, password = "correct horse battery", cookie?: string): Promise<SignedUp> {
  const response = await authPost("sign-in/email", { email, password }, cookie);
  return { status: response.status, cookie: sessionCookie(response), body: await response.json() };
}

/** GET /api/me with `cookie`. */
export async function whoAmI(cookie: string) {
  const response = await me.GET(request("/api/me", { cookie }), undefined);
  expect(response.status).toBe(200);
  return response.json();
}
