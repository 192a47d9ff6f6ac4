// npm run bench [-- --quick]: what a turn, a thread and the chat page cost, on
// a production build of this checkout (built first when there is none),
// against the project's mock model (100 ms to the first token, then 100
// tokens 10 ms apart: a hosted model's shape) and a throwaway database (a
// database of its own on BENCH_DATABASE_URL's or DATABASE_URL's server, else
// the embedded Postgres in a temporary folder), on the inline runtime and on
// the Inngest runtime (the e2e tests' stand-in of the Inngest server),
// checkpointed and with checkpointing off side by side, with a
// CPU profile of each by package; a one-token turn's CPU and its profile; the
// CPU of each further token (scripts/bench/token-cpu.mjs, run first, in this
// process, while nothing else of the bench runs); how long a reply's finish
// comes after its last token, new threads (titled) and later turns apart; how long a
// reload waits for a running reply (scripts/bench/resume-latency.mjs). Prints the figures and writes
// them to bench/results.json and bench/results.md (--quick: a smoke run into
// .test-output/bench/). Nothing here asserts a figure: the targets are
// reported as met or not. The inline turns run twice, on one server process
// and on `npm start`'s one worker per core (a Postgres server only: the
// embedded one keeps one worker), side by side. Last, a soak: many turns at 10 concurrent on one
// server per kind of turn (scripts/bench/soak.mjs: the offline tool path, the mock model's plain
// reply, and two models from MODELS in turn calling a mock MCP server's tool, their usage stored),
// its resident memory read every so many turns (--soak-only runs just
// that and adds it to the results already written; --soak-turns=N sets its
// length; --port=N moves its servers, default 3199 and up). --js-only measures
// just the JavaScript of a thread's page, printed and not written. Then the
// admin's spend report over a year of a million model calls, on a database of
// its own (scripts/bench/spend-report.mjs; --spend-only runs just that, no
// build needed, and adds it to the results already written). And what a
// share link's public page costs: live, revoked and unknown (scripts/bench/share-open.mjs). What a
// person's 500 memories add to a turn's first token, and the largest request a lesson sends
// (scripts/bench/memory-turn.mjs; --memory-only runs just that, printed and not written).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { BENCH_FIRST_TOKEN_MS, BENCH_TOKEN_GAP_MS, BENCH_TOKENS, startMockModelServer } from "./mock-model-server.mjs";
import { startRoundTripCounter } from "./bench/round-trips.mjs";
import { cpuByPackage, monotonicMicros } from "./bench/cpu-profile.mjs";
import { chatPageJs } from "./bench/page-js.mjs";
import { oneTokenTurns, profiledOneTokenTurns } from "./bench/one-token-turn.mjs";
import { memoryLine, printPageJs, writeReport, writeSoakReport, writeSpendReport } from "./bench/report.mjs";
import { spendReportBench } from "./bench/spend-report.mjs";
import { tokenCpu } from "./bench/token-cpu.mjs";
import { benchServers } from "./bench/servers.mjs";
import { SOAK_KINDS, soak } from "./bench/soak.mjs";
import { busyPercent, copyOf, machineCpu, median, percentile, pool, timedTurn, visitor } from "./bench/turns.mjs";
import { finishAfterLastToken } from "./bench/finish-after-last-token.mjs";
import { resumeLatency } from "./bench/resume-latency.mjs";
import { serverCpu } from "./bench/server-cpu.mjs";
import { budgetCheck } from "./bench/budget-check.mjs";
import { shareOpen } from "./bench/share-open.mjs";
import { memoryTurns } from "./bench/memory-turn.mjs";

