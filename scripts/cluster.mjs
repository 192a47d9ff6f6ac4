// `npm start` with more than one server worker: this process (the primary)
// forks workers that each run Next's standalone server.js, and node:cluster
// hands them the connections of the one listening port in turn. A worker that
// dies is replaced, after a pause that grows while they keep dying young, so a
// crash loop does not spin; SIGTERM or SIGINT stops them all gracefully.
// With WORKER_HEADER=1 every response a worker sends names it (X-Worker: scripts/worker-header.mjs).
import cluster from "node:cluster";
import { constants } from "node:os";

const WORKER_PRELOAD = new URL("./worker-header.mjs", import.meta.url).href;

/** How long stopping workers may finish their requests (a reply still streaming) before they are killed; under Docker's 10 s. */
const STOP_GRACE_MS = 8_000;
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 30_000;
/** A worker that lived this long was not part of a crash loop: the pause starts over. */
const STEADY_MS = 60_000;

/**
 * Runs `count` workers of `script` (node options `execArgv`, extra variables
 * `env`). The first starts alone: until it reports its settings checked
 * (instrumentation.ts), its exit is a failed start, said once and passed on;
 * then the rest start. Resolves with the exit code for the primary once every
 * worker has stopped.
 */
export function runWorkers({ script, execArgv, count, env }) {
  cluster.setupPrimary({ exec: script, execArgv: [...execArgv, "--import", WORKER_PRELOAD] });
  return new Promise((resolve) => {
    const born = new Map();
    let configured = false;
    let stopping;
    let youngDeaths = 0;
    let pending;

    const fork = () => {
      const worker = cluster.fork(env);
      born.set(worker, Date.now());
      worker.on("message", (message) => {
        if (message?.threadline !== "configured" || configured) return;
        configured = true;
        console.log(`[threadline] ${count} server workers (WEB_CONCURRENCY, default one per core)`);
        for (let i = 1; i < count; i++) fork();
      });
    };

    cluster.on("exit", (worker, code, signal) => {
      const lived = Date.now() - born.get(worker);
      born.delete(worker);
      if (stopping) {
        if (born.size === 0) resolve(128 + (constants.signals[stopping] ?? 0));
        return;
      }
      if (!configured) {
        resolve(code ?? 1); // the worker said why
        return;
      }
      youngDeaths = lived >= STEADY_MS ? 0 : youngDeaths + 1;
      const pause = Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.max(0, youngDeaths - 1));
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      console.error(`[threadline] server worker ${worker.process.pid} ${how}; a new one starts in ${pause} ms.`);
      pending = setTimeout(() => {
        pending = undefined;
        if (!stopping) fork();
      }, pause);
    });

    const stop = (signal) => {
      if (stopping) return;
      stopping = signal;
      clearTimeout(pending);
      if (born.size === 0) return resolve(128 + constants.signals[signal]);
      for (const worker of born.keys()) worker.process.kill(signal);
      setTimeout(() => {
        for (const worker of born.keys()) {
          console.error(`[threadline] server worker ${worker.process.pid} did not stop within ${STOP_GRACE_MS / 1000} s: killing it.`);
          worker.process.kill("SIGKILL");
        }
      }, STOP_GRACE_MS).unref();
    };
    for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stop(signal));

    fork();
  });
}
