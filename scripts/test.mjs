// The one test command (`npm test`): a type check, a production build (the
// one the integration tests' `npm start` servers and the end-to-end apps
// run), unit + integration tests (Vitest), the end-to-end suite (Playwright)
// against the build, then the fresh-clone tests (Vitest: the quick start and
// the Docker image's steps on a fresh copy of the tree) beside a smoke run of
// the benchmark (`npm run bench -- --quick`, counted as one test). Ends with the time each
// part took ("time: ... in all (tsc ..., vitest ..., ...)"), then a single
// summary line, "tests: N passed, M failed[, K skipped]", and a non-zero exit
// code when any test failed or any step could not run.
//
//   node scripts/test.mjs                    everything
//   node scripts/test.mjs --unit-only        unit and integration only
//   node scripts/test.mjs --fresh-clone-only the fresh-clone tests only
//   node scripts/test.mjs --e2e-only         build + Playwright + the benchmark's smoke run
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { recreateDatabase } from "@threadline/history/migrate";
import { systemChromium } from "./browser.mjs";
import { E2E_APP_ENV, E2E_DATABASE_URL, E2E_EMBEDDED_DIRS } from "./e2e-env.mjs";

const OUTPUT_DIR = ".test-output";
const VITEST_REPORT = path.join(OUTPUT_DIR, "vitest.json");
const BENCH_RESULTS = path.join(OUTPUT_DIR, "bench", "results.json");
const BENCH_LOG = path.join(OUTPUT_DIR, "bench.log");
const FRESH_CLONE_REPORT = path.join(OUTPUT_DIR, "fresh-clone.json");
const E2E_REPORT = path.join(OUTPUT_DIR, "e2e.json"); // written by playwright.config.ts

const args = new Set(process.argv.slice(2));
const only = ["--unit-only", "--fresh-clone-only", "--e2e-only"].find((flag) => args.has(flag));
const runUnit = !only || only === "--unit-only";
const runFreshClone = !only || only === "--fresh-clone-only";
const runE2e = !only || only === "--e2e-only";

/**
 * Runs a command with inherited output, or its output written to `logFile`
 * (a step that runs beside another, whose lines would interleave); resolves
 * with its exit code (a signal counts as failure).
 */
