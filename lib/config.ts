// Environment, read in one place. Every variable named here is documented in
// .env.example and the README; nothing else reads process.env directly.

import { DEFAULT_DATABASE_URL } from "./db/default-url.mjs";

export function databaseUrl(): string {
  return process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
}
