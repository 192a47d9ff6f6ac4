import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SLOW_REPLY } from "../../scripts/mock-model-server.mjs";
import { turnEventData } from "../support/turn-events";
import { integrationApp } from "../support/integration";

// A serverless host's INNGEST_MAX_RUNTIME_SECONDS: once a checkpointed request
// has run that long, the SDK reports what it has and answers with the next step
// planned instead of running it; Inngest runs that step in a request of its own,
// then the run goes on checkpointed. The turn still ends with one reply.
// Read when the client is built, so set with the rest of the environment before the first import.
const t = integrationApp({ runtime: "inngest", settings: { INNGEST_MAX_RUNTIME_SECONDS: "1" } });

describe("a checkpointed run past its maximum runtime", () => {
  it("goes on in new requests from the steps it reported, and stores one reply", async () => {
    const inngest = (await import("@/lib/app")).app().inngest();
    const { CHAT_TURN_EVENT } = await import("@/lib/protocol/turn-events");
    const data = turnEventData({ owner: `owner-${randomUUID()}`, content: "[[slow]] take your time" });
    const { ids } = await inngest.send({ name: CHAT_TURN_EVENT, data });
    const [run] = await t.standin.waitForRuns(ids[0]);
    expect(run).toMatchObject({ mode: "checkpointed", status: "completed" });
    // The first request ran steps past the second (the slow model step among them), then handed a step back.
    expect(run.requests[0].ops).toContain("StepPlanned");
    expect(run.requests.some((r) => r.stepId !== "step" && r.ops.includes("StepRun"))).toBe(true);
    expect(run.requests.at(-1)!.ops).toContain("RunComplete");
    expect(run.checkpoints.length).toBeGreaterThan(0);
    expect(new Set(run.steps).size).toBe(run.steps.length);
    expect(t.mock.requests).toHaveLength(1);
    const { threadId } = run.output as { threadId: string };
    const { rows } = await t.pool.query("SELECT kind, content FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
    expect(rows).toEqual([
      { kind: "user", content: "[[slow]] take your time" },
      { kind: "assistant", content: SLOW_REPLY },
    ]);
  });
});
