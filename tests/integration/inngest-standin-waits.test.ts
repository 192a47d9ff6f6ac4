import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { App } from "@/lib/app";
import type { ServeHandlers } from "../support/in-process-inngest";
import { integrationApp } from "../support/integration";

// A run that waits without holding a process: for an event that names it
// (step.waitForEvent with a match and a timeout) or for a time
// (step.sleep, step.sleepUntil). The stand-in reads the SDK's own Sleep and
// WaitForEvent ops, in both of its modes, as a server of Inngest's would.
const ASKED = "test/approval.asked";
const DECIDED = "test/approval.decided";

function waitingFunction(app: App) {
  return app.inngest().createFunction(
    { id: "wait-for-a-decision", triggers: [{ event: ASKED }], concurrency: [{ key: "event.data.threadId", limit: 1 }], retries: 0 },
    async ({ event, step }) => {
      const before = await step.run("before", async () => Date.now());
      // A condition that compares the incoming event with the run's own, or with a value written into it.
      const condition = event.data.literal ? { if: `async.data.approvalId == "${event.data.approvalId}"` } : { match: "data.approvalId" };
      const decision = await step.waitForEvent("decision", { event: DECIDED, ...condition, timeout: event.data.timeout as string });
      await step.sleep("a-moment", "300ms");
      const slept = await step.run("after-sleep", async () => Date.now());
      await step.sleepUntil("until", new Date(slept + 200));
      const after = await step.run("after", async () => Date.now());
      return { decision: decision?.data ?? null, waitedMs: after - before, sleptMs: after - slept };
    },
  );
}

describe.each(["checkpointed", "async"] as const)("waits on the Inngest stand-in (%s)", (mode) => {
  const t = integrationApp({
    runtime: "inngest",
    inngest: {
      mode,
      handlers: async (app) => {
        const { serve } = await import("inngest/next");
        return serve({ client: app.inngest(), functions: [waitingFunction(app)] }) as unknown as ServeHandlers;
      },
    },
  });

  const ask = async (timeout: string, literal = false) => {
    const approvalId = randomUUID();
    const { ids } = await t.app.inngest().send({ name: ASKED, data: { approvalId, threadId: randomUUID(), timeout, literal } });
    return { approvalId, runs: t.standin.waitForRuns(ids[0]) };
  };

  const waiting = async (count: number) => {
    for (let i = 0; i < 200 && t.standin.runs.filter((r) => r.status === "waiting").length < count; i++) await new Promise((r) => setTimeout(r, 25));
  };

  it("wakes a waiting run with the event that matches it, and no other; then sleeps for a while and until a time", async () => {
    const mine = await ask("1h");
    const other = await ask("1h");
    await waiting(2);
    const send = (approvalId: string, approved: boolean) => t.app.inngest().send({ name: DECIDED, data: { approvalId, approved } });
    await send(mine.approvalId, true);
    const [run] = await mine.runs;
    expect(run.status).toBe("completed");
    const output = run.output as { decision: { approvalId: string; approved: boolean }; sleptMs: number };
    expect(output.decision).toEqual({ approvalId: mine.approvalId, approved: true });
    expect(output.sleptMs).toBeGreaterThanOrEqual(200);
    expect(run.waits.map((w) => w.op)).toEqual(["WaitForEvent", "Sleep", "Sleep"]);
    expect(run.waits[0]).toMatchObject({ name: DECIDED, opts: { timeout: "1h", if: "event.data.approvalId == async.data.approvalId" } });
    // The other run still waits: the decision named another approval.
    expect(t.standin.runs.find((r) => r.eventId !== run.eventId && r.status === "waiting")).toBeDefined();
    await send(other.approvalId, false);
    const [second] = await other.runs;
    expect(second.output).toMatchObject({ decision: { approvalId: other.approvalId, approved: false } });
  });

  it("wakes a run whose condition names the value itself, and no other", async () => {
    const mine = await ask("1h", true);
    const other = await ask("1h", true);
    await waiting(2);
    await t.app.inngest().send({ name: DECIDED, data: { approvalId: mine.approvalId, approved: true } });
    const [run] = await mine.runs;
    expect(run.output).toMatchObject({ decision: { approvalId: mine.approvalId, approved: true } });
    expect(run.waits[0]).toMatchObject({ opts: { if: `async.data.approvalId == "${mine.approvalId}"` } });
    expect(t.standin.runs.find((r) => r.eventId !== run.eventId && r.status === "waiting")).toBeDefined();
    await t.app.inngest().send({ name: DECIDED, data: { approvalId: other.approvalId, approved: false } });
    expect((await other.runs)[0].output).toMatchObject({ decision: { approvalId: other.approvalId, approved: false } });
  });

  it("gives the wait null once its timeout has passed, and the run goes on", async () => {
    const { runs } = await ask("1s");
    const [run] = await runs;
    expect(run.status).toBe("completed");
    expect(run.output).toMatchObject({ decision: null });
    expect((run.output as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(1_000);
  });

  it("holds no concurrency slot while a run waits: another run of the same key runs meanwhile", async () => {
    const threadId = randomUUID();
    const send = (approvalId: string) => t.app.inngest().send({ name: ASKED, data: { approvalId, threadId, timeout: "1h" } });
    const first = randomUUID();
    const second = randomUUID();
    const a = await send(first);
    const b = await send(second);
    // Both wait at once, though the key allows one running at a time.
    await waiting(2);
    await t.app.inngest().send({ name: DECIDED, data: { approvalId: second, approved: true } });
    await t.app.inngest().send({ name: DECIDED, data: { approvalId: first, approved: true } });
    const [runA] = await t.standin.waitForRuns(a.ids[0]);
    const [runB] = await t.standin.waitForRuns(b.ids[0]);
    expect([runA.status, runB.status]).toEqual(["completed", "completed"]);
  });
});
