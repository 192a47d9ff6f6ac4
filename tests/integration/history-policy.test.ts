import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { nextTurnHistory } from "@/lib/agent/turn/next-turn-history";
import { chatTurn, replyParts, signaturesIn } from "../support/api";
import * as chat from "@/app/api/chat/route";
import { integrationApp } from "../support/integration";

// History policies decide what the model is given; the model's side of it is
// what the mock model server received, on both history paths.
// Each test starts from the defaults: the operator's setting it gives stays with its own app.
const t = integrationApp();


const turn = (body: Record<string, unknown>) => chatTurn(chat, body, t.me.cookie);

type Item = { id: string; role: "user" | "assistant"; parts: unknown[]; signature?: string; seq?: number };

/** A thread of three finished turns, and the signed copy the page would hold. */
async function threeTurns() {
  const copy: Item[] = [];
  let threadId: string | undefined;
  for (const word of ["alpha", "beta", "gamma"]) {
    const message = { id: randomUUID(), content: word };
    const { response, chunks } = await turn({ threadId, message, ...(threadId ? { history: copy } : {}) });
    threadId = response.headers.get("x-thread-id")!;
    const signed = signaturesIn(chunks);
    const replyId = (chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    copy.push(
      { id: message.id, role: "user", parts: [{ type: "text", text: word }], ...signed.get(message.id) },
      { id: replyId, role: "assistant", parts: await replyParts(chunks), ...signed.get(replyId) },
    );
  }
  return { threadId: threadId!, copy };
}

/** The user messages the model received on its last call. */
const userTextsSent = () =>
  ((t.mock.requests.at(-1) as { messages: { role: string; content: string }[] }).messages ?? []).filter((m) => m.role === "user").map((m) => m.content);

const reported = (chunks: UIMessageChunk[]) => (chunks.find((c) => c.type === "data-history") as { data: Record<string, unknown> }).data;

describe("history policies", () => {
  for (const path of ["client", "database"] as const) {
    it(`trims what the model reads on the ${path} path, and says which setting is in force`, async () => {
      const cases: [Record<string, unknown>, string[], number | null][] = [
        [{}, ["alpha", "beta", "gamma", "delta"], null],
        [{ historyPolicy: "lastN", historyLength: 2 }, ["gamma", "delta"], 2],
        [{ historyPolicy: "lastN", historyLength: "0" }, ["delta"], 1], // 0 behaves as 1; a URL's digits are fine
        [{ historyPolicy: "none" }, ["delta"], 1],
        [{ historyPolicy: "all" }, ["alpha", "beta", "gamma", "delta"], null],
      ];
      for (const [setting, sent, window] of cases) {
        const { threadId, copy } = await threeTurns();
        const history = path === "client" ? { history: copy } : {};
        const { response, chunks } = await turn({ threadId, message: { id: randomUUID(), content: "delta" }, ...history, ...setting });
        expect(response.headers.get("x-history-source")).toBe(path);
        expect(userTextsSent()).toEqual(sent);
        expect(reported(chunks)).toMatchObject({
          policy: setting.historyPolicy ?? "all",
          source: setting.historyPolicy ? "URL" : "default",
          sentMessages: sent.length * 2 - 1,
          threadMessages: 7,
          window,
        });
      }
    });
  }

  it("lets the operator's setting win over the URL's", async () => {
    const { threadId } = await threeTurns();
    await t.configure({ NEXT_PUBLIC_DEFAULT_HISTORY_POLICY: "lastN", NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH: "1" });
    const { chunks } = await turn({ threadId, message: { id: randomUUID(), content: "delta" }, historyPolicy: "all" });
    expect(userTextsSent()).toEqual(["delta"]);
    expect(reported(chunks)).toMatchObject({ policy: "lastN", length: 1, source: "environment" });
  });

  it("shows the chat page, before anything is sent, the setting the next turn then reports", async () => {
    const { threadId } = await threeTurns();
    const cases: [Record<string, string>, Record<string, string>, { policy: string; length: number; source: string }][] = [
      [{}, {}, { policy: "all", length: 10, source: "default" }],
      [{}, { historyPolicy: "lastN", historyLength: "2" }, { policy: "lastN", length: 2, source: "URL" }],
      [{ NEXT_PUBLIC_DEFAULT_HISTORY_POLICY: "none" }, { historyPolicy: "all" }, { policy: "none", length: 10, source: "environment" }],
      [{ NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH: "3" }, { historyPolicy: "lastN", historyLength: "9" }, { policy: "lastN", length: 3, source: "URL" }],
    ];
    let threadMessages = 6;
    for (const [environment, url, expected] of cases) {
      await t.configure(environment);
      const page = nextTurnHistory({ searchParams: { debug: "true", ...url }, threadMessages, network: t.app.network() });
      expect(page).toEqual({ ...expected, threadMessages });
      // The page's body carries the URL's setting as written; the route reads it as it reads any request.
      const { chunks } = await turn({ threadId, message: { id: randomUUID(), content: "next" }, ...url });
      expect(reported(chunks)).toMatchObject({ ...expected, threadMessages: threadMessages + 1 });
      threadMessages += 2;
    }
  });

  it("tells the chat page when the next message would be refused, and why", () => {
    expect(nextTurnHistory({ searchParams: { historyLength: "-1" }, threadMessages: 0, network: t.app.network() })).toEqual({
      error: "the next message will be refused (historyLength: must be a whole number, 0 or more)",
    });
  });

  it("refuses a bad policy or length with a 400 that names the field, and stores nothing", async () => {
    for (const [field, value] of [
      ["historyLength", -1],
      ["historyLength", "abc"],
      ["historyLength", "1.5"],
      ["historyPolicy", "lastFew"],
    ] as const) {
      const { response, error } = await turn({ message: { id: randomUUID(), content: "hi" }, historyPolicy: "lastN", [field]: value });
      expect(response.status).toBe(400);
      expect(error?.error.code).toBe("bad_request:validation");
      expect(error?.error.message).toContain(field);
    }
  });
});
