// npm run dev / npm start: make sure there is a database (the embedded one when
// DATABASE_URL is not set), apply pending migrations, then hand over to Next.js:
// `next dev` for dev; for start, the self-contained server that `npm run build`
// leaves in .next/standalone. The Docker image runs this same script from inside
// that folder, where server.js sits beside scripts/.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import nextEnv from "@next/env";
import { inngestDevRefusal } from "../lib/inngest/env.mjs";
import { openDatabase } from "./database.mjs";

const mode = process.argv[2];
if (mode !== "dev" && mode !== "start") {
  console.error("usage: node scripts/run-app.mjs dev|start");
  process.exit(2);
}

nextEnv.loadEnvConfig(process.cwd(), mode === "dev");

if (mode === "start") {
  const refusal = inngestDevRefusal({ ...process.env, NODE_ENV: "production" }); // what server.js runs as
  if (refusal) {
    console.error(`\n[threadline] ${refusal}\n`);
    process.exit(1);
  }
}

const serverArgs = mode === "dev" ? devServer() : standaloneServer();
const database = await openDatabase();

// The client-address preload runs inside the server; see scripts/client-address.mjs.
const preload = new URL("./client-address.mjs", import.meta.url).href;
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
