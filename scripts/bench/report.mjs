// The benchmark's results as a table per measurement, each target met or not,
// the CPU profiles by package, and the server's memory over a soak: printed,
// and written to results.md and results.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BENCH_FIRST_TOKEN_MS, BENCH_TOKEN_GAP_MS, BENCH_TOKENS } from "../mock-model-server.mjs";
import { SPEND_HEADING, spendSection } from "./spend-report.mjs";

const log = (line) => console.log(`[bench] ${line}`);
const round = (n, digits = 0) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);

/** Requests to the app, steps and checkpoints per chat turn run, by mode (what the stand-in saw over the turns above). */
function inngestRunsSection(byMode) {
  if (!byMode) return [];
  const per = (n, runs) => (runs ? round(n / runs, 1) : "n/a");
  return [
    "| Inngest mode | runs | failed | requests to the app per run | steps per run | checkpoint calls per run | realtime publishes per run |",
    "|---|---|---|---|---|---|---|",
    ...Object.entries(byMode).map(
      ([mode, r]) =>
        `| ${mode} | ${r.runs} | ${r.failed} | ${per(r.appRequests, r.runs)} | ${per(r.steps, r.runs)} | ${per(r.checkpoints, r.runs)} | ${r.publishes === undefined ? "n/a" : per(r.publishes, r.runs)} |`,
    ),
    "",
  ];
}

/** How long each reply's finish came after its last token, new threads (which the model titles) and later turns apart. */
function finishSection(levels) {
  if (!levels) return [];
  return [
    "The finish after the last token (inline; a new thread's first message, which the model titles after the finish with a call of its own, and each thread's next message; the model's calls as the mock counted them):",
    "",
    "| concurrent turns | turns of each | errors | new threads p50 / p99 (ms) | later turns p50 / p99 (ms) | answer calls | title calls |",
    "|---|---|---|---|---|---|---|",
    ...levels.map(
      (l) =>
        `| ${l.concurrency} | ${l.turns} | ${l.errors} | ${l.newThreads.p50} / ${l.newThreads.p99} | ${l.laterTurns.p50} / ${l.laterTurns.p99} | ${l.modelCalls.answer} | ${l.modelCalls.title} |`,
    ),
    "",
  ];
}

/**
 * The issue's targets for the server as shipped (`npm start`'s workers, CPU
 * of the whole process group), where the run measured it (a Postgres server:
 * the embedded database keeps one worker).
 */
