// CPU per token of the token path, in this process: the real provider code
// reads the mock model server (a child process, so its CPU is not counted)
// over HTTP, the inline runtime runs the turn with an in-memory history, and
// the chat response's body is read to its end. Turns of 1 token and of
// `--tokens` tokens are run `--turns` at a time; what the longer turns cost
// beyond the short ones, per extra token, is the token path's price.
//
//   node scripts/bench/token-cpu.mjs [--tokens 1000] [--turns 10] [--rounds 3] [--gap-ms 1] [--provider-only] [--cpu-prof]
//
// Prints one JSON line; `perTokenMs` is the number to watch. `--cpu-prof`
// writes a profile of the long turns (scripts/bench/cpu-profile.mjs reads it).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

process.env.NODE_ENV ??= "production"; // no development logs
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * `providerOnly`: no app at all, only the provider's stream of each answer
 * read to its end (what any app on the AI SDK pays per token: the HTTP read,
 * its web streams, the SSE parser and each event's schema check).
 */
export async function tokenCpu({ tokens = 1000, turns = 10, rounds = 3, gapMs = 1, providerOnly = false, profile } = {}) {
  const jiti = createJiti(import.meta.url, {
    alias: { "@": root, "server-only": path.join(root, "tests/support/server-only.ts") },
  });
  const { InlineRuntime } = await jiti.import(path.join(root, "lib/runtime/inline.ts"));
  const { ActiveTurns } = await jiti.import(path.join(root, "lib/runtime/active-turns.ts"));
  const { TurnStops } = await jiti.import(path.join(root, "lib/runtime/turn-stops.ts"));
  const { createNetwork } = await jiti.import(path.join(root, "lib/agent/network/network.ts"));
  const { uiMessageStreamResponse } = await jiti.import(path.join(root, "lib/http/ui-stream-response.ts"));
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");

  const mock = await startMock(gapMs);
  try {
    const model = createOpenAICompatible({ name: "openai-compatible", baseURL: mock.url, includeUsage: true })("mock-model");
    const network = createNetwork({ agents: [{ name: "Answerer", system: "Answer." }], model });
    const active = new ActiveTurns();
    const runtime = new InlineRuntime(
      { history: () => memoryHistory(), network: () => network, sessionSecret: async () => "x".repeat(32) },
      active,
      new TurnStops(active, () => undefined),
    );
    let n = 0;
    const appTurn = async (content) => {
      const started = await runtime.start({ owner: "bench", threadId: crypto.randomUUID(), message: { id: `m${++n}`, role: "user", content } });
      const body = uiMessageStreamResponse(started.stream, {}).body;
      let bytes = 0;
      for await (const chunk of body) bytes += chunk.byteLength;
      return bytes;
    };
    const providerTurn = async (content) => {
      const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: content }] }], includeRawChunks: false });
      let parts = 0;
      for await (const _ of stream) parts++;
      return parts;
    };
    const turn = providerOnly ? providerTurn : appTurn;
    const batch = async (content) => {
      const before = process.cpuUsage();
      const bytes = await Promise.all(Array.from({ length: turns }, () => turn(content)));
      const used = process.cpuUsage(before);
      return { cpuMs: (used.user + used.system) / 1000 / turns, bytes: bytes[0] };
    };
    // Warm up: the first turns compile everything.
    await batch("[[tokens:1]]");
    await batch(`[[tokens:${tokens}]]`);
    const short = [];
    const long = [];
    for (let round = 0; round < rounds; round++) {
      short.push((await batch("[[tokens:1]]")).cpuMs);
      if (profile && round === rounds - 1) await profile.start();
      long.push((await batch(`[[tokens:${tokens}]]`)).cpuMs);
      if (profile && round === rounds - 1) await profile.stop();
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const shortMs = median(short);
    const longMs = median(long);
    return {
      node: process.version,
      tokens,
      turnsAtOnce: turns,
      gapMs,
      providerOnly,
      oneTokenTurnMs: round2(shortMs),
      longTurnMs: round2(longMs),
      perTokenMs: Math.round(((longMs - shortMs) / (tokens - 1)) * 10_000) / 10_000,
    };
  } finally {
    mock.child.kill();
  }
}

const round2 = (x) => Math.round(x * 100) / 100;

/** The mock model server in a child process, on a free port. */
async function startMock(gapMs) {
  const child = spawn(process.execPath, ["-e", `import("${path.join(root, "scripts/mock-model-server.mjs")}").then(m => m.startMockModelServer()).then(s => console.log(s.url))`], {
    env: { ...process.env, MOCK_CHUNK_DELAY_MS: String(gapMs) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = await once(child.stdout, "data");
  return { child, url: String(line).trim() };
}

/** A turn store that keeps nothing: every turn claims its message at once. The bench is about the stream, not the database. */
function memoryHistory() {
  return {
    turns: {
      openTurn: async ({ threadId }) => ({ threadId, created: true, messages: 0, claim: { claimed: true }, userSeq: 1, userParentId: null }),
      claimTurn: async () => ({ claimed: true }),
      renewTurn: async () => ({ held: true, stopRequested: false }),
      requestStop: async () => [],
      stopRequested: async () => false,
      finishTurn: async () => {},
      replyTo: async () => ({ message: null, reply: null }),
    },
    summaries: { latest: async () => null, append: async () => null },
    titles: { storeModelTitle: async () => false },
    get: async () => [],
    appendUserMessage: async () => ({ duplicate: false, seq: 1 }),
    appendResults: async () => ({ seq: 2, parentId: null }),
  };
}

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let profile;
  if (process.argv.includes("--cpu-prof")) {
    const session = new Session();
    session.connect();
    profile = {
      start: async () => {
        await session.post("Profiler.enable");
        await session.post("Profiler.start");
      },
      stop: async () => {
        const { profile: taken } = await session.post("Profiler.stop");
        const file = path.join(process.cwd(), `token-cpu-${Date.now()}.cpuprofile`);
        writeFileSync(file, JSON.stringify(taken));
        console.error(`profile: ${file}`);
      },
    };
  }
  const result = await tokenCpu({ tokens: option("tokens", 1000), turns: option("turns", 10), rounds: option("rounds", 3), gapMs: option("gap-ms", 1), providerOnly: process.argv.includes("--provider-only"), profile });
  console.log(JSON.stringify(result));
  process.exit(0);
}
