import { route } from "@/lib/http/handler";
import { LIVE_STREAM_HEADERS, uiMessageEventStreamResponse } from "@/lib/http/ui-stream-response";
import { app } from "@/lib/app";
import { notFoundThread } from "@threadline/history/errors";
import { isUuid } from "@threadline/history/uuid";
import { parsePosition, type PlacedChunk } from "@/lib/live/turn-resume";

export const dynamic = "force-dynamic";

/**
 * The thread's running reply, from its start or after the event a client
 * names (Last-Event-ID, or ?after=); 204 when no reply is being written.
 */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const { id } = await params;
  const owner = await app().requireOwner(request);
  // A malformed id names no thread of the caller's: the same 404 as a foreign one.
  if (!isUuid(id)) throw notFoundThread();
  const threadId = id.toLowerCase();
  const position = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("after");
  const after = position ? parsePosition(position) : undefined;
  // One of the identity's live streams: a 429 past MAX_LIVE_STREAMS_PER_IDENTITY.
  const release = await app().liveStreams().open(owner);
  let stream: ReadableStream<PlacedChunk> | null;
  try {
    stream = await app().turnResume().open(owner, threadId, { after, signal: request.signal, onEnd: release });
  } catch (error) {
    release();
    throw error;
  }
  if (!stream) {
    release();
    return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
  }
  return uiMessageEventStreamResponse(stream, { "X-Thread-Id": threadId, ...LIVE_STREAM_HEADERS });
});
