// What a turn costs the app when the model costs nothing: the mock answers
// [[one-token]] with one token at once, so the server's CPU per turn is its
// own setup (parsing, identity, the network, the model call's setup, the
// stream's plumbing, the database's round trips) and not the reply's tokens.
// Sequential turns, so nothing waits on anything but this one turn.
//
//   node scripts/bench/one-token-turn.mjs [--turns=N] [--port=N] [--profile]
//
// runs on a production build of this checkout (npm run build first) against
// a throwaway database (BENCH_DATABASE_URL or DATABASE_URL's server, else the
// embedded Postgres); --profile also runs the server under --cpu-prof and
// prints where its CPU went, by package and by function. npm run bench calls
// oneTokenTurns() on its own server and reports it as `oneTokenTurn`, and
// profiledOneTokenTurns() on another for what bounds it.
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startMockModelServer } from "../mock-model-server.mjs";
import { cpuByFunction, cpuByPackage, monotonicMicros } from "./cpu-profile.mjs";
import { benchServers } from "./servers.mjs";
import { copyOf, percentile, timedTurn, visitor } from "./turns.mjs";

const round = (n, digits = 1) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);

/**
 * `turns` one-token turns, one at a time, twice: each in a thread of its own
 * (a first message: the thread is created and the model titles it, a second
 * model call) and each as a thread's second message, sent with the page's
 * signed copy (no history read). `cpuMs(pid)`: the server's CPU so far (ms).
 * Returns, per kind, the server's CPU per turn (ms) and the first token's
 * latency p50/p90 (ms, from the request going out).
 */
export async function oneTokenTurns({ url: app, pid }, { cpuMs, turns = 200, warmUp = 20, onWindow } = {}) {
  const cookie = await visitor(app);
  const say = async (body) => {
    const result = await timedTurn(app, cookie, body);
    if (result.error) throw new Error(result.error);
    return result;
  };
  const firstMessage = () => ({ id: randomUUID(), content: "[[one-token]] hello" });
  // Warm up: the first requests load and compile what later ones reuse.
  for (let i = 0; i < warmUp; i++) {
    const message = firstMessage();
    const first = await say({ message });
    await say({ threadId: first.threadId, message: { id: randomUUID(), content: "[[one-token]] again" }, history: copyOf(first, message) });
  }
  const measure = async (label, run) => {
    const latencies = [];
    const window = { from: monotonicMicros() };
    const cpuBefore = cpuMs(pid);
    const started = performance.now();
    for (let i = 0; i < turns; i++) latencies.push(await run(i));
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuMs(pid);
    window.to = monotonicMicros();
    onWindow?.(label, window);
    return {
      turns,
      cpuMsPerTurn: cpuBefore === undefined ? null : round((cpuAfter - cpuBefore) / turns),
      firstTokenMs: { p50: round(percentile(latencies, 50)), p90: round(percentile(latencies, 90)) },
      turnsPerSecond: round(turns / seconds),
    };
  };
  const firsts = [];
  const newThread = await measure("newThread", async () => {
    const message = firstMessage();
    const turn = await say({ message });
    firsts.push({ turn, message });
    return turn.firstTokenMs;
  });
  const followUp = await measure("followUp", async (i) => {
    const { turn, message } = firsts[i];
    const next = await say({ threadId: turn.threadId, message: { id: randomUUID(), content: "[[one-token]] and then" }, history: copyOf(turn, message) });
    if (next.chunks[0].data.historySource !== "client") throw new Error("the follow-up did not take the client path");
    return next.firstTokenMs;
  });
  return { newThread, followUp };
}

/**
 * oneTokenTurns on a server of its own run under the profiler (`withApp` and
 * `options` as benchServers takes them), its profile written to `dir`: the
 * figures, and where the follow-up turns' CPU went (self time per turn, only
 * the samples taken while they ran), by package and by function. The
 * profiler costs CPU of its own: the figures to quote come from an
 * unprofiled run.
 */
export async function profiledOneTokenTurns(withApp, options, { root, dir, cpuMs, turns = 200, warmUp = 20 }) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const windows = {};
  const result = await withApp({ ...options, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] }, (server) =>
    oneTokenTurns(server, { cpuMs, turns, warmUp, onWindow: (label, w) => (windows[label] = w) }),
  );
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error("the one-token turns' server wrote no CPU profile");
  writeFileSync(path.join(dir, "windows.json"), JSON.stringify(windows));
  const perTurn = (rows, key) => rows.map((row) => ({ [key]: row[key], msPerTurn: round(row.ms / turns, 2), percent: round(row.share * 100, 1) }));
  const where = (label) => ({
    byPackage: perTurn(cpuByPackage(path.join(dir, file), root, windows[label]), "group"),
    byFunction: perTurn(cpuByFunction(path.join(dir, file), root, windows[label]).slice(0, 30), "name"),
  });
  return { ...result, profile: path.relative(root, path.join(dir, file)), where: { newThread: where("newThread"), followUp: where("followUp") } };
}

async function main() {
  const flag = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
  const profile = process.argv.includes("--profile");
  const turns = Number(flag("turns") ?? 200);
  const port = Number(flag("port") ?? 3199);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  const outDir = path.join(root, ".test-output", "one-token-turn");
  mkdirSync(outDir, { recursive: true });
  const { throwawayDatabase, withApp, cpuMs } = benchServers({ root, outDir, basePort: port });
  const database = await throwawayDatabase();
  const mock = await startMockModelServer();
  try {
    const options = { databaseUrl: database.url, poolSize: database.poolSize, modelUrl: mock.url };
    if (!profile) {
      const result = await withApp(options, (server) => oneTokenTurns(server, { cpuMs, turns }));
      console.log(JSON.stringify({ database: database.kind, node: process.version, profiled: false, ...result }, null, 2));
      return;
    }
    const { where, profile: file, ...result } = await profiledOneTokenTurns(withApp, options, { root, dir: path.join(outDir, "profile"), cpuMs, turns });
    console.log(JSON.stringify({ database: database.kind, node: process.version, profiled: true, ...result }, null, 2));
    for (const [label, { byPackage, byFunction }] of Object.entries(where)) {
      console.log(`\n${label}: self time per turn by package (ms)`);
      for (const g of byPackage.slice(0, 15)) console.log(`  ${g.msPerTurn.toFixed(2).padStart(6)}  ${g.group}`);
      console.log(`${label}: self time per turn by function (ms)`);
      for (const f of byFunction) console.log(`  ${f.msPerTurn.toFixed(2).padStart(6)}  ${f.name}`);
    }
    console.log(`\nprofile: ${file} (each kind's window of samples: windows.json beside it)`);
  } finally {
    await mock.close();
    await database.drop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
