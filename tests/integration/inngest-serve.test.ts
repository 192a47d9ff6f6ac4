import { randomUUID } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TurnChunkBatch, TurnChunkMessage } from "@/lib/protocol/turn-events";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { turnEventData } from "../support/turn-events";
import type { StandinRun } from "../support/inngest-standin/index.mjs";
import { integrationApp } from "../support/integration";

// The real serve route (app/api/inngest/route.ts) imported in-process and
// driven by the stand-in's executor with the SDK's execution protocol, in its
// default checkpointed mode: one request runs the steps, each finished step is
// reported to the checkpoint API, and the request ends with RunComplete. (One
// request per step, checkpointing off: inngest-async-mode.test.ts.)
// Events go in through the app's own Inngest client, as the chat route sends them.
const t = integrationApp({ runtime: "inngest" });
let route: typeof import("@/app/api/inngest/route");
let client: import("@/lib/inngest/client").InngestClient;
let CHAT_TURN_EVENT: string;
let owner: string;

beforeAll(async () => {
  route = await import("@/app/api/inngest/route");
  client = (await import("@/lib/app")).app().inngest();
  CHAT_TURN_EVENT = (await import("@/lib/protocol/turn-events")).CHAT_TURN_EVENT;
});
beforeEach(() => {
  owner = `owner-${randomUUID()}`;
});

function turnEvent(content: string, extra: Partial<Parameters<typeof turnEventData>[0]> = {}) {
  return { name: CHAT_TURN_EVENT, data: turnEventData({ owner, content, ...extra }) };
}

async function runTurn(content: string, extra: Partial<Parameters<typeof turnEventData>[0]> = {}) {
  const event = turnEvent(content, extra);
  const { ids } = await client.send(event);
  const runs = await t.standin.waitForRuns(ids[0]);
  expect(runs).toHaveLength(1);
  return { run: runs[0], turnId: event.data.turnId };
}

