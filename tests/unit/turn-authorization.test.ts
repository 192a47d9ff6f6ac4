import { describe, expect, it } from "vitest";
import { authorizeTurn, isAuthorizedTurn } from "@/lib/auth/turn-authorization";

const secret = "unit-secret-0123456789abcdef0123456789";
const turn = { turnId: "t1", owner: "o1", threadId: "th1", message: { id: "m1", content: "hello" } };

describe("a turn event's signature", () => {
  it("covers the model that answers: an event whose model was swapped is refused", () => {
    const signed = authorizeTurn({ ...turn, model: "openai:gpt-4.1-mini" }, secret);
    expect(isAuthorizedTurn({ ...turn, model: "openai:gpt-4.1-mini" }, signed, secret)).toBe(true);
    expect(isAuthorizedTurn({ ...turn, model: "openai:o3" }, signed, secret)).toBe(false);
    expect(isAuthorizedTurn(turn, signed, secret)).toBe(false);
  });

  it("still verifies an event that names no model, as one sent before models were picked", () => {
    const signed = authorizeTurn(turn, secret);
    expect(isAuthorizedTurn(turn, signed, secret)).toBe(true);
    expect(isAuthorizedTurn({ ...turn, model: "offline:threadline-offline" }, signed, secret)).toBe(false);
  });
});
