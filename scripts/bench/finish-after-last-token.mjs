// How long a reply's finish comes after its last token, for a new thread's
// first message (the one the model titles) and for a thread's next message,
// at each concurrency: nothing but storing the reply should stand between
// them. The model's calls are counted by kind at the mock, so the title calls
// show apart from the answers.
import { randomUUID } from "node:crypto";
import { copyOf, percentile, pool, timedTurn, visitor } from "./turns.mjs";

const round = (n) => (Number.isFinite(n) ? Math.round(n) : null);
const spread = (values) => ({ p50: round(percentile(values, 50)), p99: round(percentile(values, 99)) });

/** At each concurrency: `turns` new threads at once, then each thread's next message, as many at once. */
export async function finishAfterLastToken(appUrl, mock, levels, turnsAt) {
  const cookie = await visitor(appUrl);
  const results = [];
  for (const concurrency of levels) {
    const total = turnsAt(concurrency);
    const before = { ...mock.calls };
    const firsts = await pool(total, concurrency, async () => {
      const message = { id: randomUUID(), content: `[[bench]] a new thread ${randomUUID().slice(0, 8)}` };
      return { message, turn: await timedTurn(appUrl, cookie, { message }) };
    });
    const started = firsts.filter(({ turn }) => !turn.error);
    const nexts = await pool(started.length, concurrency, (i) => {
      const { message, turn } = started[i];
      return timedTurn(appUrl, cookie, { threadId: turn.threadId, message: { id: randomUUID(), content: "[[bench]] and then" }, history: copyOf(turn, message) });
    });
    const fine = (turns) => turns.filter((turn) => !turn.error).map((turn) => turn.finishAfterLastTokenMs);
    results.push({
      concurrency,
      turns: total,
      errors: total - started.length + nexts.filter((turn) => turn.error).length,
      newThreads: spread(fine(started.map(({ turn }) => turn))),
      laterTurns: spread(fine(nexts)),
      // Asked for after the finish: some may still be on their way as the level ends.
      modelCalls: { answer: mock.calls.answer - before.answer, title: mock.calls.title - before.title, summary: mock.calls.summary - before.summary },
    });
  }
  return results;
}
