// npm run dev / npm start: apply pending migrations, then hand over to Next.js.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import nextEnv from "@next/env";
import { DEFAULT_DATABASE_URL } from "../lib/db/default-url.mjs";
import { prepareDatabase } from "./prepare-db.mjs";

const mode = process.argv[2];
if (mode !== "dev" && mode !== "start") {
  console.error("usage: node scripts/run-app.mjs dev|start");
  process.exit(2);
}

nextEnv.loadEnvConfig(process.cwd(), mode === "dev");
await prepareDatabase(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
const args = [nextBin, mode, ...process.argv.slice(3)];
if (process.env.PORT) args.push("--port", process.env.PORT);
if (process.env.HOSTNAME) args.push("--hostname", process.env.HOSTNAME);
const child = spawn(process.execPath, args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
