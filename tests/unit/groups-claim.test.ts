import { describe, expect, it } from "vitest";
import { groupsOfClaim, MAX_CLAIMED_GROUPS } from "@/lib/accounts/groups-claim";

describe("the groups claim's names", () => {
  it("are an array's strings, or one string's words separated by spaces or commas, distinct, as written", () => {
    expect(groupsOfClaim(["Sales", " Ops ", "Sales", 7, null, { name: "x" }, "", "Team EU"])).toEqual(["Sales", "Ops", "Team EU"]);
    expect(groupsOfClaim(" Sales, ops  Eng,,")).toEqual(["Sales", "ops", "Eng"]);
  });

  it("are none for a claim that is missing or of another kind", () => {
    expect(groupsOfClaim(undefined)).toEqual([]);
    expect(groupsOfClaim(42)).toEqual([]);
    expect(groupsOfClaim({ groups: ["Sales"] })).toEqual([]);
  });

  it(`are at most the first ${MAX_CLAIMED_GROUPS}, each at most 100 characters`, () => {
    const many = Array.from({ length: 150 }, (_, i) => `g${i}`);
    expect(groupsOfClaim(many)).toEqual(many.slice(0, MAX_CLAIMED_GROUPS));
    expect(groupsOfClaim(many.join(" "))).toEqual(many.slice(0, MAX_CLAIMED_GROUPS));
    expect(groupsOfClaim(["a".repeat(101), "b".repeat(100)])).toEqual(["b".repeat(100)]);
  });
});
