import { describe, expect, it } from "vitest";
import { amountText, budgetText, parseBudgetText } from "@/lib/budgets/budget-text";
import { refusalText } from "@/lib/budgets/refusal-text";
import { inputTokensOf, tokensOfText } from "@/lib/agent/model/spend";
import { isBudgetRefusal } from "@/lib/client/chat-error";
import { budgetSchema } from "@/lib/protocol/budgets";

describe("a budget as an operator writes it", () => {
  it("reads dollars and tokens a day, a week or a month, and refuses what is not one", () => {
    expect(parseBudgetText("$2/day")).toEqual({ amount: 2, unit: "usd", period: "day" });
    expect(parseBudgetText(" 2.50 USD per week ")).toEqual({ amount: 2.5, unit: "usd", period: "week" });
    expect(parseBudgetText("$50 a month")).toEqual({ amount: 50, unit: "usd", period: "month" });
    expect(parseBudgetText("20000 tokens/month")).toEqual({ amount: 20000, unit: "tokens", period: "month" });
    for (const bad of ["2/day", "$2", "2 usd", "$2 tokens/day", "1.5 tokens/day", "-1 usd/day", "2 usd/year", "2000000000 usd/day", ""]) {
      expect(parseBudgetText(bad), bad).toBeNull();
    }
  });

  it("writes amounts as people read them, and budgets in the words the variables take", () => {
    expect(amountText(2, "usd")).toBe("$2.00");
    expect(amountText(0.004, "usd")).toBe("$0.004");
    expect(amountText(20000, "tokens")).toBe("20,000 tokens");
    expect(budgetText({ amount: 2, unit: "usd", period: "day" })).toBe("$2/day");
    expect(parseBudgetText(budgetText({ amount: 20000, unit: "tokens", period: "week" }))).toEqual({ amount: 20000, unit: "tokens", period: "week" });
  });

  it("takes from an admin at most six decimals and a billion", () => {
    expect(budgetSchema.safeParse({ amount: 0.000001, unit: "usd", period: "day" }).success).toBe(true);
    expect(budgetSchema.safeParse({ amount: 0.0000001, unit: "usd", period: "day" }).success).toBe(false);
    expect(budgetSchema.safeParse({ amount: 1e10, unit: "tokens", period: "day" }).success).toBe(false);
    expect(budgetSchema.safeParse({ amount: 5, unit: "euro", period: "day" }).success).toBe(false);
  });
});

describe("what a refused person is told", () => {
  const status = { amount: 2, unit: "usd" as const, period: "day" as const, spent: 2, remaining: 0, resetsAt: "2026-11-30T00:00:00.000Z" };
  it("says what ran out and when it renews, in the operator's time zone", () => {
    expect(refusalText("exceeded", status, "openai:gpt-4.1", "UTC")).toBe("You have used your $2.00 for today; it renews at midnight (UTC).");
    expect(refusalText("exceeded", { ...status, unit: "tokens", amount: 20000, spent: 19900, period: "week" }, "m", "Europe/Paris")).toBe(
      "You have used 19,900 tokens of your 20,000 tokens for this week, and what is left is too little for a reply; it renews on Monday (Europe/Paris time).",
    );
    expect(refusalText("unpriced", status, "ollama:llama3", "UTC")).toContain("the model ollama:llama3 has no price here");
  });

  it("is told apart from other errors by the page, which then offers no Retry", () => {
    expect(isBudgetRefusal(new Error(JSON.stringify({ error: { code: "budget:exceeded", message: "x" } })))).toBe(true);
    expect(isBudgetRefusal(new Error(JSON.stringify({ error: { code: "rate_limited:chat", message: "x" } })))).toBe(false);
    expect(isBudgetRefusal(new Error("socket hang up"))).toBe(false);
  });
});

describe("a call's input as a reservation counts it", () => {
  it("counts a token for every three bytes, over the providers' counts of English and near them for CJK", () => {
    const english = "The quick brown fox jumps over the lazy dog. ".repeat(20);
    // About four characters a token is what the providers count for English.
    expect(tokensOfText(english)).toBeGreaterThan(english.length / 4);
    const chinese = "敏捷的棕色狐狸跳过了懒狗".repeat(10);
    expect(tokensOfText(chinese)).toBe(chinese.length);
  });

  it("counts the instructions, every message and each attachment", () => {
    const text = inputTokensOf("system", [{ role: "user", content: "hello" }]);
    const withImage = inputTokensOf("system", [{ role: "user", content: [{ type: "text", text: "hello" }, { type: "image", image: new Uint8Array(10) }] }]);
    expect(text).toBe(tokensOfText("system") + tokensOfText("hello"));
    expect(withImage).toBeGreaterThan(text + 999);
  });
});
