import { readFileSync } from "node:fs";
import path from "node:path";
import { nodeFileTrace } from "@vercel/nft";
import { describe, expect, it } from "vitest";

// The server loads the PDF worker by path at run time (lib/files/pdf-text.ts),
// out of reach of Next's bundler: the standalone build has it only because
// scripts/standalone.mjs traces it, and with it the unpdf it imports.

const root = path.resolve(__dirname, "../..");
const WORKER = "lib/files/pdf-text-worker.mjs";

describe("the PDF text worker in the standalone build", () => {
  it("is one of the files the standalone script traces", () => {
    expect(readFileSync(path.join(root, "scripts/standalone.mjs"), "utf8")).toContain(`"${WORKER}"`);
  });

  it("brings unpdf and its PDF.js when traced", async () => {
    const { fileList } = await nodeFileTrace([WORKER], { base: root });
    expect([...fileList]).toEqual(expect.arrayContaining([WORKER, "node_modules/unpdf/dist/index.mjs", "node_modules/unpdf/dist/pdfjs.mjs"]));
  });
});
