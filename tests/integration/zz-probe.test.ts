import { randomUUID } from "node:crypto";
import { it } from "vitest";
import * as chat from "@/app/api/chat/route";
import { chatTurn } from "../support/api";
import { integrationApp } from "../support/integration";
import { memoryRequests } from "../support/memory";
const t = integrationApp({ runtime: "inngest" });
it("probe", async () => {
  const p = chatTurn(chat, { message: { id: randomUUID(), content: "[[memory-held]] I live in Lisbon" } }, t.me.cookie);
  const timer = setInterval(() => console.log("RUNS", JSON.stringify(t.standin.runs.map((r) => [r.fnId, r.status])), "MEM", memoryRequests(t.mock).length, "REQ", t.mock.requests.length), 1000);
  const r = await p;
  console.log("TURN DONE", r.chunks.at(-1));
  await new Promise((res) => setTimeout(res, 3000));
  t.mock.releaseTitles();
  await t.standin.idle();
  clearInterval(timer);
  console.log("RUNS", JSON.stringify(t.standin.runs.map((r) => [r.fnId, r.status])));
}, 30000);
