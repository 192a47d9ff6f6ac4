// Environment, read in one place. Every variable named here is documented in
// .env.example and the README; nothing else reads process.env directly.

import { DEFAULT_DATABASE_URL } from "./db/default-url.mjs";

export function databaseUrl(): string {
  return process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
}

/** Limits on what a client may send. */
export const limits = {
  maxMessageChars: 32_000,
  maxHistoryItems: 500,
  maxBodyBytes: 4 * 1024 * 1024,
  maxThreadsPage: 100,
  defaultThreadsPage: 30,
};
