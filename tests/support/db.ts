import pg from "pg";
import { inject } from "vitest";

/**
 * The suite's database, recreated for every run by global-setup.ts: the
 * server in TEST_DATABASE_URL, or an in-memory embedded Postgres without it.
 */
export const TEST_DATABASE_URL = inject("testDatabaseUrl");

/** The embedded database runs one backend: one connection per pool keeps access serialized. */
export const TEST_POOL_SIZE = inject("embeddedDatabase") ? 1 : 10;

export function testPool(): pg.Pool {
  return new pg.Pool({ connectionString: TEST_DATABASE_URL, max: TEST_POOL_SIZE });
}

declare module "vitest" {
  export interface ProvidedContext {
    testDatabaseUrl: string;
    embeddedDatabase: boolean;
  }
}
