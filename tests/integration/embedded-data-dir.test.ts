import { spawn, spawnSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_FILE } from "@/lib/db/data-dir-lock.mjs";
import { startEmbeddedPostgres } from "@/lib/db/embedded.mjs";
import { cleanEnv } from "../support/fresh-copy";
import { readableProjectCopy } from "../support/readable-copy";

// The embedded Postgres's data folder when it cannot be used: the start
// script (here `npm run migrate`, which opens the database the way `npm run
// dev` and `npm start` do) ends with one paragraph that says what to do.
const root = await mkdtemp(path.join(tmpdir(), "threadline-data-dir-"));
// The script runs from a copy any user can read: one test runs it as another
// user, who may not be able to enter the folder this checkout is in. The copy
// has no .env either, so nothing but EMBEDDED_DB_DIR is configured.
const project = await readableProjectCopy(["@next/env", "@threadline/history", "pg", "node-pg-migrate", "@electric-sql/pglite", "@electric-sql/pglite-socket"]);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

/** Runs `node scripts/migrate.mjs` with EMBEDDED_DB_DIR and nothing else configured. */
function migrateWith(dataDir: string, user?: { uid: number; gid: number }): Promise<{ code: number | null; output: string }> {
  const env = cleanEnv({ HOME: tmpdir(), EMBEDDED_DB_DIR: dataDir });
  const child = spawn(process.execPath, ["scripts/migrate.mjs"], { cwd: project, env, ...user, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

/** One paragraph that names the folder and a way out, and no stack trace. */
function expectAdvice(output: string, dataDir: string, ...phrases: string[]) {
  expect(output).toContain(dataDir);
  for (const phrase of phrases) expect(output).toContain(phrase);
  expect(output).not.toMatch(/^\s+at /m);
  expect(output.trim().split("\n").filter((line) => line.trim())).toHaveLength(1);
}

// Each test boots PGlite in a process of its own, which takes many seconds on a busy machine.
describe("the embedded Postgres's data folder", { timeout: 90_000 }, () => {
  it("is created with its parents when missing", async () => {
    const dataDir = path.join(root, "fresh", "nested", "pglite");
    const { code, output } = await migrateWith(dataDir);
    expect(output).toContain("applied migrations");
    expect(code).toBe(0);
    expect((await readFile(path.join(dataDir, "PG_VERSION"), "utf8")).trim()).toMatch(/^\d+$/);
  });

  it("that cannot be created is explained", async () => {
    await writeFile(path.join(root, "a-file"), "not a folder");
    const dataDir = path.join(root, "a-file", "pglite");
    const { code, output } = await migrateWith(dataDir);
    expect(code).toBe(1);
    expectAdvice(output, dataDir, "cannot use", "EMBEDDED_DB_DIR", "DATABASE_URL");
  });

  it("that this user cannot write is explained", async () => {
    const dataDir = path.join(root, "read-only");
    await mkdir(dataDir);
    let user: { uid: number; gid: number } | undefined;
    if (process.getuid?.() === 0) {
      // Permissions do not bind root: run the script as an ordinary user, who can read the project's copy but not this folder.
      user = { uid: 1000, gid: 1000 };
      if (spawnSync(process.execPath, ["-e", "0"], user).status !== 0) return expect.fail("cannot run node as uid 1000 to test permissions");
      await chmod(root, 0o755);
      await chmod(dataDir, 0o755);
    } else {
      await chmod(dataDir, 0o555);
    }
    const { code, output } = await migrateWith(dataDir, user);
    expect(code).toBe(1);
    expectAdvice(output, dataDir, "cannot use", "EACCES", "permissions");
  });

  it("held by a running instance is refused, and free again once it stops", async () => {
    const dataDir = path.join(root, "held");
    const running = await startEmbeddedPostgres({ dataDir });
    try {
      const { code, output } = await migrateWith(dataDir);
      expect(code).toBe(1);
      expectAdvice(output, dataDir, "in use by another running instance", `process ${process.pid}`, "Stop the other instance");
    } finally {
      await running.stop();
    }
    const again = await migrateWith(dataDir);
    expect(again.output).toContain("applied migrations");
    expect(again.code).toBe(0);
  });

  it("locked by a process that no longer runs is taken over", async () => {
    const dataDir = path.join(root, "crashed");
    await migrateWith(dataDir);
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid!;
    await writeFile(path.join(dataDir, LOCK_FILE), JSON.stringify({ pid: gone, host: hostname() }));
    const { code, output } = await migrateWith(dataDir);
    expect(output).toContain("database schema is up to date");
    expect(code).toBe(0);
    await expect(stat(path.join(dataDir, LOCK_FILE))).rejects.toThrow(); // released on exit
  });

  it("written by another PGlite version is explained and left as it was", async () => {
    const source = path.join(root, "current");
    expect((await migrateWith(source)).code).toBe(0);
    const dataDir = path.join(root, "older");
    await cp(source, dataDir, { recursive: true });
    await writeFile(path.join(dataDir, "PG_VERSION"), "16\n"); // what an older PGlite (Postgres 16) leaves
    const { code, output } = await migrateWith(dataDir);
    expect(code).toBe(1);
    expectAdvice(output, dataDir, "cannot open", "Postgres 16", "move the folder away", "pg_dump");
    expect(await readFile(path.join(dataDir, "PG_VERSION"), "utf8")).toBe("16\n");
  });
});
