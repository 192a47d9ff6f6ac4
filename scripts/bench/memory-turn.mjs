// What a person's memory costs a turn, and what it costs to learn: one-token
// turns (the model costing nothing) by a person with no memories and by one
// with 500 of 400 characters each, their first token's latency in turn, new
// threads each time, so every turn ranks and reads the 500; and the largest
// request a lesson after those turns sent the model (its bound: the exchange
// and the memories kept, cut, whatever the person keeps). Nothing here
// asserts a figure.
import { randomUUID } from "node:crypto";
import { median, percentile, timedTurn } from "./turns.mjs";

const round = (n) => Number(n.toFixed(2));
const stats = (times) => ({ p50: round(median(times)), p95: round(percentile(times, 95)) });

async function fill(baseUrl, cookie, count) {
  const memories = Array.from({ length: count }, (_, i) => ({ text: `Remembered fact ${i}: ${"about the garden, the weather and the week ahead ".repeat(8)}`.slice(0, 400) }));
  const response = await fetch(`${baseUrl}/api/memory/import`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ version: 1, memories }),
  });
  if (response.status !== 201) throw new Error(`the import answered ${response.status}: ${await response.text()}`);
}

/** `turns` one-token turns for each person, alternating; `mock`: the model server, whose requests show the lessons'. */
export async function memoryTurns(baseUrl, visitor, mock, { turns, warmUp = 10 }) {
  const none = await visitor(baseUrl);
  const many = await visitor(baseUrl);
  await fill(baseUrl, many, 500);
  const firstToken = { none: [], many: [] };
  const say = async (cookie) => {
    const result = await timedTurn(baseUrl, cookie, { message: { id: randomUUID(), content: "[[one-token]] What should I plant in the garden this week?" } });
    if (result.error) throw new Error(result.error);
    return result.firstTokenMs;
  };
  for (let i = 0; i < warmUp; i++) {
    await say(none);
    await say(many);
  }
  for (let i = 0; i < turns; i++) {
    firstToken.none.push(await say(none));
    firstToken.many.push(await say(many));
  }
  // The lessons run after each reply, off its path: the longest request one sent, once they have been sent.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const lessons = mock.requests.filter((body) => typeof body.messages?.[0]?.content === "string" && body.messages[0].content.startsWith("You keep a short list"));
  const sizes = lessons.map((body) => JSON.stringify(body.messages).length);
  return {
    turns,
    firstTokenMs: { noMemories: stats(firstToken.none), fiveHundredMemories: stats(firstToken.many) },
    lessons: lessons.length,
    largestLessonChars: sizes.length > 0 ? Math.max(...sizes) : null,
  };
}