const quick = process.argv.includes("--quick");
const soakOnly = process.argv.includes("--soak-only");
const jsOnly = process.argv.includes("--js-only");
const spendOnly = process.argv.includes("--spend-only");
const memoryOnly = process.argv.includes("--memory-only");
const soakTurnsFlag = process.argv.find((arg) => arg.startsWith("--soak-turns="));
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const OUT_DIR = quick ? path.join(ROOT, ".test-output", "bench") : path.join(ROOT, "bench");
const portFlag = process.argv.find((arg) => arg.startsWith("--port="));
const PORT = portFlag ? Number(portFlag.split("=")[1]) : 3199;
const MODEL_MS = BENCH_FIRST_TOKEN_MS + (BENCH_TOKENS - 1) * BENCH_TOKEN_GAP_MS;
const LEVELS = quick ? [1, 4] : [1, 20, 100];
const TURNS_AT = (c) => (quick ? Math.max(3, c * 2) : Math.max(20, c * 2));
const BIG = quick ? 1_000 : 10_000;
const SOAK_TURNS = soakTurnsFlag ? Number(soakTurnsFlag.split("=")[1]) : quick ? 100 : 2_000;
const SOAK_EVERY = quick ? 25 : 250;
const SOAK_CONCURRENCY = 10;
const MEMORY_TURNS = { turns: quick ? 10 : 100, warmUp: quick ? 2 : 10 };
const { throwawayDatabase, withApp, startInngestStandin, cpuMs } = benchServers({ root: ROOT, outDir: OUT_DIR, basePort: PORT });

const log = (line) => console.log(`[bench] ${line}`);
const round = (n, digits = 0) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);

async function main() {
  mkdirSync(OUT_DIR, { recursive: true });
  if (spendOnly) {
    writeSpendReport({ when: new Date().toISOString(), spend: await spendReport() }, { root: ROOT, outDir: OUT_DIR });
    return;
  }
  if (!existsSync(path.join(ROOT, ".next", "standalone", "server.js"))) {
    log("no production build: running npm run build");
    const built = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
    if (built.status !== 0) throw new Error("npm run build failed");
  }
  const tokenPath = soakOnly || jsOnly || memoryOnly ? undefined : await tokenCost();
  const database = await throwawayDatabase();
  const counter = await startRoundTripCounter(database.url);
  const mock = await startMockModelServer();
  const direct = new pg.Client({ connectionString: database.url });
  await direct.connect();
  const results = { when: new Date().toISOString(), quick, node: process.version, database: database.kind, model: { firstTokenMs: BENCH_FIRST_TOKEN_MS, tokens: BENCH_TOKENS, gapMs: BENCH_TOKEN_GAP_MS }, poolSize: Number(database.poolSize) };
  if (tokenPath) results.tokenPath = tokenPath;
  const inline = { databaseUrl: counter.url, poolSize: database.poolSize, modelUrl: mock.url };
  try {
    if (jsOnly) {
      await withApp(inline, async (server) => printPageJs(await chatPageJs(server.url)));
      return;
    }
    if (memoryOnly) {
      await withApp(inline, async (server) => log(memoryLine(await memoryTurns(server.url, visitor, mock, MEMORY_TURNS))));
      return;
    }
    if (!soakOnly) {
      await withApp(inline, async (server) => {
        results.turns = await concurrentTurns(server, LEVELS);
        results.finishAfterLastToken = await finishAfterLastToken(server.url, mock, LEVELS, TURNS_AT);
        for (const l of results.finishAfterLastToken) {
          log(`${l.concurrency} at a time: finish after the last token p99 ${l.newThreads.p99} ms (new threads), ${l.laterTurns.p99} ms (later turns); ${l.modelCalls.title} title calls, ${l.modelCalls.answer} answers`);
        }
        results.oneTokenTurn = await oneTokenTurns(server, { cpuMs, turns: quick ? 10 : 200, warmUp: quick ? 2 : 20 });
        log(`one-token turn: ${results.oneTokenTurn.followUp.cpuMsPerTurn} ms of app CPU (${results.oneTokenTurn.newThread.cpuMsPerTurn} ms for a new thread, titled)`);
        results.roundTrips = await roundTrips(server, counter);
        results.resume = await resumeLatency(server.url, { runs: quick ? 3 : 20 });
        log(`a reload resumes a reply nobody else watched: first event p50 ${results.resume.firstEventMs.p50} ms, caught up p50 ${results.resume.caughtUpMs.p50} ms (max ${results.resume.caughtUpMs.max} ms)`);
        results.threads = await threadCost(server, direct);
        results.threadList = await threadListCost(server, direct);
        results.budgetCheck = await budgetCheck(direct, { iterations: quick ? 50 : 1_000, callsBehind: quick ? 1_000 : 10_000 });
        log(`budgets: the check before a turn ${results.budgetCheck.status.p50} ms, a call's reservation ${results.budgetCheck.reserve.p50} ms and settlement ${results.budgetCheck.settle.p50} ms (p50)`);
        results.shareOpen = await shareOpen(server.url, await visitor(server.url), { rounds: quick ? 20 : 300 });
        const { live, gone, unknown } = results.shareOpen;
        log(`a shared page: live ${live.p50} ms, revoked (410) ${gone.p50} ms, unknown (404) ${unknown.p50} ms (p50)`);
        results.memoryTurn = await memoryTurns(server.url, visitor, mock, MEMORY_TURNS);
        log(memoryLine(results.memoryTurn));
        results.chatPageJs = await chatPageJs(server.url);
      });
      results.turnsPerCore = await turnsPerCore(inline, database.kind);
      // The Inngest runtime twice: checkpointed (the SDK's default: one request runs a turn's steps and
      // reports each) and with checkpointing off (one request per step), each with its own stand-in.
      const checkpointed = await inngestRuntime(inline, database, "checkpointed");
      const asyncMode = await inngestRuntime(inline, database, "async");
      results.inngestTurns = checkpointed.turns;
      results.inngestAsyncTurns = asyncMode.turns;
      results.inngestRuns = { checkpointed: checkpointed.runs, async: asyncMode.runs };
      // Profiled apart: the profiler's own cost stays out of the figures above.
      results.profiles = {
        inline: await profiledTurns(inline, "inline"),
        inngest: checkpointed.profile,
        inngestAsync: asyncMode.profile,
        oneTokenTurn: await profiledOneTokenTurn(inline),
        ...(results.turnsPerCore.cpu ? { shipped: await profiledShippedServer(inline, results.turnsPerCore.workers) } : {}),
      };
    }
    results.soak = await soaks({ ...inline, databaseUrl: database.url, port: PORT }, mock);
  } finally {
    await direct.end();
    await mock.close();
    await counter.close();
    await database.drop();
  }
  if (!soakOnly) results.spend = await spendReport();
  if (soakOnly) writeSoakReport(results, { root: ROOT, outDir: OUT_DIR });
  else writeReport(results, { quick, root: ROOT, outDir: OUT_DIR });
}