function shippedTargets(results) {
  const perCore = results.turnsPerCore;
  const trips = results.roundTrips;
  const targets = [
    [
      "≤ 3 database statements a turn waits on (new thread, client path, database path)",
      Math.max(trips.newThread, trips.clientPath, trips.databasePath) <= 3,
      `${trips.newThread} / ${trips.clientPath} / ${trips.databasePath}`,
    ],
    ["0 progress writes for a turn nobody watches", trips.progressWrites === 0, `${trips.progressWrites}`],
  ];
  if (!perCore?.cpu) return targets;
  const top = perCore.levels.at(-1);
  const at20 = perCore.cpu.find((l) => l.concurrency === 20) ?? perCore.cpu.at(-1);
  const provider = results.tokenPath?.atServerShape?.provider;
  return [
    ...targets,
    [
      `as shipped (${perCore.workers} workers), ${top.concurrency} concurrent: first-token overhead p99 ≤ 250 ms`,
      top.firstTokenOverheadMs.p99 <= 250,
      `${top.firstTokenOverheadMs.p99} ms${top.firstWave ? ` (the machine ${top.firstWave.machineBusyPercent}% busy until the first wave's last first token)` : ""}`,
    ],
    [
      `as shipped, ${at20.concurrency} concurrent: ≤ 0.1 ms of whole-server CPU per further token`,
      at20.perTokenMs !== null && at20.perTokenMs <= 0.1,
      `${at20.perTokenMs} ms${provider ? ` (the provider's stream alone: ${provider.perTokenMs} ms)` : ""}`,
    ],
    [
      `as shipped, ${at20.concurrency} concurrent: a one-token follow-up turn ≤ 5 ms of whole-server CPU`,
      at20.oneTokenTurnCpuMs !== null && at20.oneTokenTurnCpuMs <= 5,
      `${at20.oneTokenTurnCpuMs} ms${provider ? ` (the provider's call alone: ${provider.oneTokenTurnMs} ms)` : ""}`,
    ],
  ];
}

/** The whole server's CPU per turn and per token, beside the inner loop's, in this process. */
function serverCpuSection(results) {
  const cpu = results.turnsPerCore?.cpu;
  if (!cpu) return [];
  return [
    `The whole server as shipped (\`npm start\`: ${results.turnsPerCore.workers} workers, titles on; rate limits off for the load; CPU of the primary and its workers together), follow-up turns sent with the page's signed copy:`,
    "",
    "| concurrent turns | turns of each kind | CPU per one-token turn (ms) | CPU per [[bench]] turn (ms) | CPU per further token (ms) | of it beyond the idle server's (ms) | idle server (CPU ms per s) | first-token overhead p50 / p99 (ms) |",
    "|---|---|---|---|---|---|---|---|",
    ...cpu.map(
      (l) =>
        `| ${l.concurrency} | ${l.turns} | ${l.oneTokenTurnCpuMs} | ${l.benchTurnCpuMs} | ${l.perTokenMs} | ${l.perTokenBeyondIdleMs} | ${l.idleCpuMsPerSecond} | ${l.firstTokenOverheadMs.p50} / ${l.firstTokenOverheadMs.p99} |`,
    ),
    "",
    `The inner loop, for comparison: a further token costs ${results.tokenPath?.perTokenMs ?? "n/a"} ms in one process with an in-memory history (scripts/bench/token-cpu.mjs); a one-token follow-up turn ${results.oneTokenTurn?.followUp.cpuMsPerTurn ?? "n/a"} ms on one server process, one turn at a time.`,
    "",
    ...layersSection(results, cpu),
  ];
}

/**
 * A token and a one-token turn at the shipped server's shape, layer by layer:
 * the provider's stream alone (what any app on the AI SDK pays), the app's
 * inner loop on top of it, then the whole server, so what each layer adds
 * can be read off.
 */
function layersSection(results, cpu) {
  const shape = results.tokenPath?.atServerShape;
  const server = cpu.find((l) => l.concurrency === shape?.app.turnsAtOnce);
  if (!shape || !server) return [];
  const { provider, app } = shape;
  return [
    `Where a token and a one-token turn go, ${app.turnsAtOnce} at once, tokens ${app.gapMs} ms apart (scripts/bench/token-cpu.mjs, in this process, for the first two rows):`,
    "",
    "| layer | CPU per further token (ms) | CPU per one-token turn (ms) |",
    "|---|---|---|",
    `| the provider's stream alone: the AI SDK's OpenAI-compatible provider read to its end, no app | ${provider.perTokenMs} | ${provider.oneTokenTurnMs} |`,
    `| the app's inner loop: the inline runtime with an in-memory history, the chat response's bytes, no Next, no database | ${app.perTokenMs} | ${app.oneTokenTurnMs} |`,
    `| the whole server as shipped: ${results.turnsPerCore.workers} workers, Next, Postgres, the signed copy checked | ${server.perTokenMs} | ${server.oneTokenTurnCpuMs} |`,
    "",
  ];
}

/** How long a reload waits for a running reply, on one server and on the workers. */
function resumeSection(resume, perCore) {
  if (!resume) return [];
  const row = (where, r) => `| ${where} | ${r.runs} | ${r.firstEventMs.p50} / ${r.firstEventMs.max} | ${r.caughtUpMs.p50} / ${r.caughtUpMs.max} |`;
  return [
    `A reload ${resume.afterTokens} tokens into a reply nobody else watched (GET /api/threads/:id/stream, timed from the request; caught up: the resumed stream holds every token the original had then):`,
    "",
    "| server | reloads | first event p50 / max (ms) | caught up p50 / max (ms) |",
    "|---|---|---|---|",
    row("one process", resume),
    ...(perCore?.resume ? [row(`${perCore.workers} workers`, perCore.resume)] : []),
    "",
  ];
}

export function writeReport(results, { quick, root, outDir }) {
  const top = results.turns.at(-1);
  const one = results.turns[0];
  const inngestTop = results.inngestTurns.at(-1);
  // The server runs on the bench's own node; Node 24's cheaper streams and promises make its bound the tighter.
  const nodeMajor = Number(results.node.slice(1).split(".")[0]);
  const inlineCpuLimit = nodeMajor >= 24 ? 12 : 25;
  const targets = [
    [`${top.concurrency} concurrent turns: 0 errors`, top.errors === 0, `${top.errors} errors`],
    [`${top.concurrency} concurrent: first-token overhead p99 ≤ 250 ms`, top.firstTokenOverheadMs.p99 <= 250, `${top.firstTokenOverheadMs.p99} ms`],
    [`${top.concurrency} concurrent: first-token overhead p50 ≤ 50 ms`, top.firstTokenOverheadMs.p50 <= 50, `${top.firstTokenOverheadMs.p50} ms`],
    ["1 at a time: first-token overhead p50 ≤ 15 ms", one.firstTokenOverheadMs.p50 <= 15, `${one.firstTokenOverheadMs.p50} ms`],
    ...(results.oneTokenTurn
      ? [["a one-token turn ≤ 5 ms of app CPU", results.oneTokenTurn.followUp.cpuMsPerTurn <= 5, `${results.oneTokenTurn.followUp.cpuMsPerTurn} ms`]]
      : []),
    [`thread page, ${results.threads.big} vs 100 messages ≤ 1.5×`, results.threads.pageRatio <= 1.5, `${results.threads.pageRatio}×`],
    [`history page endpoint, ${results.threads.big} vs 100 messages ≤ 1.5×`, results.threads.historyRatio <= 1.5, `${results.threads.historyRatio}×`],
    ...(results.threads.windowRatio !== undefined
      ? [[`the model's window (last 10 user turns), ${results.threads.big} vs 100 messages ≤ 1.5×`, results.threads.windowRatio <= 1.5, `${results.threads.windowRatio}×`]]
      : []),
    ["client-authoritative turn ≤ 3 round trips", results.roundTrips.clientPath <= 3, `${results.roundTrips.clientPath}`],
    ...(results.budgetCheck ? [["the budgets' check, reservation and settlement of a one-call turn < 1 ms", results.budgetCheck.perTurnMs < 1, `${results.budgetCheck.perTurnMs} ms`]] : []),
    [
      "thread page with messages ≤ 250 KB gzipped JS fetched by the browser",
      results.chatPageJs.thread.gzippedKB <= 250,
      `${results.chatPageJs.thread.gzippedKB} KB`,
    ],
    [
      `Inngest runtime (checkpointed), ${inngestTop.concurrency} concurrent: app CPU per turn ≤ 1.5× inline`,
      inngestTop.cpuMsPerTurn !== null && top.cpuMsPerTurn !== null && inngestTop.cpuMsPerTurn <= 1.5 * top.cpuMsPerTurn,
      `${inngestTop.cpuMsPerTurn} vs ${top.cpuMsPerTurn} ms (${round(inngestTop.cpuMsPerTurn / top.cpuMsPerTurn, 2)}×)`,
    ],
    [
      `inline runtime, ${top.concurrency} concurrent: ≤ ${inlineCpuLimit} ms of app CPU per turn (${nodeMajor >= 24 ? "Node 24" : "Node 20"}'s target)`,
      top.cpuMsPerTurn !== null && top.cpuMsPerTurn <= inlineCpuLimit,
      `${top.cpuMsPerTurn ?? "n/a"} ms`,
    ],
    ...(results.tokenPath
      ? [["each further token ≤ 0.1 ms of app CPU", results.tokenPath.perTokenMs <= 0.1, `${results.tokenPath.perTokenMs} ms`]]
      : []),
  ];
  targets.push(...shippedTargets(results));
  results.targets = targets.map(([target, met, measured]) => ({ target, met, measured }));

  const turnTable = (levels) => [
    "| concurrent turns | turns | errors | first-token overhead p50 / p90 / p99 (ms) | turn overhead p50 / p90 / p99 (ms) | turns/s | CPU ms per turn | the load's CPU ms per turn | first wave: every first token by (ms), machine busy |",
    "|---|---|---|---|---|---|---|---|---|",
    ...levels.map(
      (l) =>
        `| ${l.concurrency} | ${l.turns} | ${l.errors} | ${l.firstTokenOverheadMs.p50} / ${l.firstTokenOverheadMs.p90} / ${l.firstTokenOverheadMs.p99} | ${l.turnOverheadMs.p50} / ${l.turnOverheadMs.p90} / ${l.turnOverheadMs.p99} | ${l.turnsPerSecond} | ${l.cpuMsPerTurn ?? "n/a"} | ${l.loadCpuMsPerTurn ?? "n/a"} | ${l.firstWave ? `${l.firstWave.ms}, ${l.firstWave.machineBusyPercent}%` : "n/a"} |`,
    ),
  ];
  const perCore = results.turnsPerCore;
  const perCoreSection = !perCore
    ? []
    : perCore.skipped
      ? [`One worker per core (${perCore.workers}): not measured, ${perCore.skipped}.`, ""]
      : [
          `Inline runtime, one server process beside \`npm start\`'s ${perCore.workers} workers (one per core, a pool of ${results.poolSize} in all, shared among them):`,
          "",
          `| concurrent turns | first-token overhead p50 / p99 (ms): 1 worker | ${perCore.workers} workers | turns/s: 1 worker | ${perCore.workers} workers | errors: 1 worker | ${perCore.workers} workers |`,
          "|---|---|---|---|---|---|---|",
          ...results.turns.map((one) => {
            const many = perCore.levels.find((l) => l.concurrency === one.concurrency);
            return `| ${one.concurrency} | ${one.firstTokenOverheadMs.p50} / ${one.firstTokenOverheadMs.p99} | ${many.firstTokenOverheadMs.p50} / ${many.firstTokenOverheadMs.p99} | ${one.turnsPerSecond} | ${many.turnsPerSecond} | ${one.errors} | ${many.errors} |`;
          }),
          "",
          `${perCore.workers} workers, in full (CPU: the primary and its workers together):`,
          "",
          ...turnTable(perCore.levels),
          "",
        ];
  const profileTable = ({ byPackage }) => [
    "| package (self time) | CPU ms per turn | share |",
    "|---|---|---|",
    ...byPackage.map((r) => `| ${r.group} | ${r.msPerTurn} | ${r.percent}% |`),
  ];
  const lines = [
    `# Benchmark results${quick ? " (quick smoke run: small samples, not the figures)" : ""}`,
    "",
    `${results.when} · Node ${results.node} · database: ${results.database} · model: ${BENCH_FIRST_TOKEN_MS} ms to the first of ${BENCH_TOKENS} tokens, ${BENCH_TOKEN_GAP_MS} ms apart`,
    "",
    "Inline runtime (the default):",
    "",
    ...turnTable(results.turns),
    "",
    ...finishSection(results.finishAfterLastToken),
    ...perCoreSection,
    "Inngest runtime (against the loopback stand-in of the Inngest server the end-to-end tests use; CPU is the app's only), checkpointed (the SDK's default):",
    "",
    ...turnTable(results.inngestTurns),
    "",
    ...(results.inngestAsyncTurns
      ? ["Inngest runtime with checkpointing off (INNGEST_CHECKPOINTING=0: one request per step):", "", ...turnTable(results.inngestAsyncTurns), ""]
      : []),
    ...inngestRunsSection(results.inngestRuns),
    `Database round trips per turn (rate limits off): new thread ${results.roundTrips.newThread}, client path ${results.roundTrips.clientPath}, database path ${results.roundTrips.databasePath}; besides, writes of the reply's progress for a resume (no turn waits for them; made only while someone asks): ${results.roundTrips.progressWrites ?? "n/a"} per turn.`,
    "",
    ...resumeSection(results.resume, perCore),
    ...serverCpuSection(results),
    `| thread of | thread page (ms, bytes) | history page endpoint (ms, bytes) | the model's window, last 10 user turns (ms, p50) |`,
    "|---|---|---|---|",
    ...[results.threads.small, results.threads.big].map(
      (n) =>
        `| ${n} messages | ${results.threads[n].page.ms}, ${results.threads[n].page.bytes} | ${results.threads[n].history.ms}, ${results.threads[n].history.bytes} | ${results.threads[n].window?.ms ?? "n/a"} |`,
    ),
    "",
    ...(results.oneTokenTurn
      ? [
          `A one-token turn (the model answers one token at once; ${results.oneTokenTurn.followUp.turns} sequential turns, scripts/bench/one-token-turn.mjs): ` +
            `app CPU ${results.oneTokenTurn.followUp.cpuMsPerTurn} ms per turn as a thread's second message, ${results.oneTokenTurn.newThread.cpuMsPerTurn} ms as a new thread's first (which the model also titles); ` +
            `first token p50 ${results.oneTokenTurn.followUp.firstTokenMs.p50} ms and ${results.oneTokenTurn.newThread.firstTokenMs.p50} ms.`,
          "",
        ]
      : []),
    ...(results.tokenPath
      ? [
          `Each further token (scripts/bench/token-cpu.mjs: turns of 1 and of ${results.tokenPath.tokens} tokens, ${results.tokenPath.turnsAtOnce} at once, the inline runtime in the bench's own process): ` +
            `${results.tokenPath.perTokenMs} ms of app CPU per token; a one-token turn there, without Next or a database, ${results.tokenPath.oneTokenTurnMs} ms.`,
          "",
        ]
      : []),
    `Thread list of ${results.threadList.threads} threads: first page ${results.threadList.firstPage.ms} ms, a deep page ${results.threadList.deepPage.ms} ms.`,
    "",
    ...(results.budgetCheck
      ? [
          `Budgets, for a person with ${results.budgetCheck.callsBehind} calls this month (p50 / p95 of ${results.budgetCheck.iterations}, one round trip each): the check before a turn ${results.budgetCheck.status.p50} / ${results.budgetCheck.status.p95} ms, ` +
            `a call's reservation ${results.budgetCheck.reserve.p50} / ${results.budgetCheck.reserve.p95} ms, its settlement ${results.budgetCheck.settle.p50} / ${results.budgetCheck.settle.p95} ms: ${results.budgetCheck.perTurnMs} ms for a turn of one call.`,
          "",
        ]
      : []),
    ...(results.shareOpen
      ? [
          `A share link's public page over HTTP with no cookie (p50 / p95 of ${results.shareOpen.rounds} each, in turn): live ${results.shareOpen.live.p50} / ${results.shareOpen.live.p95} ms, ` +
            `revoked (410) ${results.shareOpen.gone.p50} / ${results.shareOpen.gone.p95} ms, unknown (404) ${results.shareOpen.unknown.p50} / ${results.shareOpen.unknown.p95} ms: ` +
            `the 410 and the 404 ${Math.abs(results.shareOpen.goneMinusUnknownP50)} ms apart at the median.`,
          "",
        ]
      : []),
    ...(results.memoryTurn ? [memoryLine(results.memoryTurn), ""] : []),
    pageJsLine(results.chatPageJs),
    "",
    "| target | met | measured |",
    "|---|---|---|",
    ...results.targets.map((t) => `| ${t.target} | ${t.met ? "yes" : "no"} | ${t.measured} |`),
    "",
    `Where the app's CPU goes at ${results.profiles.inline.concurrency} concurrent turns (a profiled run of ${results.profiles.inline.turns} turns, self time by package; "native" is V8 and the event loop outside JavaScript):`,
    "",
    "Inline runtime:",
    "",
    ...profileTable(results.profiles.inline),
    "",
    "Inngest runtime, checkpointed:",
    "",
    ...profileTable(results.profiles.inngest),
    "",
    ...(results.profiles.inngestAsync ? ["Inngest runtime, checkpointing off:", "", ...profileTable(results.profiles.inngestAsync), ""] : []),
    ...(results.profiles.oneTokenTurn
      ? [
          `What bounds a one-token turn (a thread's second message; a profiled run of ${results.profiles.oneTokenTurn.turns} sequential turns, self time by package; the profiler's own cost makes these a little higher than the figure above):`,
          "",
          ...profileTable(results.profiles.oneTokenTurn),
          "",
        ]
      : []),
    ...(results.profiles.shipped
      ? [
          `What holds the shipped server (\`npm start\`'s ${results.profiles.shipped.processes} processes, their profiles summed; [[bench]] follow-up turns, ${results.profiles.shipped.concurrency} at a time, ${results.profiles.shipped.turns} of them; self time by package):`,
          "",
          ...profileTable(results.profiles.shipped),
          "",
        ]
      : []),
    ...soakSection(results.soak),
    ...spendSection(results.spend),
  ];
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(outDir, "results.md"), lines.join("\n"));
  console.log(`\n${lines.join("\n")}`);
  log(`written to ${path.relative(root, outDir)}/results.md and results.json`);
}

/** What a person's memories add to a turn's first token, and the largest request a lesson sent. */
export function memoryLine({ turns, firstTokenMs, lessons, largestLessonChars }) {
  return (
    `Memory, one-token turns on new threads (p50 / p95 of ${turns} each, in turn): first token ${firstTokenMs.noMemories.p50} / ${firstTokenMs.noMemories.p95} ms for a person with no memories, ` +
    `${firstTokenMs.fiveHundredMemories.p50} / ${firstTokenMs.fiveHundredMemories.p95} ms for one with 500 of 400 characters; the largest of ${lessons} lessons' requests ${largestLessonChars} characters.`
  );
}

/** What a thread's page makes the browser fetch, and what the HTML of `/` names. */
function pageJsLine({ thread, plainThread, html }) {
  return (
    `Chat page JavaScript: a thread's page with messages (one of them formatted) makes the browser fetch ${thread.gzippedKB} KB gzipped in ${thread.files} scripts; ` +
    `one of plain prose only, ${plainThread.gzippedKB} KB in ${plainThread.files} (the HTML of \`/\` names ${html.gzippedKB} KB in ${html.files}).`
  );
}

/** The page's JavaScript alone (--js-only), script by script. */
export function printPageJs(pageJs) {
  const lines = [pageJsLine(pageJs), "", "| script | KB gzipped |", "|---|---|", ...pageJs.thread.scripts.map((s) => `| ${s.src} | ${s.gzippedKB} |`)];
  console.log(`\n${lines.join("\n")}`);
}

const SOAK_HEADING = "## Memory over a soak";

/** The soak's samples, one column per kind of turn; the growth once warm, and after the load. */
function soakSection(soak) {
  if (!soak) return [];
  const { runs } = soak;
  const first = runs[0];
  const at = (run, turns) => {
    const sample = run.samples.find((s) => s.turns === turns);
    return sample ? `${sample.rssMiB} / ${sample.heapMiB}` : "";
  };
  const counts = [...new Set(runs.flatMap((run) => run.samples.map((s) => s.turns)))].sort((a, b) => a - b);
  return [
    SOAK_HEADING,
    "",
    `Node ${soak.node} · ${first.turns} turns per run, ${first.concurrency} at a time, each run on a fresh production server (inline runtime, unless the run says Inngest). ` +
      "The server's resident memory (RSS) and its JavaScript heap after a full collection, in MiB, after a warm-up of 20 turns, " +
      "then as the turns finish, and once idle after the load:",
    "",
    `| turns | ${runs.map((run) => `${run.label}: RSS / heap`).join(" | ")} |`,
    `|---|${runs.map(() => "---|").join("")}`,
    ...counts.map((turns) => `| ${turns} | ${runs.map((run) => at(run, turns)).join(" | ")} |`),
    `| ${first.settleSeconds} s after the load | ${runs.map((run) => `${run.settled.rssMiB} / ${run.settled.heapMiB}`).join(" | ")} |`,
    "",
    "| run | errors | turns/s | growth from the warm-up mark to the end: RSS / heap | per 1,000 turns: RSS / heap |",
    "|---|---|---|---|---|",
    ...runs.map(
      (run) =>
        `| ${run.label} | ${run.errors} | ${run.turnsPerSecond} | ${run.rssGrowthMiB} / ${run.heapGrowthMiB} MiB (turn ${run.growthFrom} → ${run.turns}) | ` +
        `${run.rssGrowthMiBPerThousandTurns ?? "n/a"} / ${run.heapGrowthMiBPerThousandTurns ?? "n/a"} MiB |`,
    ),
    "",
    ...runs.filter((run) => run.checks).flatMap((run) => [soakChecksLine(run), ""]),
  ];
}

/** What a soak's turns did besides answering: the MCP calls the server saw, the model calls the mock saw, the usage rows stored. */
function soakChecksLine({ label, turns, checks }) {
  const models = Object.entries(checks.modelCalls)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([model, kinds]) => `${model} ${Object.entries(kinds).map(([kind, n]) => `${n} ${kind}`).join(" + ")}`)
    .join(", ");
  const usage = Object.entries(checks.usage.byModel).map(([model, n]) => `${model} ${n}`).join(", ");
  return (
    `${label}: over the ${turns} turns, ${checks.mcpCalls} calls reached the MCP server; requests to the mock model: ${models || "none"}; ` +
    `model_usage holds ${checks.usage.rows} rows for ${checks.usage.threads} of the run's threads${usage ? ` (${usage})` : ""}.`
  );
}

/**
 * A soak run alone (--soak-only): its section replaces the one in results.md
 * (or is added), and its figures the `soak` of results.json; the rest of
 * both files stays as the last full run wrote it.
 */
export function writeSoakReport(results, { root, outDir }) {
  writePart({ key: "soak", value: { when: results.when, ...results.soak }, heading: SOAK_HEADING, section: soakSection(results.soak) }, { root, outDir });
}

/** The spend report alone (--spend-only), written as a soak alone is. */
export function writeSpendReport(results, { root, outDir }) {
  writePart({ key: "spend", value: { when: results.when, ...results.spend }, heading: SPEND_HEADING, section: spendSection(results.spend) }, { root, outDir });
}

/** One part of the results (its section under `heading`, its figures under `key`) in place of the one written before, the rest kept. */
function writePart({ key, value, heading, section }, { root, outDir }) {
  mkdirSync(outDir, { recursive: true });
  const jsonFile = path.join(outDir, "results.json");
  const mdFile = path.join(outDir, "results.md");
  const json = existsSync(jsonFile) ? JSON.parse(readFileSync(jsonFile, "utf8")) : {};
  json[key] = value;
  writeFileSync(jsonFile, `${JSON.stringify(json, null, 2)}\n`);
  const md = existsSync(mdFile) ? readFileSync(mdFile, "utf8") : "# Benchmark results\n\n";
  const start = md.indexOf(`${heading}\n`);
  const next = start < 0 ? -1 : md.indexOf("\n## ", start + heading.length);
  const before = start < 0 ? `${md.trimEnd()}\n\n` : md.slice(0, start);
  const after = next < 0 ? "" : md.slice(next + 1);
  writeFileSync(mdFile, `${before}${section.join("\n")}${after ? `\n${after}` : ""}`);
  console.log(`\n${section.join("\n")}`);
  log(`${key} written to ${path.relative(root, outDir)}/results.md and results.json`);
}
