import { route } from "@/lib/http/handler";
import { LIVE_STREAM_HEADERS } from "@/lib/http/ui-stream-response";
import { app } from "@/lib/app";
import { threadNewsStream } from "@/lib/live/news-producer";

export const dynamic = "force-dynamic";

/**
 * Server-sent events: one per change to the caller's threads (lib/protocol/threads.ts ThreadNews), until the client goes.
 * One of the identity's live streams: a 429 past MAX_LIVE_STREAMS_PER_IDENTITY.
 */
export const GET = route(async (request) => {
  const owner = await app().requireOwner(request);
  const release = await app().liveStreams().open(owner);
  return new Response(threadNewsStream(app().liveBus(), owner, request.signal, { onEnd: release }), {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      ...LIVE_STREAM_HEADERS,
    },
  });
});