/** Turns at 1 and the top concurrency on the Inngest runtime in one mode, what the stand-in did for them, and a profile. */
async function inngestRuntime(inline, database, mode) {
  const port = PORT + 1;
  const standin = await startInngestStandin(port, { mode });
  try {
    const env = { INNGEST_DEV: standin.url, INNGEST_DEV_IS_LOCAL: "1", INNGEST_CHECKPOINTING: mode === "async" ? "0" : "1" };
    const app = { ...inline, databaseUrl: database.url, port, env };
    let turns;
    await withApp(app, async (server) => {
      turns = await concurrentTurns(server, [LEVELS[0], LEVELS.at(-1)]);
    });
    const runs = await standin.runs();
    log(`Inngest ${mode}: ${runs.runs} runs, ${runs.appRequests} requests to the app, ${runs.steps} steps, ${runs.checkpoints} checkpoints, ${runs.publishes} realtime publishes`);
    return { turns, runs, profile: await profiledTurns(app, mode === "async" ? "inngest-async" : "inngest") };
  } finally {
    await standin.stop();
  }
}

/**
 * What each further token of a reply costs (scripts/bench/token-cpu.mjs): in
 * this process, its CPU read with nothing else of the bench running.
 */
async function tokenCost() {
  const cost = await tokenCpu(quick ? { tokens: 200, turns: 4, rounds: 1 } : { tokens: 1000, turns: 10, rounds: 3 });
  log(`each further token: ${cost.perTokenMs} ms of app CPU (turns of ${cost.tokens} tokens, ${cost.turnsAtOnce} at once)`);
  // The same at the shipped server's shape (tokens BENCH_TOKEN_GAP_MS apart, 20 at once): the
  // provider's stream alone, then the app's inner loop, to set beside the whole server's figures.
  const shape = { tokens: BENCH_TOKENS, turns: quick ? 4 : 20, rounds: quick ? 1 : 3, gapMs: BENCH_TOKEN_GAP_MS };
  const provider = await tokenCpu({ ...shape, providerOnly: true });
  const app = await tokenCpu(shape);
  log(`at ${shape.gapMs} ms between tokens, ${shape.turns} at once: the provider's stream alone ${provider.perTokenMs} ms per token, the inner loop ${app.perTokenMs} ms`);
  return { ...cost, atServerShape: { provider, app } };
}

