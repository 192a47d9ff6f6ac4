// npm run dev / npm start: make sure there is a database (the embedded one when
// DATABASE_URL is not set), apply pending migrations, then hand over to Next.js.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import nextEnv from "@next/env";
import { openDatabase } from "./database.mjs";

const mode = process.argv[2];
if (mode !== "dev" && mode !== "start") {
  console.error("usage: node scripts/run-app.mjs dev|start");
  process.exit(2);
}

nextEnv.loadEnvConfig(process.cwd(), mode === "dev");

const database = await openDatabase();

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
const args = [nextBin, mode, ...process.argv.slice(3)];
if (process.env.PORT) args.push("--port", process.env.PORT);
if (process.env.HOSTNAME) args.push("--hostname", process.env.HOSTNAME);
const child = spawn(process.execPath, args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", async (code, signal) => {
  // The embedded database closes after the app, so nothing it wrote is cut off.
  await database.close().catch((error) => console.error("[threadline] closing the embedded database:", error));
  process.exit(code ?? (signal ? 1 : 0));
});
