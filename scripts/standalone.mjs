// The second half of `npm run build`: turns Next's .next/standalone into a
// folder that runs on its own, the one `npm start` runs and the Docker image
// copies whole. Next puts there server.js and the node_modules the server
// needs; this adds what it leaves out: the static assets, public/, the
// migrations, and the start script with the modules it imports, traced by
// @vercel/nft (the file tracer Next itself uses) rather than listed by hand.
import { cp, lstat, mkdir, readlink, rm, stat, symlink } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeFileTrace } from "@vercel/nft";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const standalone = path.join(root, ".next", "standalone");

/**
 * Scripts the image runs: the start script (migrations, then the server, with its preloads), `npm run migrate`, the health check;
 * and the worker thread that reads a PDF's text, which the server loads by path (lib/files/pdf-text.ts), with the unpdf it imports.
 */
const ENTRY_POINTS = [
  "scripts/run-app.mjs",
  "scripts/client-address.mjs",
  "scripts/worker-header.mjs",
  "scripts/migrate.mjs",
  "scripts/healthcheck.mjs",
  "lib/files/pdf-text-worker.mjs",
];

/**
 * The embedded Postgres (PGlite, ~25 MB) is for running from a checkout with
 * nothing configured; the image always runs against DATABASE_URL, and the
 * start script says so when it is missing.
 */
const LEFT_OUT = [".next/**", "lib/db/embedded.mjs", "lib/db/data-dir-lock.mjs", "node_modules/@electric-sql/**"];

const exists = (p) => stat(p).then(() => true, () => false);

if (!(await exists(path.join(standalone, "server.js")))) {
  console.error("[threadline] .next/standalone/server.js is missing: run `npm run build` (next build with output: \"standalone\").");
  process.exit(1);
}

await cp(path.join(root, ".next", "static"), path.join(standalone, ".next", "static"), { recursive: true });
if (await exists(path.join(root, "public"))) await cp(path.join(root, "public"), path.join(standalone, "public"), { recursive: true });
// The history package's migrations and database functions, which its migrator reads from beside itself.
const DATABASE = path.join("packages", "history", "db");
await cp(path.join(root, DATABASE), path.join(standalone, DATABASE), { recursive: true });

const { fileList } = await nodeFileTrace(ENTRY_POINTS, { base: root, ignore: LEFT_OUT });
for (const file of fileList) {
  if (file.startsWith(`${DATABASE}/`)) continue; // copied whole above
  const target = path.join(standalone, file);
  await mkdir(path.dirname(target), { recursive: true });
  // A workspace package is a link into packages/ (node_modules/@threadline/history): it stays one, the files it names are traced too.
  if ((await lstat(path.join(root, file))).isSymbolicLink()) {
    await rm(target, { recursive: true, force: true });
    await symlink(await readlink(path.join(root, file)), target);
    continue;
  }
  await cp(path.join(root, file), target, { dereference: true, force: true });
}
console.log(`[threadline] .next/standalone is ready: static assets, migrations, database functions and ${fileList.size} traced files of the start script added`);