/** Where a one-token turn's CPU goes: the follow-up turns again, on a server run under the profiler. */
async function profiledOneTokenTurn(options) {
  const turns = quick ? 10 : 200;
  const profiled = await profiledOneTokenTurns(withApp, options, { root: ROOT, dir: path.join(OUT_DIR, "profiles", "one-token-turn"), cpuMs, turns, warmUp: quick ? 2 : 20 });
  const all = profiled.where.followUp.byPackage;
  const rest = all.slice(12).reduce((sum, r) => ({ msPerTurn: sum.msPerTurn + r.msPerTurn, percent: sum.percent + r.percent }), { msPerTurn: 0, percent: 0 });
  const byPackage = [...all.slice(0, 12), ...(all.length > 12 ? [{ group: `${all.length - 12} others`, msPerTurn: round(rest.msPerTurn, 2), percent: round(rest.percent, 1) }] : [])];
  log(`one-token turn CPU by package: ${byPackage.slice(0, 4).map((r) => `${r.group} ${r.percent}%`).join(", ")}`);
  return { turns, profile: profiled.profile, byPackage, byFunction: profiled.where.followUp.byFunction };
}

/** The admin's spend report over a year of a busy install's bill, on a database of its own. */
function spendReport() {
  return spendReportBench({ root: ROOT, quick, log, throwawayDatabase });
}

/** Each kind of soak on a server of its own (straight to the database: the round-trip counter's proxy is not under test). */
async function soaks(options, mockModel) {
  if (!Number.isInteger(SOAK_TURNS) || SOAK_TURNS < 1) throw new Error("--soak-turns must be a whole number ≥ 1");
  const runs = [];
  for (const kind of Object.keys(SOAK_KINDS)) {
    runs.push(
      await soak({
        withApp,
        startInngestStandin,
        options,
        kind,
        turns: SOAK_TURNS,
        every: Math.min(SOAK_EVERY, SOAK_TURNS),
        concurrency: SOAK_CONCURRENCY,
        warmUpTurns: 20,
        settleMs: quick ? 2_000 : 15_000,
        log,
        mockModel,
      }),
    );
  }
  return { node: process.version, runs };
}

// ---------------------------------------------------------------------------

/** The same inline turns on `npm start`'s cluster of one worker per core, the pool shared among them as npm start shares it. */
async function turnsPerCore(options, databaseKind) {
  const workers = availableParallelism();
  if (databaseKind !== "postgres") return { workers, skipped: "the embedded Postgres keeps one worker: set BENCH_DATABASE_URL to a Postgres server" };
  if (workers < 2) return { workers, skipped: "this machine has one core" };
  log(`the same turns on ${workers} workers (one per core)`);
  return {
    workers,
    ...(await withApp({ ...options, workers }, async (server) => {
      const levels = await concurrentTurns(server, LEVELS);
      // A reload lands on any worker: most often not the one running the reply, which hears the ask by NOTIFY.
      const resume = await resumeLatency(server.url, { runs: quick ? 3 : 20 });
      const cpu = await serverCpu(server, { levels: LEVELS, turnsAt: TURNS_AT, cpuMs });
      for (const l of cpu) {
        log(`whole server, ${l.concurrency} at a time: ${l.oneTokenTurnCpuMs} ms per one-token follow-up, ${l.perTokenMs} ms per further token (${l.perTokenBeyondIdleMs} ms beyond the idle server's ${l.idleCpuMsPerSecond} ms/s)`);
      }
      return { levels, resume, cpu };
    })),
  };
}

