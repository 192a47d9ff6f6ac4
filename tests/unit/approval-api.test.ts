import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "@threadline/history/errors";
import { decideApproval } from "@/lib/client/api";

// The page's call that decides on a tool call: what it sends, and the errors
// it gives the card to show.

function server(answer: () => Response | Promise<Response>) {
  const sent: { url: string; init: RequestInit }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return answer();
  });
  return sent;
}

afterEach(() => vi.unstubAllGlobals());

describe("deciding on a tool call", () => {
  it("posts the decision as JSON to the approval's route, a blank reason left out", async () => {
    const sent = server(() => Response.json({ approvalId: "ap/1", outcome: "approved" }, { status: 202 }));
    await expect(decideApproval("t1", "ap/1", { approved: true, reason: "   " })).resolves.toEqual({ approvalId: "ap/1", outcome: "approved" });
    expect(sent[0].url).toBe("/api/threads/t1/approvals/ap%2F1");
    expect(sent[0].init.method).toBe("POST");
    expect(new Headers(sent[0].init.headers).get("content-type")).toBe("application/json");
    const body = JSON.parse(String(sent[0].init.body));
    expect(body).toMatchObject({ approved: true });
    expect(body).not.toHaveProperty("reason");
  });

  it("sends the reason trimmed with a denial", async () => {
    const sent = server(() => Response.json({ approvalId: "a", outcome: "denied", reason: "not now" }, { status: 202 }));
    await decideApproval("t1", "a", { approved: false, reason: "  not now " });
    expect(JSON.parse(String(sent[0].init.body))).toMatchObject({ approved: false, reason: "not now" });
  });

  it("rejects a second decision with the server's conflict, whose message says how the first went", async () => {
    server(() => Response.json({ error: { code: "conflict:already_decided", message: "This was already decided: approved." } }, { status: 409 }));
    const refused = await decideApproval("t1", "a", { approved: false }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "conflict:already_decided", message: "This was already decided: approved.", status: 409 });
  });

  it("says so when the server cannot be reached", async () => {
    vi.stubGlobal("fetch", async () => {
      throw new TypeError("fetch failed");
    });
    await expect(decideApproval("t1", "a", { approved: true })).rejects.toMatchObject({ code: "internal:network" });
  });
});
