import { describe, expect, it } from "vitest";
import { DIFF_BOUNDS, lineDiff } from "@/lib/client/documents";
import { applyEdits } from "@/lib/documents/document-tools";

// A document's revision by edits, and what the panel shows changed between two versions.

describe("a revision by edits", () => {
  it("replaces each find, in order, in the text as the edits before it left it", () => {
    expect(applyEdits("1. a\n2. b", [{ find: "2. b", replace: "2. b\n3. c" }, { find: "3. c", replace: "3. C" }])).toBe("1. a\n2. b\n3. C");
  });

  it("refuses a find that is not there or is there twice, naming the edit", () => {
    expect(() => applyEdits("x y x", [{ find: "z", replace: "" }])).toThrow("Edit 1: its find text is not in the document; read_document gives the latest version.");
    expect(() => applyEdits("x y x", [{ find: "y", replace: "w" }, { find: "x", replace: "" }])).toThrow("Edit 2: its find text occurs more than once; give more of it.");
  });
});

describe("a document's changes", () => {
  it("marks only the lines that changed, a last line without its newline included", () => {
    expect(lineDiff("# Plan\n1. Pick a date.", "# Plan\n1. Pick a date.\n2. Set a budget.")).toEqual([
      { kind: "same", text: "# Plan" },
      { kind: "same", text: "1. Pick a date." },
      { kind: "added", text: "2. Set a budget." },
    ]);
    expect(lineDiff("a\nb\n", "a\nc\n")!.map((line) => line.kind)).toEqual(["same", "removed", "added"]);
  });

  it("are too large to compare past the bounds, without running the diff: two long versions, too many lines, too many changes", () => {
    const long = "x".repeat(DIFF_BOUNDS.maxChars / 2);
    expect(lineDiff(long, `${long}y`)).toBeNull();
    expect(lineDiff(long.slice(1), long.slice(1))).not.toBeNull();
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join("\n");
    expect(lineDiff(lines(DIFF_BOUNDS.maxLines / 2, "a"), lines(DIFF_BOUNDS.maxLines / 2 + 1, "a"))).toBeNull();
    // Under the size bounds, but every line changed: more edits than the diff may weigh (with all the time it likes).
    const edits = DIFF_BOUNDS.maxEditLength;
    const untimed = { ...DIFF_BOUNDS, timeoutMs: Infinity };
    expect(lineDiff(lines(edits / 2 + 1, "a"), lines(edits / 2 + 1, "b"), untimed)).toBeNull();
    expect(lineDiff(lines(edits / 4, "a"), lines(edits / 4, "b"), untimed)).toHaveLength(edits / 2);
  });

  it("gives up when the diff takes longer than its time bound", () => {
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join("\n");
    // Ten thousand edits would take seconds; with no time allowed it stops at its first look at the clock.
    expect(lineDiff(lines(4_999, "a"), lines(4_999, "b"), { ...DIFF_BOUNDS, maxEditLength: Infinity, timeoutMs: 0 })).toBeNull();
  });
});
