// A long run of turns on one production server, watching its resident memory
// and its heap after a full collection: a server that keeps something of every
// turn grows with the number of turns served, where a healthy one levels off
// once its heap has found its size.
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { heapAfterGcMiB } from "./heap.mjs";
import { pool, timedTurn, visitor } from "./turns.mjs";

/** The flavours of turn a soak runs, each on a server of its own. */
export const SOAK_KINDS = {
  // Triage hands over, Researcher calls calculate, then answers from its result: every part of the agent loop.
  offlineTools: {
    label: "offline model, a tool turn (hand-over, then calculate)",
    env: { MODEL_PROVIDER: "offline", MODEL: "" },
    message: (i) => `What is ${i} * 7?`,
  },
  // The OpenAI-compatible provider over HTTP to the mock model: the network path a hosted model takes.
  mockPlain: {
    label: "OpenAI-compatible provider (mock model), a plain reply",
    env: {},
    message: (i) => `[[bench]] soak turn ${i}`,
  },
};

/** The process's resident set size in MiB (Linux /proc), or undefined elsewhere. */
export function rssMiB(pid) {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/**
 * `turns` turns of `kind`, `concurrency` at a time, on a fresh server from
 * `withApp(options)`: its RSS (then its heap after a collection) after
 * warming up, after every `every` turns (counted as they finish), and after
 * `settleMs` idle once the load is over.
 */
export async function soak({ withApp, options, kind, turns, every, concurrency, warmUpTurns, settleMs, log }) {
  const flavour = SOAK_KINDS[kind];
  const nodeArgs = [...(options.nodeArgs ?? []), "--inspect=127.0.0.1:0"];
  return withApp({ ...options, nodeArgs, env: { ...options.env, ...flavour.env } }, async ({ url: app, pid, log: serverLog }) => {
    // RSS first: the collection that reads the heap may hand memory back.
    const sample = async (turns) => ({ turns, rssMiB: rssMiB(pid), heapMiB: await heapAfterGcMiB(serverLog) });
    const cookie = await visitor(app);
    const say = (i) => timedTurn(app, cookie, { message: { id: randomUUID(), content: flavour.message(i) } });
    await pool(warmUpTurns, Math.min(concurrency, warmUpTurns), say);
    const samples = [await sample(0)];
    let done = 0;
    let errors = 0;
    let firstError;
    const started = Date.now();
    await pool(turns, concurrency, async (i) => {
      const result = await say(i);
      if (result.error) {
        errors++;
        firstError ??= result.error;
      }
      if (++done % every === 0 || done === turns) {
        const taken = await sample(done);
        samples.push(taken);
        log(`soak, ${kind}: ${done} turns, RSS ${taken.rssMiB} MiB, heap ${taken.heapMiB} MiB`);
      }
    });
    const seconds = (Date.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const settled = await sample(turns);
    // Growth once warm: from the sample nearest the warm-up mark to the last one.
    const warmMark = Math.min(2 * every, turns);
    const warm = samples.find((s) => s.turns >= warmMark) ?? samples[0];
    const last = samples.at(-1);
    const growth = (key) => (warm[key] === undefined || last[key] === undefined ? null : last[key] - warm[key]);
    const perThousand = (key) => (growth(key) === null || last.turns === warm.turns ? null : Math.round((growth(key) * 1000) / (last.turns - warm.turns)));
    log(
      `soak, ${kind}: RSS ${samples[0].rssMiB} → ${last.rssMiB} MiB over ${turns} turns, ${growth("rssMiB")} MiB from turn ${warm.turns} on, ` +
        `${settled.rssMiB} MiB after ${settleMs / 1000} s idle; heap ${samples[0].heapMiB} → ${last.heapMiB} MiB, ${growth("heapMiB")} MiB from turn ${warm.turns} on`,
    );
    return {
      kind,
      label: flavour.label,
      turns,
      concurrency,
      errors,
      ...(firstError ? { firstError } : {}),
      turnsPerSecond: Number((turns / seconds).toFixed(1)),
      samples,
      growthFrom: warm.turns,
      rssGrowthMiB: growth("rssMiB"),
      rssGrowthMiBPerThousandTurns: perThousand("rssMiB"),
      heapGrowthMiB: growth("heapMiB"),
      heapGrowthMiBPerThousandTurns: perThousand("heapMiB"),
      settleSeconds: settleMs / 1000,
      settled: { rssMiB: settled.rssMiB, heapMiB: settled.heapMiB },
    };
  });
}
