import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/handler";
import { threadIdParam } from "@/lib/http/params";
import { app } from "@/lib/app";
import { exportFilename, threadExport } from "@/lib/threads/export";
import { threadMarkdown } from "@/lib/threads/markdown";
import { EXPORT_FORMATS, type ExportFormat } from "@/lib/protocol/thread-export";

export const dynamic = "force-dynamic";

const isFormat = (value: string | null): value is ExportFormat => EXPORT_FORMATS.includes(value as ExportFormat);

/**
 * The thread as a download: `json`, every version of every message
 * (lib/protocol/thread-export.ts, what POST /api/threads/import reads), or
 * `markdown`, the path the thread shows, for a person to read.
 */
export const GET = route<{ params: Promise<{ id: string }> }>(async (request, { params }) => {
  const id = threadIdParam((await params).id);
  const format = new URL(request.url).searchParams.get("format");
  if (!isFormat(format)) {
    throw new AppError("bad_request:format", `format: must be one of ${EXPORT_FORMATS.map((f) => `"${f}"`).join(", ")}.`);
  }
  const owner = await app.requireOwner(request);
  const file = threadExport(await app.threads().versionTree(owner, id), new Date());
  const [body, type, extension] =
    format === "json"
      ? [`${JSON.stringify(file, null, 2)}\n`, "application/json; charset=utf-8", "json" as const]
      : [threadMarkdown(file), "text/markdown; charset=utf-8", "md" as const];
  return new Response(body, {
    headers: {
      "content-type": type,
      "content-disposition": `attachment; filename="${exportFilename(file.thread.title, extension)}"`,
      "cache-control": "no-store",
    },
  });
});
