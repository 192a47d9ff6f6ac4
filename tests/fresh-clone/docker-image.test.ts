import type { ChildProcess } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { recreateDatabase } from "@threadline/history/migrate";
import { parseDockerfile, replayDockerfile, runHealthcheck, startImage, type Image } from "../support/dockerfile-replay";
import { chatTurn, freePort, freshCopy, stopGroup, firstAccount, waitFor } from "../support/fresh-copy";

// No Docker engine runs on the build machines, so this replays the Dockerfile
// itself (tests/support/dockerfile-replay.ts) on a fresh copy of the tree (HEAD in a clone): the same
// context filter, `npm ci`, `npm run build`, the final stage's COPY, its USER,
// ENV, CMD and HEALTHCHECK. What only Docker does (the base image's own Node,
// the network namespace) is not proven here.
const work = await mkdtemp(path.join(tmpdir(), "threadline-image-"));
let app: ChildProcess | undefined;
let context: string | undefined;
const stopDatabases: (() => Promise<void>)[] = [];

afterAll(async () => {
  await stopGroup(app);
  for (const stop of stopDatabases) await stop();
  await rm(work, { recursive: true, force: true });
  if (context) await rm(context, { recursive: true, force: true });
});

/** The local Postgres server when the suite has one (CI), else an embedded one: the image needs only a URL. */
async function databaseForImage(): Promise<string> {
  const server = process.env.TEST_DATABASE_URL;
  if (server) {
    const url = new URL(server);
    url.pathname = "/threadline_image";
    await recreateDatabase(url.toString());
    return url.toString();
  }
  // It stands in for a Postgres server: the image's two workers, each with its pool, connect at once.
  const embedded = await startEmbeddedPostgres({ maxConnections: 32 });
  stopDatabases.push(embedded.stop);
  return embedded.url;
}

/** What a self-hoster's folder may hold beside the committed files; none of it may reach the image. */
async function addLocalState(context: string) {
  await writeFile(path.join(context, ".env"), "OPENAI_API_KEY=sk-local-secret\n");
  await writeFile(path.join(context, ".env.local"), "SESSION_SECRET=local\n");
  for (const dir of [".data/pglite", ".next/cache", "node_modules/left-over", ".test-output", "test-results", "playwright-report"]) {
    await mkdir(path.join(context, dir), { recursive: true });
    await writeFile(path.join(context, dir, "marker"), "local state");
  }
}

