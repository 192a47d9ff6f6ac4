import { describe, expect, it } from "vitest";
import { flushDelta, joinDelta } from "@/lib/agent/model/text-deltas";

/** The pure functions, threaded the way a part being written threads them. */
function joiner() {
  let held = "";
  const take = ({ text, held: rest }: { text: string; held: string }) => {
    held = rest;
    return text;
  };
  return { push: (delta: string) => take(joinDelta(held, delta)), flush: () => take(flushDelta(held)) };
}

describe("joining a model's text deltas", () => {
  it("never lets a delta end inside a character, and gives back the text whole", () => {
    const text = "a😀b🎉👩‍👩‍👧𝄞";
    for (let size = 1; size <= 4; size++) {
      const join = joiner();
      const out = (text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? []).map((piece) => join.push(piece));
      out.push(join.flush());
      for (const piece of out) expect(piece.isWellFormed()).toBe(true);
      expect(out.join("")).toBe(text);
    }
  });

  it("turns what can never be completed into U+FFFD", () => {
    const join = joiner();
    expect(join.push("\udc00 stray second half")).toBe("\ufffd stray second half");
    expect(join.push("cut \ud83d")).toBe("cut ");
    expect(join.flush()).toBe("\ufffd");
    expect(join.flush()).toBe("");
  });
});
