import { inject } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { recreateDatabase } from "@threadline/history/migrate";
import { TEST_DATABASE_URL } from "./db";

export interface ScratchDatabase {
  url: string;
  drop: () => Promise<void>;
}

/**
 * An empty database of a test's own: `<test database>_<name>` on the test
 * server when there is one (recreated, left for the next run to recreate),
 * else an embedded Postgres.
 */
export async function scratchDatabase(name: string): Promise<ScratchDatabase> {
  if (!inject("embeddedDatabase")) {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `${url.pathname}_${name}`;
    await recreateDatabase(url.toString());
    return { url: url.toString(), drop: async () => {} };
  }
  const embedded = await startEmbeddedPostgres();
  return { url: embedded.url, drop: embedded.stop };
}
