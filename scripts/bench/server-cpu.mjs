// What the whole server costs per turn and per token, as shipped: `npm start`
// (a primary and one worker per core, titles on), its CPU summed over the
// primary and its workers, measured from outside over HTTP. At each
// concurrency, follow-up turns (a thread's second message, sent with the
// page's signed copy) of one token and of a [[bench]] reply (BENCH_TOKENS
// tokens) are run side by side on threads made for them beforehand; the
// one-token turns price a turn, and what the longer ones cost beyond them,
// per extra token, prices a token across every process that touches it. The
// server's idle CPU (its timers, its idle workers) is read too, so the price
// of a token can be told apart from what a longer-running server spends anyway.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { BENCH_FIRST_TOKEN_MS, BENCH_TOKENS } from "../mock-model-server.mjs";
import { copyOf, percentile, pool, timedTurn, visitor } from "./turns.mjs";

const round = (n, digits = 2) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : null);
const settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `levels`: concurrencies; `turnsAt(c)`: turns of each kind at c; `cpuMs(pid)`: the process group's CPU so far. */
/** `onMeasure("from" | "to")` is called around the [[bench]] turns (a profile's window). */
export async function serverCpu({ url: app, pid }, { levels, turnsAt, cpuMs, settleMs = 1_500, idleMs = 5_000, onMeasure }) {
  const cookie = await visitor(app);
  const say = async (body) => {
    const turn = await timedTurn(app, cookie, body);
    if (turn.error) throw new Error(turn.error);
    return turn;
  };
  /** Threads of one first message each, their titles written before anything is measured. */
  const seeds = async (count, concurrency) => {
    const threads = await pool(count, concurrency, async () => {
      const message = { id: randomUUID(), content: "[[one-token]] a thread to follow up" };
      const turn = await say({ message });
      return { threadId: turn.threadId, history: copyOf(turn, message) };
    });
    await settle(settleMs);
    return threads;
  };
  const followUps = async (threads, concurrency, content) => {
    const before = cpuMs(pid);
    const started = performance.now();
    const turns = await pool(threads.length, concurrency, (i) =>
      say({ threadId: threads[i].threadId, message: { id: randomUUID(), content }, history: threads[i].history }),
    );
    return { cpuMs: cpuMs(pid) - before, seconds: (performance.now() - started) / 1000, turns };
  };
  /** What the server spends doing nothing (its timers, its looks for due work, its idle workers), per second. */
  const idle = async () => {
    const before = cpuMs(pid);
    const started = performance.now();
    await settle(idleMs);
    return (cpuMs(pid) - before) / ((performance.now() - started) / 1000);
  };

  // Warm up: the first requests of each worker load and compile what later ones reuse.
  await followUps(await seeds(8, 4), 4, "[[bench]] warm up");
  const results = [];
  for (const concurrency of levels) {
    const total = turnsAt(concurrency);
    const [short, long] = [await seeds(total, Math.min(concurrency, 20)), await seeds(total, Math.min(concurrency, 20))];
    const one = await followUps(short, concurrency, "[[one-token]] and then");
    onMeasure?.("from");
    const many = await followUps(long, concurrency, "[[bench]] and then");
    onMeasure?.("to");
    const idlePerSecond = await idle();
    const firstToken = many.turns.map((t) => t.firstTokenMs - BENCH_FIRST_TOKEN_MS);
    // The longer turns keep the server up longer: part of what they cost is what it spends idle meanwhile.
    const busy = (run) => run.cpuMs - idlePerSecond * run.seconds;
    results.push({
      concurrency,
      turns: total,
      oneTokenTurnCpuMs: round(one.cpuMs / total, 1),
      benchTurnCpuMs: round(many.cpuMs / total, 1),
      perTokenMs: round((many.cpuMs - one.cpuMs) / total / (BENCH_TOKENS - 1), 3),
      idleCpuMsPerSecond: round(idlePerSecond, 1),
      perTokenBeyondIdleMs: round((busy(many) - busy(one)) / total / (BENCH_TOKENS - 1), 3),
      firstTokenOverheadMs: { p50: round(percentile(firstToken, 50), 0), p99: round(percentile(firstToken, 99), 0) },
    });
  }
  return results;
}
