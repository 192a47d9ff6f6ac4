import { readJson } from "@/lib/http/body";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { jsonResponse, route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { approvalDecisionSchema } from "@/lib/protocol/approvals";
import { decideApproval } from "@/lib/approvals/decide";
import { app } from "@/lib/app";

export const dynamic = "force-dynamic";

/** The owner's decision on a tool call that waits for it: 202, and the reply goes on (GET /api/threads/:id/stream). */
export const POST = route<{ params: Promise<{ id: string; approvalId: string }> }>(async (request, { params }) => {
  const { id, approvalId } = await params;
  const threadId = threadIdParam(id);
  const decision = await readJson(request, approvalDecisionSchema, 16 * 1024);
  const owner = await app().requireOwner(request);
  // A decision may start a round of the reply, a model call: it counts as a message does, before anything is recorded.
  await app().rateLimits().limitChatTurn(owner, requestAddress(request));
  const decided = await decideApproval(
    { owner, threadId, approvalId, ...decision },
    { approvals: app().approvals(), runtime: app().runtime(), timeoutMs: app().approvalTimeoutMs },
  );
  return jsonResponse(decided, { status: 202 });
});
