// The benchmark's results as a table per measurement, each target met or not,
// and the CPU profiles by package: printed, and written to results.md and
// results.json.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BENCH_FIRST_TOKEN_MS, BENCH_TOKEN_GAP_MS, BENCH_TOKENS } from "../mock-model-server.mjs";

const log = (line) => console.log(`[bench] ${line}`);
const round = (n, digits = 0) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);

export function writeReport(results, { quick, root, outDir }) {
  const top = results.turns.at(-1);
  const one = results.turns[0];
  const inngestTop = results.inngestTurns.at(-1);
  const targets = [
    [`${top.concurrency} concurrent turns: 0 errors`, top.errors === 0, `${top.errors} errors`],
    [`${top.concurrency} concurrent: first-token overhead p99 ≤ 250 ms`, top.firstTokenOverheadMs.p99 <= 250, `${top.firstTokenOverheadMs.p99} ms`],
    [`${top.concurrency} concurrent: first-token overhead p50 ≤ 50 ms`, top.firstTokenOverheadMs.p50 <= 50, `${top.firstTokenOverheadMs.p50} ms`],
    ["1 at a time: first-token overhead p50 ≤ 15 ms", one.firstTokenOverheadMs.p50 <= 15, `${one.firstTokenOverheadMs.p50} ms`],
    [`thread page, ${results.threads.big} vs 100 messages ≤ 1.5×`, results.threads.pageRatio <= 1.5, `${results.threads.pageRatio}×`],
    [`history page endpoint, ${results.threads.big} vs 100 messages ≤ 1.5×`, results.threads.historyRatio <= 1.5, `${results.threads.historyRatio}×`],
    ["client-authoritative turn ≤ 3 round trips", results.roundTrips.clientPath <= 3, `${results.roundTrips.clientPath}`],
    ["chat page ≤ 250 KB gzipped JS", results.chatPageJs.gzippedKB <= 250, `${results.chatPageJs.gzippedKB} KB`],
    [
      `Inngest runtime, ${inngestTop.concurrency} concurrent: app CPU per turn ≤ 2× inline`,
      inngestTop.cpuMsPerTurn !== null && inngestTop.cpuMsPerTurn <= 2 * top.cpuMsPerTurn,
      `${inngestTop.cpuMsPerTurn} vs ${top.cpuMsPerTurn} ms (${round(inngestTop.cpuMsPerTurn / top.cpuMsPerTurn, 1)}×)`,
    ],
  ];
  results.targets = targets.map(([target, met, measured]) => ({ target, met, measured }));

  const turnTable = (levels) => [
    "| concurrent turns | turns | errors | first-token overhead p50 / p90 / p99 (ms) | turn overhead p50 / p90 / p99 (ms) | turns/s | CPU ms per turn |",
    "|---|---|---|---|---|---|---|",
    ...levels.map(
      (l) =>
        `| ${l.concurrency} | ${l.turns} | ${l.errors} | ${l.firstTokenOverheadMs.p50} / ${l.firstTokenOverheadMs.p90} / ${l.firstTokenOverheadMs.p99} | ${l.turnOverheadMs.p50} / ${l.turnOverheadMs.p90} / ${l.turnOverheadMs.p99} | ${l.turnsPerSecond} | ${l.cpuMsPerTurn ?? "n/a"} |`,
    ),
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
    "Inngest runtime (against the loopback stand-in of the Inngest server the end-to-end tests use; CPU is the app's only):",
    "",
    ...turnTable(results.inngestTurns),
    "",
    `Database round trips per turn (rate limits off): new thread ${results.roundTrips.newThread}, client path ${results.roundTrips.clientPath}, database path ${results.roundTrips.databasePath}.`,
    "",
    `| thread of | thread page (ms, bytes) | history page endpoint (ms, bytes) |`,
    "|---|---|---|",
    ...[results.threads.small, results.threads.big].map(
      (n) => `| ${n} messages | ${results.threads[n].page.ms}, ${results.threads[n].page.bytes} | ${results.threads[n].history.ms}, ${results.threads[n].history.bytes} |`,
    ),
    "",
    `Thread list of ${results.threadList.threads} threads: first page ${results.threadList.firstPage.ms} ms, a deep page ${results.threadList.deepPage.ms} ms.`,
    "",
    `Chat page JavaScript: ${results.chatPageJs.gzippedKB} KB gzipped in ${results.chatPageJs.files} files.`,
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
    "Inngest runtime:",
    "",
    ...profileTable(results.profiles.inngest),
    "",
  ];
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(outDir, "results.md"), lines.join("\n"));
  console.log(`\n${lines.join("\n")}`);
  log(`written to ${path.relative(root, outDir)}/results.md and results.json`);
}
