// A long run of turns on one production server, watching its resident memory
// and its heap after a full collection: a server that keeps something of every
// turn grows with the number of turns served, where a healthy one levels off
// once its heap has found its size.
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { startMockMcpServer } from "../mock-mcp-server.mjs";
import { heapAfterGcMiB } from "./heap.mjs";
import { pool, timedTurn, visitor } from "./turns.mjs";

/** The two models the models-and-MCP soak offers (MODELS) and names in turn: both the mock model. */
const SOAK_MODELS = ["openai-compatible:mock-a", "openai-compatible:mock-b"];

/**
 * The flavours of turn a soak runs, each on a server of its own. Optional:
 * `model(i)`, the model the turn names (`model` in the chat body); `mcp`, the
 * mock MCP server's settings (the soak starts one as "notes"); `check(turn, i)`,
 * what a finished turn must hold (else it counts as an error: a turn that
 * finishes on some other path would otherwise pass); `storesUsage`, a run that
 * must leave model_usage rows behind.
 */
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
  // The newest turn path: a model named from MODELS (the two alternate), Triage hands over, Researcher
  // calls an MCP tool (one tools list and one call a turn), and each model call's usage is stored.
  mockModelsMcp: {
    label: "two models from MODELS in turn, an MCP tool call (lookup), usage stored",
    env: { MODEL_PROVIDER: "", MODEL: "", MODELS: SOAK_MODELS.map((id, n) => `${id}=Mock model ${"AB"[n]}`).join(", ") },
    mcp: { autoApprove: ["lookup"] },
    model: (i) => SOAK_MODELS[i % SOAK_MODELS.length],
    message: (i) => `[[call:notes__lookup:{"word":"w${i}"}]]`,
    check: (turn, i) =>
      turn.chunks.some((c) => c.type === "tool-output-available" && JSON.stringify(c.output).includes(`w${i} means something`))
        ? undefined
        : `turn ${i} finished without the lookup's answer: ${JSON.stringify(turn.chunks.filter((c) => c.type.startsWith("tool-"))).slice(0, 300)}`,
    storesUsage: true,
  },
  // The durable runtime: each turn a run of the Inngest stand-in (checkpointed), its chunks published over realtime.
  inngestPlain: {
    label: "Inngest runtime (the stand-in, checkpointed), the mock model's plain reply",
    env: {},
    inngest: true,
    message: (i) => `[[bench]] durable soak turn ${i}`,
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
 * `settleMs` idle once the load is over. `mockModel`: the bench's mock model
 * server, whose record of requests is tallied and emptied as the soak goes.
 */
export async function soak({ withApp, startInngestStandin, options, kind, turns, every, concurrency, warmUpTurns, settleMs, log, mockModel }) {
  const flavour = SOAK_KINDS[kind];
  const mcp = flavour.mcp ? await startMockMcpServer() : undefined;
  const standin = flavour.inngest ? await startInngestStandin(options.port) : undefined;
  try {
    const env = {
      ...options.env,
      ...flavour.env,
      ...(standin ? { INNGEST_DEV: standin.url, INNGEST_DEV_IS_LOCAL: "1" } : {}),
      ...(mcp ? { MCP_SERVERS: JSON.stringify({ mcpServers: { notes: { url: mcp.url, autoApprove: flavour.mcp.autoApprove } } }) } : {}),
    };
    const nodeArgs = [...(options.nodeArgs ?? []), "--inspect=127.0.0.1:0"];
    return await withApp({ ...options, nodeArgs, env }, (server) => soakOn(server, { options, kind, flavour, turns, every, concurrency, warmUpTurns, settleMs, log, mockModel, mcp }));
  } finally {
    await mcp?.close();
    await standin?.stop();
  }
}

async function soakOn({ url: app, pid, log: serverLog }, { options, kind, flavour, turns, every, concurrency, warmUpTurns, settleMs, log, mockModel, mcp }) {
  // RSS first: the collection that reads the heap may hand memory back.
  const sample = async (turns) => ({ turns, rssMiB: rssMiB(pid), heapMiB: await heapAfterGcMiB(serverLog) });
  // The mock servers record every request they answer: over thousands of turns that record would grow
  // the bench's own memory (on the machine the server shares), so it is counted and emptied at each sample.
  const tally = { mcpCalls: 0, modelCalls: {} };
  const drain = () => {
    if (mcp) {
      tally.mcpCalls += mcp.calls.filter((call) => call.tool === "lookup").length;
      mcp.calls.length = 0;
    }
    if (mockModel) {
      for (const { model, kind } of mockModel.usages) {
        tally.modelCalls[model] ??= { answer: 0, title: 0 };
        tally.modelCalls[model][kind] = (tally.modelCalls[model][kind] ?? 0) + 1;
      }
      mockModel.usages.length = 0;
      mockModel.requests.length = 0;
    }
  };
  const cookie = await visitor(app);
  const say = (i) =>
    timedTurn(app, cookie, { ...(flavour.model ? { model: flavour.model(i) } : {}), message: { id: randomUUID(), content: flavour.message(i) } });
  await pool(warmUpTurns, Math.min(concurrency, warmUpTurns), say);
  // A new thread's title is asked for after its finish: a moment for the warm-up's, so they stay out of the tally.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  drain();
  tally.mcpCalls = 0;
  tally.modelCalls = {};
  const samples = [await sample(0)];
  let done = 0;
  let errors = 0;
  let firstError;
  const threadIds = [];
  const started = Date.now();
  await pool(turns, concurrency, async (i) => {
    const result = await say(i);
    const error = result.error ?? flavour.check?.(result, i);
    if (error) {
      errors++;
      firstError ??= error;
    }
    if (result.threadId) threadIds.push(result.threadId);
    if (++done % every === 0 || done === turns) {
      drain();
      const taken = await sample(done);
      samples.push(taken);
      log(`soak, ${kind}: ${done} turns, RSS ${taken.rssMiB} MiB, heap ${taken.heapMiB} MiB${mcp ? `, ${tally.mcpCalls} MCP calls` : ""}${errors ? `, ${errors} errors` : ""}`);
    }
  });
  const seconds = (Date.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const settled = await sample(turns);
  drain();
  // After the settle: a new thread's title, and the title's usage, are stored after its finish.
  const checks = flavour.storesUsage || flavour.mcp || flavour.model ? { ...tally, usage: await usageOf(options.databaseUrl, threadIds) } : undefined;
  if (checks) {
    log(`soak, ${kind}: ${checks.mcpCalls} MCP calls; model calls ${JSON.stringify(checks.modelCalls)}; ${checks.usage.rows} usage rows over ${checks.usage.threads} of ${threadIds.length} threads`);
    if (flavour.storesUsage && checks.usage.rows === 0) log(`soak, ${kind}: NO usage rows stored: the path that stores them is broken`);
    if (flavour.mcp && checks.mcpCalls === 0) log(`soak, ${kind}: the MCP server was never called`);
  }
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
    ...(checks ? { checks } : {}),
  };
}

/** The model_usage rows of the soak's threads, in all and by model: one query. */
async function usageOf(databaseUrl, threadIds) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      // The rollup's row (model null) is the whole: its threads counted once, whichever models wrote them.
      "SELECT model, count(*)::int AS rows, count(DISTINCT thread_id)::int AS threads FROM model_usage WHERE thread_id = ANY($1::uuid[]) GROUP BY ROLLUP (model)",
      [threadIds],
    );
    const all = rows.find((r) => r.model === null) ?? { rows: 0, threads: 0 };
    const byModel = Object.fromEntries(rows.filter((r) => r.model !== null).sort((a, b) => a.model.localeCompare(b.model)).map((r) => [r.model, r.rows]));
    return { rows: all.rows, threads: all.threads, byModel };
  } finally {
    await db.end();
  }
}
