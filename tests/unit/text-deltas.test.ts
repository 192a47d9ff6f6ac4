import { describe, expect, it } from "vitest";
import { DeltaJoiner } from "@/lib/agent/text-deltas";

describe("joining a model's text deltas", () => {
  it("never lets a delta end inside a character, and gives back the text whole", () => {
    const text = "a😀b🎉👩‍👩‍👧𝄞";
    for (let size = 1; size <= 4; size++) {
      const joiner = new DeltaJoiner();
      const out = (text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? []).map((piece) => joiner.push(piece));
      out.push(joiner.flush());
      for (const piece of out) expect(piece.isWellFormed()).toBe(true);
      expect(out.join("")).toBe(text);
    }
  });

  it("turns what can never be completed into U+FFFD", () => {
    const joiner = new DeltaJoiner();
    expect(joiner.push("\udc00 stray second half")).toBe("\ufffd stray second half");
    expect(joiner.push("cut \ud83d")).toBe("cut ");
    expect(joiner.flush()).toBe("\ufffd");
    expect(joiner.flush()).toBe("");
  });
});
