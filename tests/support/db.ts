import pg from "pg";
import { afterAll, inject } from "vitest";

/**
 * This worker's database, recreated for every run by global-setup.ts: its own
 * on the server in TEST_DATABASE_URL, or an in-memory embedded Postgres
 * without it (whose files run one at a time).
 */
export const TEST_DATABASE_URL = workerDatabase(inject("testDatabaseUrls"));

function workerDatabase(urls: string[]): string {
  const worker = Number(process.env.VITEST_POOL_ID) || 1;
  return urls[(worker - 1) % urls.length];
}

/** The embedded database runs one backend: one connection per pool keeps access serialized. */
export const TEST_POOL_SIZE = inject("embeddedDatabase") ? 1 : 10;

export function testPool(): pg.Pool {
  return new pg.Pool({ connectionString: TEST_DATABASE_URL, max: TEST_POOL_SIZE });
}

/**
 * A test pool for the describe block it is made in, ended after the block:
 * after the afterAll hooks registered later (they run as a stack), so one made
 * before the block's servers outlives them.
 */
export function blockPool(): pg.Pool {
  const pool = testPool();
  afterAll(() => pool.end());
  return pool;
}

declare module "vitest" {
  export interface ProvidedContext {
    testDatabaseUrls: string[];
    embeddedDatabase: boolean;
  }
}
