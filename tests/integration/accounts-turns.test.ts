import { randomUUID } from "node:crypto";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import * as chat from "@/app/api/chat/route";
import * as decisionRoute from "@/app/api/threads/[id]/approvals/[approvalId]/route";
import * as person from "@/app/api/admin/people/[id]/route";
import * as invites from "@/app/api/admin/invites/route";
import * as invite from "@/app/invite/[code]/route";
import { chatTurn, readWords, request, restChunks, visitor } from "../support/api";
import { signUp, whoAmI } from "../support/accounts";
import { integrationApp } from "../support/integration";

// Accounts and turns, with the real provider code talking to the mock model
// server: an admin who disables a person stops the replies that person has
// running, and a guest's reply waiting for an approval is the account's to
// decide once the guest signs up.

const email = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.org`;

async function inviteCookie(adminCookie: string): Promise<string> {
  const { url } = (await (await invites.POST(request("/api/admin/invites", { method: "POST", cookie: adminCookie }), undefined)).json()).invite;
  const code = new URL(url).pathname.split("/").pop()!;
  return (await invite.GET(request(`/invite/${code}`), { params: Promise.resolve({ code }) })).headers.getSetCookie()[0].split(";")[0];
}

describe.each(["inline", "inngest"] as const)("accounts and turns (%s runtime)", (runtime) => {
  const t = integrationApp({ runtime, settings: { AUTH_MODE: "accounts", AUTH_GUESTS: "1", TOOL_APPROVAL: "all", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" } });

  it("disabling a person stops the reply they have running, and keeps what it wrote", async () => {
    await t.pool.query("TRUNCATE auth_users, auth_first_admin CASCADE");
    const admin = await signUp(email("admin"));
    const member = await signUp(email("member"), { cookie: await inviteCookie(admin.cookie) });
    const memberId = (await whoAmI(member.cookie)).user.id;

    const response = await chat.POST(
      request("/api/chat", { method: "POST", cookie: member.cookie, json: { message: { id: randomUUID(), content: "[[slow]] take your time" } } }),
      undefined,
    );
    expect(response.status).toBe(200);
    const threadId = response.headers.get("x-thread-id")!;
    const underway = await readWords(response, 4);
    const disabled = await person.PATCH(request(`/api/admin/people/${memberId}`, { method: "PATCH", cookie: admin.cookie, json: { action: "disable" } }), {
      params: Promise.resolve({ id: memberId }),
    });
    expect(disabled.status).toBe(200);
    const chunks: UIMessageChunk[] = await restChunks(underway);
    expect(chunks).toContainEqual({ type: "data-status", data: { status: "stopped" }, transient: true });
    const { rows } = await t.pool.query("SELECT status FROM messages WHERE thread_id = $1 AND kind = 'assistant' AND part_index = 0", [threadId]);
    expect(rows.map((row) => row.status)).toEqual(["stopped"]);
  });

  it("a guest's reply waiting for an approval is the account's to decide after the guest signs up", async () => {
    await t.pool.query("TRUNCATE auth_users, auth_first_admin CASCADE");
    await signUp(email("admin"));
    await t.configure({ AUTH_MODE: "accounts", AUTH_GUESTS: "1", AUTH_SIGNUP: "open", TOOL_APPROVAL: "all", RATE_LIMIT_AUTH_PER_MINUTE_PER_ADDRESS: "0" });
    const guest = await visitor();
    const turn = await chatTurn(chat, { message: { id: randomUUID(), content: '[[call:calculate:{"expression":"6 * 7"}]]' } }, guest.cookie);
    const asked = turn.chunks.find((c): c is Extract<UIMessageChunk, { type: "tool-approval-request" }> => c.type === "tool-approval-request")!;
    expect(asked).toBeDefined();
    const threadId = turn.threadId!;

    const account = await signUp(email("guest"), { cookie: guest.cookie });
    expect(account.status).toBe(200);
    const decide = (cookie: string) =>
      decisionRoute.POST(request(`/api/threads/${threadId}/approvals/${asked.approvalId}`, { method: "POST", cookie, json: { approved: true } }), {
        params: Promise.resolve({ id: threadId, approvalId: asked.approvalId }),
      });
    // The guest's identity owns nothing any more; the account decides.
    expect((await decide(guest.cookie)).status).toBe(404);
    const decided = await decide(account.cookie);
    expect(decided.status).toBe(202);
    expect(await decided.json()).toEqual({ approvalId: asked.approvalId, outcome: "approved" });
    // And the reply goes on: the approved call runs and the model answers, in the account's thread.
    const replyId = (turn.chunks.find((c) => c.type === "start") as { messageId: string }).messageId;
    const status = async () =>
      (await t.pool.query<{ status: string }>("SELECT status FROM messages WHERE thread_id = $1 AND message_id = $2 AND part_index = 0", [threadId, replyId])).rows[0]?.status;
    await expect.poll(status, { timeout: 15_000 }).toBe("complete");
  });
});
