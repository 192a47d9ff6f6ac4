import { describe, expect, it } from "vitest";
import { wholeNumberSetting } from "@/lib/settings";

describe("a whole number from the environment", () => {
  it("is undefined when unset or blank, the number when it is one, and an error naming the variable otherwise", () => {
    expect(wholeNumberSetting({}, "X")).toBeUndefined();
    expect(wholeNumberSetting({ X: "  " }, "X")).toBeUndefined();
    expect(wholeNumberSetting({ X: " 30 " }, "X", { min: 1 })).toBe(30);
    expect(wholeNumberSetting({ X: "0" }, "X")).toBe(0);
    expect(() => wholeNumberSetting({ X: "0" }, "X", { min: 1 })).toThrow('X must be a whole number > 0, not "0".');
    expect(() => wholeNumberSetting({ X: "-1" }, "X")).toThrow('X must be a whole number, 0 or more, not "-1".');
    expect(() => wholeNumberSetting({ X: "1e3" }, "X", { min: 1 })).toThrow(/^X /);
    expect(() => wholeNumberSetting({ X: "1234567" }, "X", { maxDigits: 6 })).toThrow(/^X /);
  });
});