describe("the Docker image, its steps replayed without Docker", () => {
  let image: Image;

  // npm ci and a production build on two cores shared with the quick start's two servers and build and the bench: 10 minutes seen, past 15 once.
  it("builds from a clean copy: npm ci on the lock file, npm run build, local state kept out of the context", { timeout: 1_200_000 }, async () => {
    context = await freshCopy("image-context");
    await addLocalState(context);
    const stages = path.join(work, "stages");
    await mkdir(stages);
    await chmod(work, 0o755); // the image's non-root USER must reach the stage folders below it
    image = await replayDockerfile(path.join(context, "Dockerfile"), context, stages);

    const runs = parseDockerfile(await readFile(path.join(context, "Dockerfile"), "utf8")).flatMap((stage) =>
      stage.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args),
    );
    expect(runs).toContain("npm ci --no-audit --no-fund"); // the lock file, exactly: a lock out of sync fails here

    const leaked = image.copiedFromContext.filter((file) =>
      /^(\.env|\.data|\.next|node_modules|\.test-output|test-results|playwright-report|\.git)(\/|$)/.test(file),
    );
    expect(leaked).toEqual([]);
    expect(image.copiedFromContext).toContain("package-lock.json");
  });

  it("holds only the standalone server, its assets, migrations and start script, and runs as a non-root user", async () => {
    expect(image, "the build failed").toBeDefined();
    const entries = (await readdir(image.workdir)).sort();
    expect(entries.filter((entry) => ![".next", "lib", "node_modules", "package.json", "packages", "public", "scripts", "server.js"].includes(entry))).toEqual([]);
    expect(entries).toEqual(expect.arrayContaining(["server.js", "packages", "scripts", "node_modules"]));
    // The history package's migrator, its migrations and its database functions: what the start script applies.
    expect(await readdir(path.join(image.workdir, "packages", "history", "db", "migrations"))).toContain("1732233600000_init.sql");
    expect(await readdir(path.join(image.workdir, "packages", "history", "db", "functions"))).toContain("threadline_open_turn.sql");
    expect(await readdir(path.join(image.workdir, ".next", "static"))).not.toHaveLength(0);

    const { devDependencies } = JSON.parse(await readFile("package.json", "utf8")) as { devDependencies: Record<string, string> };
    const installed = new Set(await readdir(path.join(image.workdir, "node_modules")));
    for (const scope of [...installed].filter((name) => name.startsWith("@"))) {
      for (const name of await readdir(path.join(image.workdir, "node_modules", scope))) installed.add(`${scope}/${name}`);
    }
    expect(Object.keys(devDependencies).filter((name) => installed.has(name))).toEqual([]);
    expect(installed.has("@electric-sql/pglite")).toBe(false);

    expect(image.user).toBeDefined();
    expect(["root", "0"]).not.toContain(image.user);
    expect(image.env.NODE_ENV).toBe("production");
    expect(image.healthcheck).toBeDefined();
  });

  it("starts as its CMD does: migrations applied, health check passing, a chat turn streamed", { timeout: 180_000 }, async () => {
    expect(image, "the build failed").toBeDefined();
    const port = await freePort();
    const env = { DATABASE_URL: await databaseForImage(), PORT: String(port) }; // as `docker run -e`
    const started = await startImage(image, env);
    app = started.child;
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/api/health`, app, started.output);
    expect(started.output()).toMatch(/applied migrations: \d+_init/);
    if (process.getuid?.() === 0) expect(started.asUid, "the app should run as the image's USER").toBe(1000);

    expect(await runHealthcheck(image, env)).toBe(0);
    expect(await (await fetch(`${base}/api/health`)).json()).toMatchObject({ status: "ok", database: "ok" });

    const page = await (await fetch(`${base}/`)).text();
    const asset = /\/_next\/static\/[^"]+\.(?:css|js)/.exec(page)?.[0];
    expect(asset, "the page links its static assets").toBeDefined();
    expect((await fetch(`${base}${asset}`)).status).toBe(200);

    const cookie = await firstAccount(base);
    const turn = await chatTurn(base, cookie, "Hello from the image");
    expect(turn.contentType).toContain("text/event-stream");
    expect(turn.reply).toContain('You wrote: "Hello from the image"');
    expect(turn.deltas).toBeGreaterThan(1);

    await stopGroup(app);
    expect(await runHealthcheck(image, env)).toBe(1); // the check fails when nothing answers
  });

  it("two app servers on one database share one rate-limit count", { timeout: 180_000 }, async () => {
    expect(image, "the build failed").toBeDefined();
    const databaseUrl = await databaseForImage();
    const servers: { base: string; child: ChildProcess }[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        // One connection each: enough for these turns, and what an embedded Postgres stand-in needs.
        const env = { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "1", PORT: String(port), RATE_LIMIT_CHAT_PER_MINUTE: "2" };
        const started = await startImage(image, env);
        servers.push({ base: `http://127.0.0.1:${port}`, child: started.child });
        await waitFor(`http://127.0.0.1:${port}/api/health`, started.child, started.output);
      }
      const [a, b] = servers;
      const cookie = await firstAccount(a.base); // a session in the shared database, which both servers read
      const post = (base: string) =>
        fetch(`${base}/api/chat`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie },
          body: JSON.stringify({ message: { id: `limit-${Date.now()}-${Math.random().toString(36).slice(2)}`, content: "count me" } }),
        });
      const first = await post(a.base);
      await first.text();
      const second = await post(b.base);
      await second.text();
      const third = await post(a.base);
      expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
      expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      for (const server of servers) await stopGroup(server.child);
    }
  });
});
