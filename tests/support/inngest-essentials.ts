import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { echoReply } from "../../scripts/mock-model-server.mjs";
import { parseChunks, replyText, request, stopFourWordsIn } from "./api";
import type { StandinMode, StandinRun } from "./inngest-standin/index.mjs";
import { integrationApp } from "./integration";

// What must hold whichever way Inngest runs a function: checkpointed (the
// SDK's default: one request runs the steps and reports each one) or in plain
// async mode (INNGEST_CHECKPOINTING=0 on the app, or a server that does not
// checkpoint: one request per step, the function replayed each time). Each
// step's side effects happen once, a failed step is retried without the
// finished ones running again, the stream hides the failed attempt's parts,
// Stop ends the turn, and compaction runs as a function of its own.
// POST /api/chat in-process, the stand-in driving the real serve route.

const COMPACTION = { COMPACTION_MAX_MESSAGES: "4", COMPACTION_TARGET_MESSAGES: "3", COMPACTION_KEEP_TURNS: "1" };

export function inngestEssentials(mode: StandinMode): void {
  const t = integrationApp({ runtime: "inngest", inngest: { mode } });
  let chat: typeof import("@/app/api/chat/route");
  let stop: typeof import("@/app/api/threads/[id]/stop/route");

  beforeAll(async () => {
    chat = await import("@/app/api/chat/route");
    stop = await import("@/app/api/threads/[id]/stop/route");
  });

  const msg = (content: string) => ({ id: randomUUID(), content });
  async function turn(body: Record<string, unknown>) {
    const response = await chat.POST(request("/api/chat", { method: "POST", cookie: t.me.cookie, json: body }), undefined);
    const chunks = response.ok ? parseChunks(await response.text()) : [];
    await t.standin.idle();
    return { response, chunks, threadId: response.headers.get("x-thread-id")! };
  }
  async function stored(threadId: string) {
    const { rows } = await t.pool.query("SELECT kind, status, content FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
    return rows as { kind: string; status: string; content: string }[];
  }
  const runsOf = (fnId: string) => t.standin.runs.filter((r) => r.fnId === fnId);
  const lastTurnRun = () => runsOf("threadline-chat-turn").at(-1)!;

  /** The run went the way its mode says: checkpointed runs report steps and need fewer requests than steps. */
  function expectMode(run: StandinRun) {
    expect(run.mode).toBe(mode);
    expect(run.staleCheckpoints).toBe(0);
    if (mode === "checkpointed") {
      expect(run.checkpoints.length).toBeGreaterThan(0);
      expect(run.checkpointedSteps.length).toBeGreaterThan(0);
      expect(run.requests.length).toBeLessThan(run.steps.length);
    } else {
      expect(run.checkpoints).toEqual([]);
      expect(run.requests.length).toBeGreaterThan(run.steps.length);
    }
    expect(new Set(run.steps).size).toBe(run.steps.length); // no step finished twice
  }

  describe(`the Inngest runtime, ${mode === "async" ? "checkpointing off (one request per step)" : "checkpointed"}`, () => {
    it("runs a turn with a hand-over and a tool: each model call, the tool and each row once", async () => {
      const content = 'Sum it up [[call:calculate:{"expression":"6 * 7"}]]';
      const { response, chunks, threadId } = await turn({ message: msg(content) });
      expect(response.status).toBe(200);
      const run = lastTurnRun();
      expect(run.status).toBe("completed");
      expectMode(run);
      expect(t.mock.requests).toHaveLength(3); // Triage hands over; the Researcher calls the tool, then answers
      const results = chunks.filter((c) => c.type === "tool-output-available");
      expect(results).toHaveLength(1);
      const rows = await stored(threadId);
      expect(rows.map((r) => r.kind)).toEqual(["user", "handoff", "tool_call", "tool_result", "assistant"]);
      expect(rows.at(-1)!.status).toBe("complete");
    });

    it("retries the model step that broke off, and only it: the stream withdraws the failed attempt's words", async () => {
      const content = "[[flaky-mid]] once more, " + mode;
      const { response, chunks, threadId } = await turn({ message: msg(content) });
      expect(response.status).toBe(200);
      const run = lastTurnRun();
      expect(run.status).toBe("completed");
      expectMode(run);
      expect(run.requests.some((r) => r.ops.includes("StepError"))).toBe(true);
      expect(t.mock.requests).toHaveLength(2); // the failed call and its retry; the steps before it were not run again
      const retry = chunks.findIndex((c) => c.type === "data-retry");
      expect(retry).toBeGreaterThan(0);
      expect(chunks[retry]).toMatchObject({ data: { attempt: 1 } });
      expect(replyText(chunks.slice(retry))).toBe(echoReply(content, 1, 0));
      const rows = await stored(threadId);
      expect(rows.map((r) => [r.kind, r.content])).toEqual([
        ["user", content],
        ["assistant", echoReply(content, 1, 0)],
      ]);
    });

    it("Stop ends the model step and keeps what was written", async () => {
      const response = await chat.POST(request("/api/chat", { method: "POST", cookie: t.me.cookie, json: { message: msg("[[slow]] stop me") } }), undefined);
      const { threadId, stopped, chunks } = await stopFourWordsIn(response, stop, t.me.cookie);
      expect(await stopped.json()).toEqual({ stopped: true });
      expect(chunks).toContainEqual({ type: "data-status", data: { status: "stopped" }, transient: true });
      await t.standin.idle();
      expect(lastTurnRun().mode).toBe(mode);
      const rows = await stored(threadId);
      expect(rows.map((r) => [r.kind, r.status])).toEqual([
        ["user", "complete"],
        ["assistant", "stopped"],
      ]);
      expect(rows[1].content).toBe(replyText(chunks));
    });

    it("compacts a long thread in a run of its own, its summary asked for and stored once", async () => {
      const compacting = t.inngest.appWith(COMPACTION);
      try {
        let threadId: string | undefined;
        for (const word of ["alpha", "bravo", "charlie"]) {
          const { response, threadId: id } = await turn({ threadId, message: msg(word) });
          expect(response.status).toBe(200);
          threadId = id;
        }
        await vi.waitFor(async () => expect(runsOf("threadline-compact-thread").filter((r) => r.status === "completed")).toHaveLength(1), {
          timeout: 10_000,
          interval: 25,
        });
        await t.standin.idle();
        const [compaction] = runsOf("threadline-compact-thread");
        expectMode(compaction);
        const summaryCalls = (t.mock.requests as { messages: { content: unknown }[] }[]).filter((b) =>
          String(b.messages[0]?.content).startsWith("You condense the earlier part"),
        );
        expect(summaryCalls).toHaveLength(1);
        expect((await stored(threadId!)).filter((r) => r.kind === "system_event")).toHaveLength(1);
      } finally {
        await compacting.close();
      }
    });
  });
}
