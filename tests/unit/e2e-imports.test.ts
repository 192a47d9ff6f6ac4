import { readFileSync, existsSync } from "node:fs";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Playwright loads the end-to-end specs and what they import as CommonJS, and
// Vitest refuses to be loaded that way: a helper shared with the Vitest suites
// that imports Vitest stops the whole browser suite before its first test.

const ROOT = path.resolve(__dirname, "../..");

/** The test files a module under tests/ imports by a relative path, followed through. */
function reached(from: string, seen = new Set<string>()): Set<string> {
  if (seen.has(from)) return seen;
  seen.add(from);
  const source = readFileSync(from, "utf8");
  for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
    const base = path.resolve(path.dirname(from), specifier);
    const file = [base, `${base}.ts`, `${base}.mts`, `${base}/index.ts`].find((candidate) => existsSync(candidate) && !candidate.endsWith("/"));
    if (file && file.startsWith(path.join(ROOT, "tests")) && /\.(ts|mts)$/.test(file)) reached(file, seen);
  }
  return seen;
}

describe("the end-to-end specs", () => {
  it("reach no module that imports Vitest", () => {
    const specs = readdirSync(path.join(ROOT, "tests/e2e")).filter((name) => name.endsWith(".ts")).map((name) => path.join(ROOT, "tests/e2e", name));
    const offenders = [...new Set(specs.flatMap((spec) => [...reached(spec)]))].filter((file) => /from\s+"vitest"/.test(readFileSync(file, "utf8")));
    expect(offenders.map((file) => path.relative(ROOT, file))).toEqual([]);
  });

  it("the check finds a helper that does", () => {
    // api.ts's neighbour that asserts with Vitest, reached as a spec would reach it.
    const found = [...reached(path.join(ROOT, "tests/support/waiting-message.ts"))].filter((file) => /from\s+"vitest"/.test(readFileSync(file, "utf8")));
    expect(found.map((file) => path.relative(ROOT, file))).toEqual(["tests/support/waiting-message.ts"]);
  });
});
