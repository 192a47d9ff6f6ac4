import { describe, expect, it } from "vitest";
import { dollars, usageText } from "@/lib/client/usage-text";

describe("usage in words", () => {
  it("says the tokens, and the cost when every call has a price", () => {
    expect(usageText({ totalTokens: 12_345, cost: 0.0123 })).toBe("12,345 tokens · $0.0123");
    expect(usageText({ totalTokens: 1, cost: null })).toBe("1 token");
    expect(usageText({ totalTokens: 40, cost: 0 })).toBe("40 tokens · $0");
  });

  it("keeps a tiny cost from reading as nothing", () => {
    expect(dollars(0.00004)).toBe("< $0.0001");
    expect(dollars(1.5)).toBe("$1.5000");
  });
});
