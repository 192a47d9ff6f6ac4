import { describe, expect, it } from "vitest";
import { AppError, fromErrorBody } from "@/lib/errors";
import { route } from "@/lib/http/handler";

describe("error responses", () => {
  it("maps an AppError to its status and JSON body, and the client parses it back", async () => {
    const handler = route(async () => {
      throw new AppError("not_found:thread", "Thread not found.");
    });
    const response = await handler(new Request("http://x/"), undefined);
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body).toEqual({ error: { code: "not_found:thread", message: "Thread not found." } });
    expect(fromErrorBody(body).code).toBe("not_found:thread");
  });

  it("answers an unexpected failure with a generic 500 that carries no stack or detail", async () => {
    const handler = route(async () => {
      throw new Error("connection to 10.0.0.5 refused: password for user admin");
    });
    const original = console.error;
    console.error = () => {};
    try {
      const response = await handler(new Request("http://x/"), undefined);
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text).error.code).toBe("internal:server");
      expect(text).not.toMatch(/10\.0\.0\.5|password|at .*:\d+/);
    } finally {
      console.error = original;
    }
  });
});