function run(command, commandArgs, env = process.env, logFile) {
  console.log(`\n$ ${[command, ...commandArgs].join(" ")}${logFile ? ` > ${logFile}` : ""}`);
  return new Promise((resolve) => {
    const out = logFile ? openSync(logFile, "w") : undefined;
    const child = spawn(command, commandArgs, { stdio: out === undefined ? "inherit" : ["ignore", out, out], env });
    if (out !== undefined) child.on("close", () => closeSync(out));
    child.on("error", (error) => {
      console.error(`could not start ${command}: ${error.message}`);
      resolve(127);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

async function readJson(file) {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** Every run starts with empty databases; the apps migrate them when they start. */
async function resetE2eDatabase() {
  if (E2E_DATABASE_URL) {
    await recreateDatabase(E2E_DATABASE_URL);
    console.log(`\nreset database ${new URL(E2E_DATABASE_URL).pathname.slice(1)}`);
  } else {
    await Promise.all(E2E_EMBEDDED_DIRS.map((dir) => rm(dir, { recursive: true, force: true })));
    console.log("\nend-to-end apps use embedded Postgres (set E2E_DATABASE_URL for a server)");
  }
}

const totals = { passed: 0, failed: 0, skipped: 0 };
// How long each part took, in the order they ran: the summary says where a slow run spent its time.
const durations = [];

/** Runs `step` and records its wall-clock time under `part`. */
async function timed(part, step) {
  const start = Date.now();
  try {
    return await step();
  } finally {
    durations.push([part, Date.now() - start]);
  }
}

function minutes(ms) {
  const seconds = Math.round(ms / 1_000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}
const problems = [];
// Each failing test by name, printed just above the summary: the end of a long log is what a reader sees.
const failures = [];

// A step that failed without a failing test (a crash, a bad config, a failed
// build) still has to show in the count, or the summary would read as green.
function recordStepFailure(message) {
  problems.push(message);
  totals.failed += 1;
}

/** Runs one Vitest suite (a config file) and adds its results to the totals. */
async function vitestSuite(name, config, report) {
  const exitCode = await run("npx", [
    "vitest",
    "run",
    `--config=${config}`,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
  ]);
  const results = await readJson(report);
  if (!results) return recordStepFailure(`${name}: vitest wrote no report (exit code ${exitCode})`);
  totals.passed += results.numPassedTests ?? 0;
  totals.failed += results.numFailedTests ?? 0;
  totals.skipped += (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
  for (const file of results.testResults ?? []) {
    const where = path.relative(process.cwd(), file.name ?? "");
    const failed = (file.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failed) failures.push(`failed: ${where} › ${test.fullName}${reasonOf(test.failureMessages)}`);
    if (file.status === "failed" && failed.length === 0) failures.push(`failed: ${where} (did not run: ${String(file.message ?? "").split("\n")[0]})`);
  }
  if (exitCode !== 0 && !results.numFailedTests) {
    recordStepFailure(`${name}: vitest exited with code ${exitCode} (${results.numFailedTestSuites ?? 0} test file(s) failed to run)`);
  }
}

/**
 * The production build, once per run: the integration tests that start
 * `npm start` (tests/support/production-app.ts) use the one in place instead
 * of building their own, and the end-to-end apps run it. Resolves with its
 * exit code.
 */
let building;
function productionBuild() {
  // The build sees the same environment as the end-to-end apps it is built for.
  const buildEnv = { ...process.env, ...E2E_APP_ENV };
  delete buildEnv.PORT;
  delete buildEnv.HOSTNAME;
  building ??= timed("build", () => run("npm", ["run", "build", "--silent"], buildEnv));
  return building;
}

/** The build and the Playwright suite; resolves with whether the build is there for the benchmark. */
async function endToEnd() {
  // No Chromium on the machine: fetch Playwright's own (needs internet access).
  if (!systemChromium()) {
    const installExit = await run("npx", ["playwright", "install", "chromium"]);
    if (installExit !== 0) {
      recordStepFailure("no Chromium found and `npx playwright install chromium` failed; end-to-end tests skipped");
      return true;
    }
  }

  const buildExit = await productionBuild();
  if (buildExit !== 0) {
    recordStepFailure(`npm run build failed (exit code ${buildExit}); end-to-end tests and the benchmark skipped`);
    return false;
  }

  try {
    await resetE2eDatabase();
  } catch (error) {
    recordStepFailure(`could not reset the e2e database: ${error.message}; end-to-end tests skipped`);
    return true;
  }

  // Without E2E_DATABASE_URL the apps must not pick up a DATABASE_URL from this shell.
  const playwrightEnv = { ...process.env };
  if (!E2E_DATABASE_URL) delete playwrightEnv.DATABASE_URL;
  const exitCode = await timed("playwright", () => run("npx", ["playwright", "test"], playwrightEnv));
  const report = await readJson(E2E_REPORT);
  if (!report?.stats) {
    recordStepFailure(`playwright wrote no report (exit code ${exitCode})`);
    return true;
  }
  const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = report.stats;
  totals.passed += expected + flaky; // flaky: failed once, then passed on retry
  totals.failed += unexpected;
  totals.skipped += skipped;
  for (const { spec, test } of playwrightTests(report.suites ?? [])) {
    if (test.status === "unexpected" || test.status === "flaky") {
      const reason = reasonOf((test.results ?? []).flatMap((result) => (result.errors ?? []).map((error) => error.message ?? "")));
      failures.push(`${test.status === "flaky" ? "flaky (passed on retry)" : "failed"}: [${test.projectName}] ${spec.file}:${spec.line} › ${spec.title}${reason}`);
    }
  }
  for (const error of report.errors ?? []) problems.push(`playwright: ${error.message?.split("\n")[0]}`);
  if (exitCode !== 0 && !unexpected) {
    recordStepFailure(`playwright exited with code ${exitCode} without a failing test`);
  }
  return true;
}

/**
 * The first lines of why a test failed, indented under its name: CI keeps
 * only the end of a long log, and a name alone does not say which
 * expectation broke (a flake seen once cannot be run again to find out).
 */
function reasonOf(messages, lines = 4) {
  const text = (messages ?? []).map(String).join("\n").replace(/\u001b\[[0-9;]*m/g, "");
  const kept = text.split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() && !/^\s+at /.test(line)).slice(0, lines);
  return kept.length ? `\n${kept.map((line) => `    ${line.slice(0, 300)}`).join("\n")}` : "";
}

/** Every test of a Playwright JSON report, with the spec it belongs to. */
function* playwrightTests(suites) {
  for (const suite of suites) {
    for (const spec of suite.specs ?? []) for (const test of spec.tests ?? []) yield { spec, test };
    yield* playwrightTests(suite.suites ?? []);
  }
}

/**
 * `npm run bench -- --quick` on the build just made: it must run and write
 * its results; no figure is asserted. `logFile`: its output goes there, and
 * is printed whole when it ends.
 */
async function benchSmoke(logFile) {
  await rm(BENCH_RESULTS, { force: true });
  const env = { ...process.env };
  delete env.DATABASE_URL;
  if (E2E_DATABASE_URL) env.BENCH_DATABASE_URL = E2E_DATABASE_URL;
  const exitCode = await run("node", ["scripts/bench.mjs", "--quick"], env, logFile);
  if (logFile) console.log(`\n${(await readFile(logFile, "utf8").catch(() => "")).trimEnd()}`);
  const results = await readJson(BENCH_RESULTS);
  if (exitCode === 0 && results?.targets) totals.passed += 1;
  else {
    totals.failed += 1;
    problems.push(`npm run bench -- --quick failed (exit code ${exitCode}) or wrote no results`);
  }
}

async function main() {
  const start = Date.now();
  await mkdir(OUTPUT_DIR, { recursive: true });
  // Stale reports from an earlier run must never be counted as this run's.
  await Promise.all([VITEST_REPORT, FRESH_CLONE_REPORT, E2E_REPORT].map((report) => rm(report, { force: true })));

  // Type errors first, with their own line in the summary; `next build` would
  // only find them later and skip the suites that need the build.
  if (runUnit) {
    const typecheckExit = await timed("tsc", () => run("npx", ["tsc", "--noEmit"]));
    if (typecheckExit !== 0) recordStepFailure(`tsc --noEmit found type errors (exit code ${typecheckExit})`);
  }
  // Built before the integration tests when the end-to-end suite runs too, so the tree is built once.
  if (runUnit && runE2e) await productionBuild();
  if (runUnit) await timed("vitest", () => vitestSuite("unit and integration", "vitest.config.mts", VITEST_REPORT));
  const built = runE2e && (await endToEnd());
  // The fresh-clone tests spend most of their time on npm's downloads and a
  // build of their own copy, and the benchmark's smoke run asserts no figure:
  // the two run side by side, the benchmark's lines kept apart.
  const bench = built ? timed("bench", () => benchSmoke(runFreshClone ? BENCH_LOG : undefined)) : undefined;
  if (runFreshClone) await timed("fresh clone", () => vitestSuite("fresh clone", "vitest.fresh-clone.config.mts", FRESH_CLONE_REPORT));
  await bench;

  console.log("");
  for (const failure of failures) console.log(failure);
  for (const problem of problems) console.log(`problem: ${problem}`);
  const parts = durations.map(([part, ms]) => `${part} ${minutes(ms)}`).join(", ");
  console.log(`time: ${minutes(Date.now() - start)} in all (${parts})`);
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : "";
  console.log(`tests: ${totals.passed} passed, ${totals.failed} failed${skipped}`);
  process.exitCode = totals.failed > 0 || problems.length > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  console.log(`tests: ${totals.passed} passed, ${totals.failed + 1} failed`);
  process.exitCode = 1;
});
