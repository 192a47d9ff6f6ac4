import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startInngestStandin } from "../support/inngest-standin/index.mjs";

// The stand-in is only as good as its reading of one SDK release: against any
// other it must refuse to start, so a dependency update cannot leave the
// Inngest tests passing against a protocol the SDK no longer speaks.
describe("the Inngest stand-in", () => {
  it("refuses to start against an inngest release it was not written for, naming both versions", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fake-inngest-"));
    const fake = path.join(dir, "package.json");
    writeFileSync(fake, JSON.stringify({ name: "inngest", version: "4.25.0" }));
    await expect(startInngestStandin({ sdkPackageJson: fake })).rejects.toThrow(/written for inngest 4\.24\.0 but .* is inngest 4\.25\.0/);
  });

  it("starts against the installed release, checkpointed unless told to run one request per step", async () => {
    const standin = await startInngestStandin();
    const async = await startInngestStandin({ mode: "async" });
    try {
      expect(standin.mode).toBe("checkpointed");
      expect(async.mode).toBe("async");
      await expect(startInngestStandin({ mode: "sync" as never })).rejects.toThrow(/no mode sync/);
    } finally {
      await standin.close();
      await async.close();
    }
  });

  it("answers a checkpoint for a run it does not know with 404, and records no endpoint as unhandled", async () => {
    const standin = await startInngestStandin();
    try {
      const response = await fetch(`${standin.url}/v1/checkpoint/no-such-run/async`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ run_id: "no-such-run", request_id: "r", steps: [] }),
      });
      expect(response.status).toBe(404);
      expect(standin.unhandled).toEqual([]);
    } finally {
      await standin.close();
    }
  });

  it("answers a cancel of a run it does not know with 404", async () => {
    const standin = await startInngestStandin();
    try {
      const response = await fetch(`${standin.url}/v1/runs/no-such-run`, { method: "DELETE" });
      expect(response.status).toBe(404);
      expect(standin.unhandled).toEqual([]);
    } finally {
      await standin.close();
    }
  });
});
