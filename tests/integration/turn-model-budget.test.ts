import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import type { ThreadExport } from "@/lib/protocol/thread-export";
import { chatTurn, request, visitor } from "../support/api";
import * as chat from "@/app/api/chat/route";
import * as importRoute from "@/app/api/threads/import/route";
import { integrationApp } from "../support/integration";

// The model calls one turn may make are bounded whatever the thread holds: the
// first turn on an imported thread of nearly 8 MB compacts it with one summary
// call and answers with one more, counted at the mock model server the real
// provider code talks to.
const t = integrationApp();

type Body = { messages: { role: string; content: unknown }[] };
const isSummary = (body: Body) => String(body.messages[0]?.content).startsWith("You condense the earlier part");
const inputChars = (body: Body) => body.messages.reduce((sum, m) => sum + (typeof m.content === "string" ? m.content.length : JSON.stringify(m.content).length), 0);

/** An export file of `turns` turns, each a short question and a long answer, as big as an import may be. */
function hugeFile(turns: number, answerChars: number): ThreadExport {
  const at = new Date().toISOString();
  const messages: ThreadExport["messages"] = [];
  for (let t = 0; t < turns; t++) {
    for (const [role, text] of [
      ["user", `question ${t}`],
      ["assistant", `answer ${t} ${"lorem ipsum ".repeat(answerChars / 12)}`],
    ] as const) {
      const seq = messages.length + 1;
      messages.push({ id: `m${seq}`, parentId: seq === 1 ? null : `m${seq - 1}`, role, parts: [{ type: "text", text }], status: "complete", createdAt: at, chosen: true, seq });
    }
  }
  return { format: "threadline.thread", version: 1, exportedAt: at, thread: { title: "A long story", createdAt: at, updatedAt: at }, messages };
}

describe("the first turn on a huge imported thread", () => {
  it("makes one summary call with a bounded input, then one call for the answer", async () => {
    const me = await visitor();
    const file = hugeFile(2_000, 3_800);
    const body = JSON.stringify(file);
    expect(body.length).toBeGreaterThan(7.5 * 1024 * 1024);
    expect(body.length).toBeLessThan(limits.maxThreadFileBytes);
    const imported = await importRoute.POST(
      request("/api/threads/import", { method: "POST", cookie: me.cookie, headers: { "content-type": "application/json" }, body }),
      undefined,
    );
    expect(imported.status).toBe(201);
    const threadId = (await imported.json()).thread.id as string;

    t.mock.requests.length = 0;
    const turn = await chatTurn(chat, { threadId, message: { id: randomUUID(), content: "where were we?" } }, me.cookie);
    expect(turn.response.status).toBe(200);
    expect(turn.chunks.filter((chunk) => chunk.type === "error")).toEqual([]);
    expect(turn.text).toContain('You said: "where were we?"');

    const requests = t.mock.requests as Body[];
    expect(requests.filter(isSummary)).toHaveLength(1);
    expect(requests.filter((r) => !isSummary(r))).toHaveLength(1);
    const [summary] = requests.filter(isSummary);
    // Its transcript is bounded (60,000 characters and the instructions), and still shows how the thread began and where it got to
    // (the last turns, some 100,000 characters, are kept as they are, not summarized).
    expect(inputChars(summary)).toBeLessThan(62_000);
    const prompt = JSON.stringify(summary.messages);
    expect(prompt).toContain("User: question 0");
    expect(prompt).toMatch(/User: question 19[5-9]\d/);
  });
});