async function concurrentTurns({ url: app, pid }, levelsToRun) {
  const cookie = await visitor(app);
  // Warm the server up with one burst at the top concurrency: the first requests compile and
  // load what later ones reuse, and a server's first burst of a size pays its JIT and its
  // pool's connections once (its p99 was 2 to 4 times a later burst's); a server in use is warm.
  const top = Math.max(...levelsToRun);
  await pool(top, top, () => timedTurn(app, cookie, { message: { id: randomUUID(), content: "[[bench]] warm up" } }));
  const levels = [];
  for (const concurrency of levelsToRun) {
    const total = TURNS_AT(concurrency);
    const cpuBefore = cpuMs(pid);
    // This process is the load: the mock model and every client's reading share the machine's cores with the server.
    const loadBefore = process.cpuUsage();
    // The first wave (the first `concurrency` turns, sent at once) to its last first token: how busy the machine was meanwhile.
    const machineBefore = machineCpu();
    const wave = Math.min(concurrency, total);
    let firstTokens = 0;
    let firstWave;
    const onFirstToken = () => {
      if (++firstTokens === wave) firstWave = { ms: performance.now() - started, busy: busyPercent(machineBefore, machineCpu()) };
    };
    const started = performance.now();
    const turns = await pool(total, concurrency, (i) => timedTurn(app, cookie, { message: { id: randomUUID(), content: `[[bench]] turn ${i}` } }, { onFirstToken }));
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuMs(pid);
    const load = process.cpuUsage(loadBefore);
    const ok = turns.filter((t) => !t.error);
    const firstToken = ok.map((t) => t.firstTokenMs - BENCH_FIRST_TOKEN_MS);
    const turnOverhead = ok.map((t) => t.totalMs - MODEL_MS);
    const level = {
      concurrency,
      turns: total,
      errors: total - ok.length,
      ...(total > ok.length ? { firstError: turns.find((t) => t.error).error } : {}),
      firstTokenOverheadMs: { p50: round(percentile(firstToken, 50)), p90: round(percentile(firstToken, 90)), p99: round(percentile(firstToken, 99)) },
      turnOverheadMs: { p50: round(percentile(turnOverhead, 50)), p90: round(percentile(turnOverhead, 90)), p99: round(percentile(turnOverhead, 99)) },
      turnsPerSecond: round(ok.length / seconds, 1),
      cpuMsPerTurn: cpuBefore === undefined ? null : round((cpuAfter - cpuBefore) / total, 1),
      loadCpuMsPerTurn: round((load.user + load.system) / 1000 / total, 1),
      ...(firstWave ? { firstWave: { ms: round(firstWave.ms), machineBusyPercent: firstWave.busy } } : {}),
    };
    log(
      `${concurrency} at a time: first-token overhead p50 ${level.firstTokenOverheadMs.p50} ms, p99 ${level.firstTokenOverheadMs.p99} ms, ${level.errors} errors; ` +
        `the load's own CPU ${level.loadCpuMsPerTurn} ms per turn; the first wave's first tokens all in by ${level.firstWave?.ms} ms, the machine ${level.firstWave?.machineBusyPercent}% busy`,
    );
    levels.push(level);
  }
  return levels;
}

/**
 * Where the server's CPU goes at the top concurrency: the same turns on a
 * server run under the profiler, self time grouped by package (only the
 * samples taken while the turns ran; start-up and warm-up are left out).
 */
async function profiledTurns(options, name) {
  const dir = path.join(OUT_DIR, "profiles", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const concurrency = LEVELS.at(-1);
  const total = TURNS_AT(concurrency);
  const window = {};
  await withApp({ ...options, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] }, async ({ url: app }) => {
    const cookie = await visitor(app);
    await pool(4, 2, () => timedTurn(app, cookie, { message: { id: randomUUID(), content: "[[bench]] warm up" } }));
    window.from = monotonicMicros();
    await pool(total, concurrency, (i) => timedTurn(app, cookie, { message: { id: randomUUID(), content: `[[bench]] profiled turn ${i}` } }));
    window.to = monotonicMicros();
  });
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`the ${name} server wrote no CPU profile`);
  const groups = cpuByPackage(path.join(dir, file), ROOT, window);
  const top = groups.slice(0, 10);
  const rest = groups.slice(10).reduce((sum, g) => ({ ms: sum.ms + g.ms, share: sum.share + g.share }), { ms: 0, share: 0 });
  const rows = [...top, ...(rest.ms > 0 ? [{ group: `${groups.length - 10} others`, ...rest }] : [])].map((g) => ({
    group: g.group,
    msPerTurn: round(g.ms / total, 1),
    percent: round(g.share * 100, 1),
  }));
  log(`${name} CPU by package: ${rows.slice(0, 4).map((r) => `${r.group} ${r.percent}%`).join(", ")}`);
  return { concurrency, turns: total, profile: path.relative(ROOT, path.join(dir, file)), byPackage: rows };
}

/**
 * Where the shipped server's CPU goes: [[bench]] follow-up turns, 20 at a
 * time, on `npm start`'s workers run under the profiler (every process of the
 * group writes a profile), self time by package summed over all of them.
 */
