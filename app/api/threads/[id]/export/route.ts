import { AppError } from "@threadline/history/errors";
import { route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { exportFilename, refuseOversized, threadExport, threadFileBody } from "@/lib/threads/export";
import { threadMarkdown } from "@/lib/threads/markdown";
import { EXPORT_FORMATS, type ExportFormat } from "@/lib/protocol/thread-export";

export const dynamic = "force-dynamic";

const isFormat = (value: string | null): value is ExportFormat => EXPORT_FORMATS.includes(value as ExportFormat);

/** Pieces of a body, sent one after the other, each let go once sent. */
function streamOf(pieces: Buffer[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      const piece = pieces.shift();
      if (piece) controller.enqueue(piece);
      else controller.close();
    },
  });
}

/**
 * The thread as a download: `json`, every version of every message as
 * compact JSON (lib/protocol/thread-export.ts, what POST /api/threads/import
 * reads, within the same limits: a thread over them is refused before it is
 * read), or `markdown`, the path the thread shows, for a person to read.
 */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const format = new URL(request.url).searchParams.get("format");
  if (!isFormat(format)) {
    throw new AppError("bad_request:format", `format: must be one of ${EXPORT_FORMATS.map((f) => `"${f}"`).join(", ")}.`);
  }
  const owner = await app().requireOwner(request);
  const threads = app().threads();
  refuseOversized(await threads.size(owner, id));
  const file = threadExport(await threads.versionTree(owner, id), new Date());
  const [body, type, extension] =
    format === "json"
      ? [streamOf(threadFileBody(file)), "application/json; charset=utf-8", "json" as const]
      : [threadMarkdown(file), "text/markdown; charset=utf-8", "md" as const];
  return new Response(body, {
    headers: {
      "content-type": type,
      "content-disposition": `attachment; filename="${exportFilename(file.thread.title, extension)}"`,
      "cache-control": "no-store",
    },
  });
});
