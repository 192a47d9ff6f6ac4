import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/settings";
import { checkpointingFrom } from "@/lib/inngest/checkpointing";

describe("the Inngest client's checkpointing", () => {
  it("is on for an always-on server: every step reported before the next, no limit on a request's runtime", () => {
    expect(checkpointingFrom(parseEnv({}))).toEqual({ maxRuntime: 0, bufferedSteps: 1, maxInterval: 0 });
  });

  it("bounds one request for a serverless host, in the milliseconds the SDK takes", () => {
    expect(checkpointingFrom(parseEnv({ INNGEST_MAX_RUNTIME_SECONDS: "50" }))).toMatchObject({ maxRuntime: 50_000 });
  });

  it("is off with INNGEST_CHECKPOINTING=0: one request per step", () => {
    expect(checkpointingFrom(parseEnv({ INNGEST_CHECKPOINTING: "0", INNGEST_MAX_RUNTIME_SECONDS: "50" }))).toBe(false);
  });
});
