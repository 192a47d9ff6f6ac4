import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../lib/db/embedded.mjs";
import { migrate, recreateDatabase } from "@threadline/history/migrate";

// A fresh database per run, built by the same migrations the app applies: the
// server named by TEST_DATABASE_URL, or an embedded Postgres in memory.
//
// On a server, each Vitest worker gets a database of its own (the name with
// `_w1`, `_w2`, ... appended): the files one worker runs take turns on it, as
// they would on one database with one worker, so a test that counts a whole
// table, or an app server whose sweep claims every due reminder, sees only
// its own worker's rows, while the workers run side by side.

interface Databases {
  urls: string[];
  embedded: boolean;
  stop: () => Promise<void>;
}

// Every project of vitest.config.mts runs this setup, in one process: the
// databases are made once, by the first, and stopped once.
const PREPARED = Symbol.for("threadline.test-databases");
type Holder = { [PREPARED]?: Promise<Databases> };

async function prepare(workers: number): Promise<Databases> {
  const configured = process.env.TEST_DATABASE_URL;
  if (!configured) {
    const embedded = await startEmbeddedPostgres({ maxConnections: 32 });
    await migrate(embedded.url);
    return { urls: [embedded.url], embedded: true, stop: embedded.stop };
  }
  const urls = Array.from({ length: workers }, (_, i) => {
    const url = new URL(configured);
    url.pathname = `${url.pathname}_w${i + 1}`;
    return url.toString();
  });
  await Promise.all(
    urls.map(async (url) => {
      await recreateDatabase(url);
      await migrate(url);
    }),
  );
  return { urls, embedded: false, stop: async () => {} };
}

export default async function setup(project: TestProject) {
  const holder = globalThis as Holder;
  holder[PREPARED] ??= prepare(Math.max(1, Number(project.globalConfig.maxWorkers) || 1));
  const databases = await holder[PREPARED];
  project.provide("testDatabaseUrls", databases.urls);
  project.provide("embeddedDatabase", databases.embedded);
  return async () => {
    if (holder[PREPARED] === undefined) return;
    delete holder[PREPARED];
    await databases.stop();
  };
}
