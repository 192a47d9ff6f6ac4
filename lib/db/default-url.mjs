// Shared by the pool (lib/db/pool.ts) and the plain-Node start scripts.
export const DEFAULT_DATABASE_URL = "postgres://postgres:postgres@localhost:5432/threadline";

/** The URL with its password hidden, for messages. */
export function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