async function profiledShippedServer(options, workers) {
  const dir = path.join(OUT_DIR, "profiles", "shipped");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const concurrency = Math.min(20, LEVELS.at(-1));
  const total = TURNS_AT(concurrency);
  const window = {};
  await withApp({ ...options, workers, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] }, async (server) => {
    await serverCpu(server, { levels: [concurrency], turnsAt: () => total, cpuMs, onMeasure: (phase) => (window[phase] = monotonicMicros()) });
  });
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length < 2) throw new Error(`the shipped server's ${workers} workers and primary wrote ${files.length} CPU profiles`);
  const summed = new Map();
  for (const file of files) {
    for (const g of cpuByPackage(path.join(dir, file), ROOT, window)) summed.set(g.group, (summed.get(g.group) ?? 0) + g.ms);
  }
  const busy = [...summed.values()].reduce((a, b) => a + b, 0);
  const groups = [...summed].map(([group, ms]) => ({ group, ms })).sort((a, b) => b.ms - a.ms);
  const rows = groups.slice(0, 12).map((g) => ({ group: g.group, msPerTurn: round(g.ms / total, 2), percent: round((g.ms / busy) * 100, 1) }));
  log(`shipped server ([[bench]] follow-ups, ${concurrency} at a time) CPU by package: ${rows.slice(0, 4).map((r) => `${r.group} ${r.percent}%`).join(", ")}`);
  return { concurrency, turns: total, processes: files.length, byPackage: rows };
}

async function roundTrips({ url: app }, counter) {
  const cookie = await visitor(app);
  const runs = quick ? 3 : 10;
  const progress = [];
  const measure = async (turn) => {
    const counts = [];
    for (let i = 0; i < runs; i++) {
      const before = counter.count();
      const writesBefore = counter.progressWrites();
      await turn(i);
      counts.push(counter.count() - before);
      // The last row is written as the stream closes: waited for, so it counts with its turn.
      await new Promise((resolve) => setTimeout(resolve, 50));
      progress.push(counter.progressWrites() - writesBefore);
    }
    return median(counts);
  };
  const say = async (body) => {
    const result = await timedTurn(app, cookie, body);
    if (result.error) throw new Error(result.error);
    return result;
  };
  const first = await say({ message: { id: randomUUID(), content: "[[bench]] a thread for follow-ups" } });
  const newThread = await measure(() => say({ message: { id: randomUUID(), content: "[[bench]] new" } }));
  const database = await measure(() => say({ threadId: first.threadId, message: { id: randomUUID(), content: "[[bench]] from the database" } }));
  // The client path: each follow-up sends the signed copy of the turn before it.
  const seed = { id: randomUUID(), content: "[[bench]] client path" };
  const start = await say({ message: seed });
  let copy = copyOf(start, seed);
  const client = await measure(async () => {
    const message = { id: randomUUID(), content: "[[bench]] with history" };
    const turn = await say({ threadId: start.threadId, message, history: copy });
    if (turn.chunks[0].data.historySource !== "client") throw new Error("the client path was not taken");
    copy = [...copy, ...copyOf(turn, message)];
  });
  const progressWrites = median(progress);
  log(`round trips per turn: new thread ${newThread}, client path ${client}, database path ${database}; progress writes ${progressWrites}`);
  return { newThread, clientPath: client, databasePath: database, progressWrites };
}

/** Fills a thread straight in the database: `count` more messages, alternating user and assistant. */
async function fill(db, threadId, count) {
  await db.query(
    `WITH t AS (SELECT next_seq FROM threads WHERE id = $1)
     , last AS (SELECT message_id FROM messages WHERE thread_id = $1 AND active AND part_index = 0 ORDER BY seq DESC LIMIT 1)
     INSERT INTO messages (thread_id, seq, message_id, kind, content, parent_message_id)
     SELECT $1, t.next_seq + g, 'seed-' || g, CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END,
            'Seeded message number ' || g || ' of a long thread, long enough to look like a real message in a chat.',
            -- Each follows the one before, as a conversation's messages do: one path, no versions.
            CASE WHEN g = 0 THEN (SELECT message_id FROM last) ELSE 'seed-' || (g - 1) END
       FROM t, generate_series(0, $2::int - 1) AS g`,
    [threadId, count],
  );
  await db.query(
    "UPDATE threads SET next_seq = next_seq + $2, message_count = message_count + $2, updated_at = now() WHERE id = $1",
    [threadId, count],
  );
}

