// The Inngest part of the benchmark on its own, for working on it:
//
//   npm run build && node scripts/bench/inngest-turns.mjs [--turns=200] [--concurrency=100] [--mode=async|inline] [--port=N] [--profile]
//
// runs the benchmark's turns ([[bench]]: 100 tokens) on a production server
// pointed at the Inngest stand-in (checkpointed unless --mode=async; --mode=inline
// runs the same turns without Inngest, to compare with), after a
// warm-up, and reports the server's CPU per turn (from /proc), the requests
// the app made to Inngest per turn by kind and the TCP connections they came
// on; --profile runs the server under --cpu-prof and prints its self time per
// turn by package and by function; --publishes prints the realtime publishes
// of the last turn (when, and which chunks each carried).
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startMockModelServer } from "../mock-model-server.mjs";
import { cpuByFunction, cpuByPackage, monotonicMicros } from "./cpu-profile.mjs";
import { benchServers } from "./servers.mjs";
import { pool, timedTurn, visitor } from "./turns.mjs";

const flag = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
const profile = process.argv.includes("--profile");
const turns = Number(flag("turns") ?? 200);
const concurrency = Number(flag("concurrency") ?? 100);
const mode = flag("mode") ?? "checkpointed";
const port = Number(flag("port") ?? 3199);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const outDir = path.join(root, ".test-output", "inngest-turns");
const round = (n, digits = 1) => Number(n.toFixed(digits));

async function main() {
  mkdirSync(outDir, { recursive: true });
  const { throwawayDatabase, withApp, startInngestStandin, cpuMs } = benchServers({ root, outDir, basePort: port });
  const database = await throwawayDatabase();
  const mock = await startMockModelServer();
  // --mode=inline: the same turns without Inngest, to compare with.
  const standin = mode === "inline" ? undefined : await startInngestStandin(port, { mode });
  const profileDir = path.join(outDir, "profile");
  rmSync(profileDir, { recursive: true, force: true });
  try {
    const app = {
      databaseUrl: database.url,
      poolSize: database.poolSize,
      modelUrl: mock.url,
      env: standin ? { INNGEST_DEV: standin.url, INNGEST_DEV_IS_LOCAL: "1", INNGEST_CHECKPOINTING: mode === "async" ? "0" : "1" } : {},
      nodeArgs: profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
    };
    const window = {};
    let cpu, before, after, failed;
    await withApp(app, async ({ url, pid }) => {
      const cookie = await visitor(url);
      await pool(4, 2, () => timedTurn(url, cookie, { message: { id: randomUUID(), content: "[[bench]] warm up" } }));
      before = await standin?.traffic();
      const cpuBefore = cpuMs(pid);
      window.from = monotonicMicros();
      const results = await pool(turns, concurrency, (i) => timedTurn(url, cookie, { message: { id: randomUUID(), content: `[[bench]] turn ${i}` } }));
      window.to = monotonicMicros();
      cpu = cpuMs(pid) - cpuBefore;
      failed = results.filter((r) => r.error);
      // The last publishes and checkpoints of a turn may land after its stream ended.
      await new Promise((resolve) => setTimeout(resolve, 500));
      after = await standin?.traffic();
      if (standin && process.argv.includes("--publishes")) {
        const state = await (await fetch(`${standin.url}/__standin/state`)).json();
        const channel = state.published.at(-1).channel;
        const mine = state.published.filter((m) => m.channel === channel);
        const t0 = Date.parse(mine[0].created_at);
        console.log("the last turn's publishes: ms since its first, the chunks (a delta's length)");
        for (const m of mine) console.log(Date.parse(m.created_at) - t0, m.topic, (m.data.messages ?? []).map((x) => x.chunk.type + (x.chunk.delta ? `(${x.chunk.delta.length})` : "")).join(" "));
      }
    });
    const perTurn = standin && Object.fromEntries(
      Object.entries(after.requests)
        .map(([kind, n]) => [kind, round((n - (before.requests[kind] ?? 0)) / turns)])
        .filter(([, n]) => n > 0),
    );
    console.log(
      JSON.stringify(
        {
          node: process.version,
          mode,
          turns,
          concurrency,
          errors: failed.length,
          ...(failed.length ? { firstError: failed[0].error } : {}),
          cpuMsPerTurn: round(cpu / turns),
          ...(standin
            ? { requestsToInngestPerTurn: perTurn, connectionsPerTurn: round((after.connections - before.connections) / turns, 2) }
            : {}),
          profiled: profile,
        },
        null,
        2,
      ),
    );
    if (profile) {
      const file = path.join(profileDir, readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile")));
      console.log("\nself time per turn by package (ms)");
      for (const g of cpuByPackage(file, root, window).slice(0, 15)) console.log(`  ${(g.ms / turns).toFixed(2).padStart(6)}  ${g.group}`);
      console.log("self time per turn by function (ms)");
      for (const f of cpuByFunction(file, root, window).slice(0, Number(flag("functions") ?? 40))) console.log(`  ${(f.ms / turns).toFixed(2).padStart(6)}  ${f.name}`);
      console.log(`\nprofile: ${path.relative(root, file)} (window ${JSON.stringify(window)})`);
    }
  } finally {
    await standin?.stop();
    await mock.close();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
