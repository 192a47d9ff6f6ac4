import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../lib/db/embedded.mjs";
import { migrate, recreateDatabase } from "@threadline/history/migrate";

// A fresh database per run, built by the same migrations the app applies: the
// server named by TEST_DATABASE_URL, or an embedded Postgres in memory.
export default async function setup(project: TestProject) {
  const configured = process.env.TEST_DATABASE_URL;
  let url: string;
  let stop: (() => Promise<void>) | undefined;
  if (configured) {
    await recreateDatabase(configured);
    url = configured;
  } else {
    const embedded = await startEmbeddedPostgres({ maxConnections: 32 });
    url = embedded.url;
    stop = embedded.stop;
  }
  await migrate(url);
  project.provide("testDatabaseUrl", url);
  project.provide("embeddedDatabase", !configured);
  return async () => {
    await stop?.();
  };
}
