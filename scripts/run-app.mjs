// npm run dev / npm start: make sure there is a database (the embedded one when
// DATABASE_URL is not set), apply pending migrations, then hand over to Next.js:
// `next dev` for dev; for start, the self-contained server that `npm run build`
// leaves in .next/standalone, as one server worker per core (WEB_CONCURRENCY;
// scripts/cluster.mjs), each with its share of the database pool. The Docker
// image runs this same script from inside that folder, where server.js sits
// beside scripts/.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import nextEnv from "@next/env";
import { inngestDevRefusal } from "../lib/inngest/env.mjs";
import { poolShare, workerCount } from "../lib/server-workers.mjs";
import { runWorkers } from "./cluster.mjs";
import { openDatabase } from "./database.mjs";

const mode = process.argv[2];
if (mode !== "dev" && mode !== "start") {
  console.error("usage: node scripts/run-app.mjs dev|start");
  process.exit(2);
}

nextEnv.loadEnvConfig(process.cwd(), mode === "dev");

let workers = 1;
if (mode === "start") {
  try {
    workers = workerCount(process.env.WEB_CONCURRENCY, availableParallelism());
  } catch (error) {
    console.error(`[threadline] ${error.message}`);
    process.exit(1);
  }
  const refusal = inngestDevRefusal({ ...process.env, NODE_ENV: "production" }); // what server.js runs as
  if (refusal) {
    console.error(`\n[threadline] ${refusal}\n`);
    process.exit(1);
  }
}

const serverArgs = mode === "dev" ? devServer() : standaloneServer();
const database = await openDatabase();

if (workers > 1 && database.embedded) {
  console.log(
    `[threadline] One server worker, not ${workers}: the embedded Postgres is one backend inside this process, ` +
      "and two workers' statements would interleave in it. Set DATABASE_URL to a Postgres server to run one per core.",
  );
  workers = 1;
}

// The client-address preload runs inside the server; see scripts/client-address.mjs.
const preload = new URL("./client-address.mjs", import.meta.url).href;
if (workers > 1) {
  const [script] = serverArgs;
  const env = { DATABASE_POOL_SIZE: poolShare(process.env.DATABASE_POOL_SIZE, workers) };
  const code = await runWorkers({ script, execArgv: [...process.execArgv, "--import", preload], count: workers, env });
  await database.close();
  process.exit(code);
}
const child = spawn(process.execPath, ["--import", preload, ...serverArgs], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", async (code, signal) => {
  // The embedded database closes after the app, so nothing it wrote is cut off.
  await database.close().catch((error) => console.error("[threadline] closing the embedded database:", error));
  process.exit(code ?? (signal ? 1 : 0));
});

function devServer() {
  const args = [createRequire(import.meta.url).resolve("next/dist/bin/next"), "dev", ...process.argv.slice(3)];
  if (process.env.PORT) args.push("--port", process.env.PORT);
  if (process.env.HOSTNAME) args.push("--hostname", process.env.HOSTNAME);
  return args;
}

/** server.js reads PORT and HOSTNAME itself. */
function standaloneServer() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const serverDir = existsSync(path.join(root, "server.js")) ? root : path.join(root, ".next", "standalone");
  if (!existsSync(path.join(serverDir, "server.js")) || !existsSync(path.join(serverDir, ".next", "static"))) {
    console.error("\n[threadline] There is no complete production build: run `npm run build` first, then `npm start`.\n");
    process.exit(1);
  }
  return [path.join(serverDir, "server.js")];
}
