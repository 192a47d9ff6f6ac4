import { trustedClientHistory } from "@/lib/auth/history-signature";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/handler";
import { stateChangeRefusal } from "@/lib/http/request-origin";
import { LIVE_STREAM_HEADERS, uiMessageStreamResponse } from "@/lib/http/ui-stream-response";
import { requestAddress } from "@/lib/http/client-address.mjs";
import { app } from "@/lib/app";
import { chatRequestSchema } from "@/lib/protocol/chat";
import type { TurnInput } from "@/lib/protocol/turn-events";

export const dynamic = "force-dynamic";

export const POST = route(async (request) => {
  // proxy.ts skips this route, the busiest: the origin and body checks it would make are made here.
  const refusal = stateChangeRefusal(request.method, request.headers, request.url);
  if (refusal) throw refusal;
  // Who asks, and whether they may, before up to 4 MB of body is read and parsed.
  const owner = await app().requireOwner(request);
  // Read while the limits are counted and the body is read: the turn waits for no round trip of the budget's own.
  const standing = app().budgets().standing(owner);
  await app().rateLimits().limitChatTurn(owner, requestAddress(request));
  const body = await readJson(request, chatRequestSchema);
  if (body.model !== undefined) app().requireOfferedModel(body.model);
  const input: Omit<TurnInput, "turnId"> = {
    owner,
    threadId: body.threadId,
    // Each file the caller's (a 400 before anything is stored, if one is not).
    message: { id: body.message.id, role: "user", content: body.message.content, files: await app().files().forMessage(owner, body.message.files ?? []) },
    // Used only when the server signed every message of it; otherwise the database is read.
    clientHistory: await trustedClientHistory(app().sessionSecret, owner, body.threadId, body.history),
    historyPolicy: { policy: body.historyPolicy, length: body.historyLength },
    replaces: body.replaces,
    origin: { source: body.source ?? "api", sourceId: body.sourceId ?? null, sourceMetadata: body.sourceMetadata ?? null },
    timeZone: body.timeZone,
    model: body.model,
    ...(body.temporary ? { temporary: true } : {}),
  };
  // A turn the person's budget has no room for is stored with the notice, and answered 429.
  await app().refuseOverBudget(input, standing);
  // A resend waiting for its running turn stops waiting when this request's client hangs up.
  const turn = await app().runtime().start(input, { signal: request.signal });
  return uiMessageStreamResponse(turn.stream, {
    "X-Thread-Id": turn.threadId,
    // Unknown while the message waits for the thread's running turn: the stream's data-thread says it then.
    ...(turn.historySource ? { "X-History-Source": turn.historySource } : {}),
    ...LIVE_STREAM_HEADERS,
  });
});