async function timeGet(url, cookie, times = quick ? 2 : 5) {
  const runs = [];
  let bytes = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { cookie } });
    bytes = (await response.arrayBuffer()).byteLength;
    if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
    runs.push(performance.now() - started);
  }
  return { ms: round(median(runs)), bytes };
}

async function threadCost({ url: app }, db) {
  const cookie = await visitor(app);
  const measured = {};
  for (const size of [100, BIG]) {
    const turn = await timedTurn(app, cookie, { message: { id: randomUUID(), content: `[[bench]] a thread of ${size}` } });
    await fill(db, turn.threadId, size - 2);
    measured[size] = {
      threadId: turn.threadId,
      page: await timeGet(`${app}/c/${turn.threadId}`, cookie),
      // The paged endpoint the thread page loads earlier messages from (its first page).
      history: await timeGet(`${app}/api/threads/${turn.threadId}/messages`, cookie),
    };
  }
  // The model's window, its last 10 user turns, as a turn after a reload reads it (the adapter's own query).
  for (const size of [100, BIG]) measured[size].window = await windowRead(db, measured[size].threadId);
  const ratio = (key) => round(measured[BIG][key].ms / measured[100][key].ms, 1);
  const windowRatio = round(measured[BIG].window.ms / measured[100].window.ms, 1);
  log(`thread page ${BIG} vs 100 messages: ${ratio("page")}×; history page: ${ratio("history")}×; the model's window: ${windowRatio}×`);
  return { small: 100, big: BIG, ...measured, pageRatio: ratio("page"), historyRatio: ratio("history"), windowRatio };
}

/**
 * The model's window of a thread (its last 10 user turns and what follows
 * each), read by the history adapter itself (loaded from its TypeScript with
 * jiti, as scripts/bench/token-cpu.mjs loads the runtime), straight against
 * the bench's database: the read alone, p50 of many, without a turn's other
 * work (a long thread's compaction would hide it).
 */
async function windowRead(db, threadId) {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, { alias: { "@": ROOT, "server-only": path.join(ROOT, "tests/support/server-only.ts") } });
  const { PostgresHistoryAdapter } = await jiti.import(path.join(ROOT, "packages/history/src/postgres.ts"));
  const { rows } = await db.query("SELECT owner FROM threads WHERE id = $1", [threadId]);
  // get() asks its pool one query: the bench's own connection serves as one.
  const adapter = new PostgresHistoryAdapter(db);
  const times = [];
  for (let i = 0; i < (quick ? 20 : 200); i++) {
    const started = performance.now();
    await adapter.get({ owner: rows[0].owner, threadId, lastUserMessages: 10 });
    times.push(performance.now() - started);
  }
  return { ms: round(median(times), 2) };
}

async function threadListCost({ url: app }, db) {
  const cookie = await visitor(app);
  const turn = await timedTurn(app, cookie, { message: { id: randomUUID(), content: "[[bench]] an owner of many threads" } });
  const { rows } = await db.query("SELECT owner FROM threads WHERE id = $1", [turn.threadId]);
  const owner = rows[0].owner;
  await db.query(
    `INSERT INTO threads (id, owner, title, message_count, updated_at)
     SELECT gen_random_uuid(), $1, 'Seeded thread ' || g, 2, now() - g * interval '1 minute'
       FROM generate_series(1, $2::int) AS g`,
    [owner, BIG],
  );
  const deep = await db.query(
    "SELECT updated_at::text AS at, id FROM threads WHERE owner = $1 ORDER BY updated_at DESC, id DESC OFFSET $2 LIMIT 1",
    [owner, BIG - 100],
  );
  const cursor = Buffer.from(JSON.stringify([deep.rows[0].at, deep.rows[0].id])).toString("base64url");
  const first = await timeGet(`${app}/api/threads?limit=30`, cookie);
  const deepPage = await timeGet(`${app}/api/threads?limit=30&cursor=${cursor}`, cookie);
  log(`thread list of ${BIG}: first page ${first.ms} ms, a deep page ${deepPage.ms} ms`);
  return { threads: BIG, firstPage: first, deepPage };
}

main().catch((error) => {
  console.error("[bench] failed:", error);
  process.exit(1);
});