async function rows(threadId: string) {
  const { rows } = await t.pool.query("SELECT kind, content FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
  return rows;
}

const chunksOn = (turnId: string) =>
  t.standin.published
    .filter((m) => m.channel === `turn:${turnId}` && m.topic === "chunks")
    .flatMap((m) => (m.data as TurnChunkBatch).messages);

const deltas = (messages: TurnChunkMessage[]) =>
  messages.map((m) => (m.chunk.type === "text-delta" ? m.chunk.delta : "")).join("");

describe("the Inngest serve route", () => {
  it("answers an in-band sync with the chat, its failure handler's, compaction and reminder functions' config", async () => {
    const response = await route.PUT(
      new Request("http://localhost/api/inngest", {
        method: "PUT",
        headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band" },
        body: JSON.stringify({ url: "http://localhost/api/inngest" }),
      }) as never,
      undefined as never,
    );
    expect(response.status).toBe(200);
    const config = await response.json();
    expect(config.app_id).toBe("threadline");
    expect(config.inspection.mode).toBe("dev");
    expect(config.functions).toHaveLength(6);
    expect(config.functions[0]).toMatchObject({
      id: "threadline-chat-turn",
      triggers: [{ event: "threadline/chat.turn" }],
      concurrency: [{ key: "event.data.concurrencyKey", limit: 1 }],
      steps: {
        step: {
          runtime: { type: "http", url: "http://localhost/api/inngest?fnId=threadline-chat-turn&stepId=step" },
          retries: { attempts: 3 },
        },
      },
    });
    // A chat run that fails for good has its turn ended by this one (onFailure).
    expect(config.functions[1]).toMatchObject({
      id: "threadline-chat-turn-failure",
      triggers: [{ event: "inngest/function.failed", expression: "event.data.function_id == 'threadline-chat-turn'" }],
    });
    // And one cancelled, from Inngest's dashboard or API, by this one (Inngest's system event, filtered to the chat runs).
    expect(config.functions[2]).toMatchObject({
      id: "threadline-chat-turn-cancelled",
      triggers: [{ event: "inngest/function.cancelled", expression: "event.data.function_id == 'threadline-chat-turn'" }],
    });
    // Its own function, keyed by thread: a thread's next turn never queues behind its compaction.
    expect(config.functions[3]).toMatchObject({
      id: "threadline-compact-thread",
      triggers: [{ event: "threadline/thread.compact" }],
      concurrency: [{ key: "event.data.threadId", limit: 1 }],
    });
    // A run per reminder, sleeping until it is due.
    expect(config.functions[4]).toMatchObject({ id: "threadline-post-reminder", triggers: [{ event: "threadline/reminder.scheduled" }] });
    // A run per reply its owner's memory learns from, one at a time per owner: their memories change in order.
    expect(config.functions[5]).toMatchObject({
      id: "threadline-learn-memory",
      triggers: [{ event: "threadline/memory.lesson" }],
      concurrency: [{ key: "event.data.owner", limit: 1 }],
    });
  });

  it("runs a whole turn over the execution protocol in one request: each step checkpointed, rows written once, the result in RunComplete", async () => {
    const { run, turnId } = await runTurn("served hello");
    expect(run).toMatchObject({ fnId: "threadline-chat-turn", mode: "checkpointed", status: "completed", attempts: 1 });
    // Every step ran in the one request and reached the stand-in through the checkpoint API, one call each
    // (bufferedSteps: 1); the request's answer carries only the function's return value.
    expect(run.requests).toEqual([expect.objectContaining({ stepId: "step", status: 206, ops: ["RunComplete"] })]);
    expect(run.steps.length).toBeGreaterThanOrEqual(2);
    expect(run.checkpointedSteps).toEqual(run.steps);
    expect(run.checkpoints).toHaveLength(run.steps.length);
    expect(run.checkpoints.every((c) => c.ops.length === 1 && c.ops[0] === "StepRun")).toBe(true);
    expect(run.staleCheckpoints).toBe(0);
    // A checkpoint from a request the run no longer waits for is a stale dispatch: 409, which stops the SDK.
    const late = await fetch(`${t.standin.url}/v1/checkpoint/${run.id}/async`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ run_id: run.id, request_id: run.requests[0].requestId, steps: [] }),
    });
    expect(late.status).toBe(409);
    expect(run.staleCheckpoints).toBe(1);

    const output = run.output as { threadId: string; status: string; historySource: string; replyId: string };
    expect(output).toMatchObject({ status: "complete", historySource: "new" });
    const reply = echoReply("served hello", 1, 0);
    expect(await rows(output.threadId)).toEqual([
      { kind: "user", content: "served hello" },
      { kind: "assistant", content: reply },
    ]);
    expect(t.mock.requests).toHaveLength(1);

    // Chunks went out once, through the stand-in's realtime publish, in order.
    const published = chunksOn(turnId);
    expect(published.every((m) => m.attempt === 0)).toBe(true);
    expect(published[0].chunk).toMatchObject({ type: "data-thread", data: { threadId: output.threadId } });
    expect(published.at(-1)!.chunk.type).toBe("finish");
    expect(published.find((m) => m.chunk.type === "start")!.chunk).toMatchObject({ messageId: output.replyId });
    expect(deltas(published)).toBe(reply);
    expect(t.standin.unhandled).toEqual([]);
  });

  it("sends a turn's requests to Inngest on connections it keeps open, with the SDK's own headers", async () => {
    const requests = () => Object.values(t.standin.traffic.requests).reduce((sum, n) => sum + n, 0);
    const [requestsBefore, connectionsBefore] = [requests(), t.standin.traffic.connections];
    const { run } = await runTurn("kept open");
    expect(run.status).toBe("completed");
    // The event, a checkpoint per step, a publish per batch of chunks: a dozen requests or more, over one or two connections.
    expect(requests() - requestsBefore).toBeGreaterThan(10);
    expect(t.standin.traffic.connections - connectionsBefore).toBeLessThanOrEqual(2);
    // Read once and kept, but the same as the SDK works out for itself, and a caller's change to them stays its own.
    const { Inngest } = await import("inngest");
    expect(client.headers).toEqual(new Inngest({ id: "threadline" }).headers);
    client.headers["x-changed"] = "1";
    expect(client.headers).not.toHaveProperty("x-changed");
  });

  it("retries a model step that breaks off: one user row, one reply, the retry's chunks tagged", async () => {
    const { run, turnId } = await runTurn("[[flaky-mid]] once more");
    expect(run.status).toBe("completed");
    const failed = run.requests.findIndex((r) => r.ops.includes("StepError"));
    expect(failed).toBe(0);
    // The steps before the model step were checkpointed before it failed; the retry (the next attempt) replays
    // them from memo and runs only the model step again, then the run goes on checkpointed to its end.
    const fromRequest = (i: number) => run.checkpoints.filter((c) => c.requestId === run.requests[i].requestId).length;
    expect(run.requests[1]).toMatchObject({ attempt: 1, status: 206, ops: ["StepRun"] });
    expect(run.requests.slice(2)).toEqual([expect.objectContaining({ attempt: 0, status: 206, ops: ["RunComplete"] })]);
    expect(fromRequest(0)).toBeGreaterThanOrEqual(1);
    expect(fromRequest(1)).toBe(0); // a retry attempt answers with its step instead
    expect(fromRequest(2)).toBeGreaterThanOrEqual(1);
    expect(new Set(run.steps).size).toBe(run.steps.length);

    const { threadId } = run.output as { threadId: string };
    const stored = await rows(threadId);
    expect(stored.map((r) => r.kind)).toEqual(["user", "assistant"]);
    expect(stored[1].content).toBe(echoReply("[[flaky-mid]] once more", 1, 0));
    expect(t.mock.requests).toHaveLength(2);
    const attempts = new Set(chunksOn(turnId).filter((m) => m.chunk.type === "text-delta").map((m) => m.attempt));
    expect([...attempts].sort()).toEqual([0, 1]);
  });

  it("does not retry a refusal: the run fails at once and the refusal is published", async () => {
    const { threadId } = await new PostgresHistoryAdapter(t.pool).createThread({ owner: "someone-else" });
    const { run, turnId } = await runTurn("let me in", { threadId });
    expect(run.status).toBe("failed");
    expect(run.requests.every((r) => r.attempt === 0)).toBe(true);
    // The refusing step ends with the refusal as its value (checkpointed); the function then ends the run for good (400: not retriable).
    expect(run.requests.map((r) => r.status)).toEqual([400]);
    expect(run.checkpointedSteps).toHaveLength(1);
    expect(t.standin.published.filter((m) => m.channel === `turn:${turnId}`)).toMatchObject([
      { topic: "refused", data: { code: "not_found:thread", message: "Thread not found." } },
    ]);
    expect(await rows(threadId)).toEqual([]);
  });

  it("refuses an event this app did not sign, even one that names the right owner and thread: nothing read, written or published", async () => {
    const { run: first } = await runTurn("my private words");
    const threadId = (first.output as { threadId: string }).threadId;
    t.mock.requests.length = 0;
    for (const forge of ["", "not-a-signature", turnEventData({ owner, threadId, content: "other" }).authorization]) {
      const { run, turnId } = await runTurn("written by a forger", { threadId, forge });
      expect(run.status).toBe("failed");
      expect(run.requests.flatMap((r) => r.ops)).not.toContain("StepRun"); // not one step ran
      expect(run.steps).toEqual([]);
      expect(JSON.stringify(run.requests) + JSON.stringify(run.output ?? "")).not.toContain("my private words");
      expect(t.standin.published.filter((m) => m.channel === `turn:${turnId}`)).toEqual([]);
    }
    expect(await rows(threadId)).toEqual([
      { kind: "user", content: "my private words" },
      { kind: "assistant", content: echoReply("my private words", 1, 0) },
    ]);
    expect(t.mock.requests).toHaveLength(0);
  });

  it("runs turns with the same concurrency key one after another, others alongside", async () => {
    const [a, b, c] = [turnEvent("first in line"), turnEvent("second in line"), turnEvent("elsewhere")];
    b.data.concurrencyKey = a.data.concurrencyKey;
    const { ids } = await client.send([a, b, c]);
    const [runA, runB, runC] = (await Promise.all(ids.map((id) => t.standin.waitForRuns(id)))).map(([r]) => r as StandinRun);
    for (const run of [runA, runB, runC]) expect(run.status).toBe("completed");
    expect(runB.startedAt!).toBeGreaterThanOrEqual(runA.endedAt!);
    expect(runC.startedAt!).toBeLessThan(runA.endedAt!);
  });
});
