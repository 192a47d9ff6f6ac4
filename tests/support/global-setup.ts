import pg from "pg";
import { migrate } from "../../lib/db/migrate.mjs";
import { TEST_DATABASE_URL } from "./db";

// A fresh database per run, built by the same migrations the app applies.
export default async function setup() {
  const url = new URL(TEST_DATABASE_URL);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  await migrate(TEST_DATABASE_URL);
}
