import { describe, expect, it } from "vitest";
import { AppError, fromErrorBody } from "@threadline/history/errors";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
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

  it("tells a database that cannot be reached from a query that went wrong", () => {
    const coded = (code: string, message = "x") => Object.assign(new Error(message), { code });
    // Reached nowhere, restarting, shut down, out of connections, cut mid-query.
    for (const error of [
      coded("ECONNREFUSED"),
      coded("57P01", "terminating connection due to administrator command"),
      coded("57P03", "the database system is starting up"),
      coded("08006"),
      coded("53300", "sorry, too many clients already"),
      new Error("Connection terminated unexpectedly"),
      new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")], "connect failed"),
      new Error("The reply could not be saved.", { cause: coded("ECONNRESET") }),
    ]) {
      expect(isDatabaseUnavailable(error), error.message).toBe(true);
    }
    // A bug is not an outage: a syntax error, a constraint, anything else.
    for (const error of [coded("42601", "syntax error"), coded("23505", "duplicate key"), new Error("boom"), "ECONNREFUSED", null]) {
      expect(isDatabaseUnavailable(error)).toBe(false);
    }
  });
});
