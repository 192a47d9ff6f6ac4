import { migrate, recreateDatabase } from "../../lib/db/migrate.mjs";
import { TEST_DATABASE_URL } from "./db";

// A fresh database per run, built by the same migrations the app applies.
export default async function setup() {
  await recreateDatabase(TEST_DATABASE_URL);
  await migrate(TEST_DATABASE_URL);
}
