import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/settings";
import { poolShare, workerCount } from "@/lib/server-workers.mjs";

describe("how many server workers npm start runs", () => {
  it("runs one per core unless WEB_CONCURRENCY says otherwise", () => {
    expect(workerCount(undefined, 8)).toBe(8);
    expect(workerCount(" ", 2)).toBe(2);
    expect(workerCount(undefined, 0)).toBe(1);
    expect(workerCount("1", 8)).toBe(1);
    expect(workerCount(" 3 ", 8)).toBe(3);
  });

  it.each(["0", "two", "1.5", "-2", "257"])("refuses WEB_CONCURRENCY=%j in the line lib/env.ts says", (value) => {
    const line = `WEB_CONCURRENCY must be a whole number from 1 to 256, not "${value}".`;
    expect(() => workerCount(value, 2)).toThrow(line);
    expect(() => parseEnv({ WEB_CONCURRENCY: value })).toThrow(line);
  });

  it("gives each worker its share of DATABASE_POOL_SIZE, at least one connection", () => {
    expect(poolShare(undefined, 2)).toBe("5"); // the default 10, halved
    expect(poolShare("10", 3)).toBe("3");
    expect(poolShare("2", 4)).toBe("1");
    expect(poolShare("7", 1)).toBe("7");
    expect(poolShare("ten", 2)).toBe("ten"); // left for the worker's own check to name
  });
});
