import pg from "pg";

/** The suite's own database on the local server; global-setup.ts recreates it for every run. */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/threadline_test";

export function testPool(): pg.Pool {
  return new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 10 });
}
